/**
 * The command hook's own dispatch (the cold path): compiles the registration for the host,
 * connects the backends the call needs (transports loaded on first use), answers the
 * payload within the deadline, writes the audit record, and then stops every backend
 * process. Loaded by the command hook only when a subscription may select the call.
 *
 * The hook exits once the answer and the audit record are written (`Running.settled`),
 * without waiting for the backends to stop: every stdio backend runs under the transport's
 * guardian, which stops what the hook leaves behind once the hook process is gone, however
 * it ended (its exit, or the host's SIGKILL at its timeout). Each backend then has the exit
 * grace from the end of its stdin to exit on its own (it has been sent everything: the call
 * waits for its observations to be delivered), then its process group is sent SIGTERM, and
 * SIGKILL 150 ms later.
 *
 * A registration that is missing, unreadable or invalid is reported to the user with the
 * host's "no opinion" — or, for an event the host can block, a denial when the hook runs
 * with `--fail-closed` or (for a registration that parses but does not compile) when one of
 * its subscriptions shows a fail-closed intent for the event (`Policy.failClosedIntent`).
 *
 * @since 0.1.0
 */
import { type Registry, Tracing } from "@effect-ahp/harness"
import { type HostEvents, Hosts } from "@effect-ahp/hosts"
import * as NodeTransports from "@effect-ahp/node/NodeTransports"
import { Json } from "@effect-ahp/protocol"
import { Duration, Effect, Either, ExecutionStrategy, Exit, Fiber, Layer, Scope } from "effect"
import * as path from "node:path"
import type * as AuditSinks from "./AuditSinks.js"
import * as Budget from "./Budget.js"
import type * as Cache from "./Cache.js"
import type * as Locate from "./Locate.js"
import * as Policy from "./Policy.js"
import * as Terminal from "./Terminal.js"
import * as Trouble from "./Trouble.js"

/**
 * One invocation of the command hook.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly host: HostEvents.HostName
  /** How long a backend process may take to exit once its stdin has ended (milliseconds). */
  readonly exitGraceMs: number
  /** The payload text, or why there is none. */
  readonly payload: { readonly _tag: "Text"; readonly text: string } | {
    readonly _tag: "Unreadable"
    readonly problem: string
  }
  /** The host event the payload names, when known. */
  readonly event: HostEvents.HostEvent | undefined
  readonly registration: Locate.Located
  readonly deadline: number
  readonly failClosed: boolean
  readonly verbose: boolean
  readonly source: string | undefined
  /**
   * The decision audit file (JSON Lines) and whether records carry the event; the audit is
   * loaded only with a file or when the `OTEL_*` variables ask for an export.
   */
  readonly audit: { readonly file: string | undefined; readonly content: boolean }
  /** The OpenTelemetry export the program supplies, if any. */
  readonly telemetry?: AuditSinks.LoadTelemetry | undefined
  /** Called with the result as soon as it is known, before the backends are stopped. */
  readonly onAnswer: (result: Result) => void
}

/**
 * The answer and what to cache.
 *
 * @since 0.1.0
 * @category models
 */
export interface Result extends Policy.Reply {
  /** The summary of the registration, when it compiled. */
  readonly summary: Cache.Summary | undefined
}

const issuesText = (error: Registry.ConfigurationError): string => {
  const shown = error.issues.slice(0, 3).map((i) => `${i.path || "/"}: ${i.message}`).join("; ")
  return error.issues.length > 3 ? `${shown}; and ${error.issues.length - 3} more` : shown
}

/**
 * The transports of a one-shot hook, its stdio backends under the guardian. A backend
 * process gets the exit grace to finish what was sent to it and exit once its stdin ends,
 * then it is stopped. A stdio backend's relative paths resolve against the directory of the
 * registration file (the file is located as an absolute path), as with `ahp dispatch`.
 */
const transports = (exitGraceMs: number, registration: Locate.Located) =>
  Budget.layer("hook").pipe(
    Layer.provide(NodeTransports.layerOnDemand({
      stdio: {
        exitGrace: Duration.millis(exitGraceMs),
        killGrace: Duration.millis(150),
        guardian: true,
        directory: registration._tag === "Missing" ? undefined : path.dirname(registration.file)
      }
    }))
  )

const answered = (request: Request) => (result: Result) => Effect.sync(() => request.onAnswer(result))

const program = (request: Request, settled: () => void): Effect.Effect<Result> => {
  const host = Hosts.of(request.host)
  const failed = (problem: string, failClosed: boolean): Result => ({
    answer: Trouble.answer(host, request.event, problem, failClosed),
    trace: [],
    summary: undefined
  })
  const located = request.registration
  if (located._tag === "Missing") {
    return Effect.tap(
      Effect.succeed(failed(
        located.notice ??
          `no AHP registration found (pass --registration, set AHP_REGISTRATION_FILE, or create ${
            located.searched[0] ?? ".ahp/registration.json"
          })`,
        request.failClosed
      )),
      answered(request)
    )
  }
  if (located._tag === "Unreadable") {
    return Effect.tap(
      Effect.succeed(failed(`cannot read the AHP registration ${located.file}: ${located.reason}`, request.failClosed)),
      answered(request)
    )
  }
  const document = Json.parse(located.text)
  if (Either.isLeft(document)) {
    return Effect.tap(
      Effect.succeed(
        failed(`the AHP registration ${located.file} is not JSON: ${document.left.message}`, request.failClosed)
      ),
      answered(request)
    )
  }
  const compiled = Effect.matchEffect(Policy.make(host, document.right), {
    onFailure: (error) =>
      Effect.succeed(failed(
        `the AHP registration ${located.file} is invalid: ${issuesText(error)}`,
        request.failClosed ||
          (request.event?.type !== undefined && Policy.failClosedIntent(document.right, request.event.type))
      )),
    onSuccess: (policy) => {
      const summary = Policy.summary(policy)
      if (request.payload._tag === "Unreadable") {
        const failClosed = request.event !== undefined && summary[request.event.name]?.failClosed === true
        return Effect.succeed({ ...failed(request.payload.problem, failClosed), summary })
      }
      return Effect.map(
        Policy.answer(policy, request.payload.text, {
          deadline: request.deadline,
          source: request.source,
          verbose: request.verbose
        }),
        (reply): Result => ({ ...reply, summary })
      )
    }
  })
  // The backends live in the call's scope, the audit in a scope of its own closed (its
  // records written) as soon as the answer is: the hook may exit from then on.
  return Effect.scoped(Effect.gen(function*() {
    const backends = yield* Effect.scope
    const audit = yield* Scope.fork(backends, ExecutionStrategy.sequential)
    const result = yield* Scope.extend(audited(request, Scope.extend(compiled, backends)), audit)
    yield* answered(request)(result)
    yield* Scope.close(audit, Exit.void)
    yield* Effect.sync(settled)
    return result
  })).pipe(Effect.provide(transports(request.exitGraceMs, request.registration)))
}

/** The call under the decision audit when one is asked for (its module loaded only then). */
const audited = <A, E, R>(request: Request, self: Effect.Effect<A, E, R>) => {
  const audit = request.audit
  if (audit.file === undefined && !Tracing.exportRequested(process.env)) return self
  return Effect.flatMap(
    Effect.promise(() => import("./AuditSinks.js")),
    (Audit) =>
      Audit.withAuditOrWarn(
        audit.file,
        audit.content,
        (message) => Effect.sync(() => void process.stderr.write(`ahp: ${Terminal.line(message)}\n`)),
        request.telemetry
      )(self)
  )
}

/**
 * A running invocation.
 *
 * @since 0.1.0
 * @category models
 */
export interface Running {
  /** The result; `undefined` when the invocation was stopped. */
  readonly result: Promise<Result | undefined>
  /**
   * Resolved once the answer and the audit record are written, before the backend
   * processes are stopped (at the latest with `result`): the hook may exit from then on.
   */
  readonly settled: Promise<void>
  /** Stops the invocation: every backend process is stopped before the promise resolves. */
  readonly stop: () => Promise<void>
}

/**
 * Starts one invocation. A SIGINT or SIGTERM stops it. The result is handed to `onAnswer`
 * before the audit record is written and the backend processes are stopped, and resolved
 * once they are.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (request: Request): Running => {
  let settle = () => {}
  const settled = new Promise<void>((resolve) => (settle = resolve))
  const fiber = Effect.runFork(program(request, () => settle()))
  const stop = () => Effect.runPromise(Fiber.interrupt(fiber)).then(() => undefined)
  const onSignal = () => void stop()
  process.once("SIGINT", onSignal)
  process.once("SIGTERM", onSignal)
  const result = Effect.runPromise(Fiber.await(fiber)).then((exit) => {
    process.off("SIGINT", onSignal)
    process.off("SIGTERM", onSignal)
    settle()
    return Exit.isSuccess(exit) ? exit.value : undefined
  })
  return { result, settled, stop }
}
