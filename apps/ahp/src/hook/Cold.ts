/**
 * The command hook's own dispatch (the cold path): compiles the registration for the host,
 * connects the backends the call needs (transports loaded on first use), answers the
 * payload within the deadline, and stops every backend process before it returns. Loaded
 * by the command hook only when a subscription may select the call.
 *
 * A registration that is missing, unreadable or invalid is reported to the user with the
 * host's "no opinion" — or, for an event the host can block, a denial when the hook runs
 * with `--fail-closed` or (for a registration that parses but does not compile) when one of
 * its subscriptions shows a fail-closed intent for the event (`Policy.failClosedIntent`).
 *
 * @since 0.1.0
 */
import type { Registry } from "@effect-ahp/harness"
import { type HostEvents, Hosts } from "@effect-ahp/hosts"
import { Json } from "@effect-ahp/protocol"
import { Duration, Effect, Either, Exit, Fiber, Layer } from "effect"
import * as Budget from "./Budget.js"
import type * as Cache from "./Cache.js"
import * as LazyTransports from "./LazyTransports.js"
import type * as Locate from "./Locate.js"
import * as Policy from "./Policy.js"
import * as Trouble from "./Trouble.js"

/**
 * One invocation of the command hook.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly host: HostEvents.HostName
  /** The payload text, or why there is none. */
  readonly payload: { readonly _tag: "Text"; readonly text: string } | { readonly _tag: "Unreadable"; readonly problem: string }
  /** The host event the payload names, when known. */
  readonly event: HostEvents.HostEvent | undefined
  readonly registration: Locate.Located
  readonly deadline: number
  readonly failClosed: boolean
  readonly verbose: boolean
  readonly source: string | undefined
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

/** The transports of a one-shot hook: children get little time to exit, since the host is waiting. */
const transports = Budget.layer.pipe(
  Layer.provide(LazyTransports.layer({ stdio: { exitGrace: Duration.millis(100), killGrace: Duration.millis(150) } }))
)

const program = (request: Request): Effect.Effect<Result> => {
  const host = Hosts.of(request.host)
  const failed = (problem: string, failClosed: boolean): Result => ({
    answer: Trouble.answer(host, request.event, problem, failClosed),
    trace: [],
    summary: undefined
  })
  const located = request.registration
  if (located._tag === "Missing") {
    return Effect.succeed(failed(
      `no AHP registration found (pass --registration, set AHP_REGISTRATION_FILE, or create ${
        located.searched[0] ?? ".ahp/registration.json"
      })`,
      request.failClosed
    ))
  }
  if (located._tag === "Unreadable") {
    return Effect.succeed(failed(`cannot read the AHP registration ${located.file}: ${located.reason}`, request.failClosed))
  }
  const document = Json.parse(located.text)
  if (Either.isLeft(document)) {
    return Effect.succeed(
      failed(`the AHP registration ${located.file} is not JSON: ${document.left.message}`, request.failClosed)
    )
  }
  return Effect.scoped(
    Effect.matchEffect(Policy.make(host, document.right), {
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
  ).pipe(Effect.provide(transports))
}

/**
 * Runs one invocation. A SIGINT or SIGTERM interrupts it: every backend process is stopped
 * and the promise resolves with `undefined`.
 *
 * @since 0.1.0
 * @category running
 */
export const run = async (request: Request): Promise<Result | undefined> => {
  const fiber = Effect.runFork(program(request))
  const stop = () => Effect.runFork(Fiber.interrupt(fiber))
  process.once("SIGINT", stop)
  process.once("SIGTERM", stop)
  const exit = await Effect.runPromise(Fiber.await(fiber))
  process.off("SIGINT", stop)
  process.off("SIGTERM", stop)
  return Exit.isSuccess(exit) ? exit.value : undefined
}
