/**
 * `ahp dispatch --registration REG.json --event EVENT.json [--capabilities CAPS.json]
 * [--state STATE.json] [--source URI] [--no-wait-observers] [--audit FILE [--audit-content]]
 * [--pretty]`: runs one boundary
 * call through the real harness (`Hooks`) and the real Node transports, and prints one
 * JSON object on stdout (see `toJson`); logs go to stderr.
 *
 * Backends run as the registration says, with its relative paths resolved against the
 * registration file's directory. The harness makes this one call: an observation to a
 * persistent stdio backend is followed by the end of its stdin and reported `delivered`
 * only once the backend has read it and exited with status 0.
 *
 * Exit codes: 0 when the call completed, whatever the decision; 2 when it could not be made:
 * unreadable input (`{"error":"input",…}`) or an invalid registration or grant
 * (`{"error":"configuration",…}`); 130 when interrupted (SIGINT or SIGTERM, at any point of
 * the call, observation included: the result is printed at once with `interrupted: true`,
 * and the program exits once every backend process has been stopped).
 *
 * @since 0.1.0
 */
import { DispatchResult, Grant, Hooks, Observation, RouteFailure, Tracing } from "@effect-ahp/harness"
import * as Recorder from "@effect-ahp/hook/Recorder"
import * as RouteTrace from "@effect-ahp/hook/RouteTrace"
import { NodeTransports, StdioTransport } from "@effect-ahp/node"
import { Capabilities, Decoder, Discovery, Elicitation, Event, Intercept, Issue, Json } from "@effect-ahp/protocol"
import { Deferred, Effect, Either, Exit, Fiber, Layer, Option, Schema } from "effect"
import * as Audit from "./Audit.js"
import * as Io from "./Io.js"

/**
 * The JSON form of a failed route.
 *
 * @since 0.1.0
 * @category output
 */
export const errorJson = Decoder.lazy(() => Schema.encodeSync(RouteFailure.FromJson))

/**
 * The JSON form of an observation delivery.
 *
 * @since 0.1.0
 * @category output
 */
export const observationJson = Decoder.lazy(() => Schema.encodeSync(Observation.Observation))

/**
 * The output object of one boundary call.
 *
 * @since 0.1.0
 * @category output
 */
export const toJson = Decoder.lazy(() => Schema.encodeSync(DispatchResult.DispatchResult))

const capabilitiesProblem = (path: string, message: string): Io.ConfigIssue => ({
  code: "invalid-capabilities",
  path,
  message
})

const decodeManifest = Decoder.lazy(() => Decoder.make(Discovery.Manifest))
const decodeCapabilities = Decoder.lazy(() => Decoder.make(Capabilities.Capabilities))

const manifestIn = (value: Json.JsonObject): { readonly at: string; readonly manifest: Json.JsonValue } | undefined => {
  if (Array.isArray(value.events)) return { at: "", manifest: value }
  if (Json.isObject(value.manifest)) return { at: "/manifest", manifest: value.manifest }
  if (Json.isObject(value.result) && Json.isObject(value.result.manifest)) {
    return { at: "/result/manifest", manifest: value.result.manifest }
  }
  return undefined
}

/**
 * The host's grant from a capabilities file: a static capability manifest (bare, as a
 * `hooks/capabilities` result, or as the whole JSON-RPC response), or a map from event type
 * to intercept capabilities (every event then offered for observation).
 *
 * @since 0.1.0
 * @category input
 */
export const grantFrom = (value: Json.JsonValue, file: string): Either.Either<Grant.Grant, Io.ConfigError> => {
  const fail = (issues: ReadonlyArray<Io.ConfigIssue>) => Either.left(new Io.ConfigError({ file, issues }))
  if (!Json.isObject(value)) {
    return fail([capabilitiesProblem("", "must be a capability manifest or a map from event type to capabilities")])
  }
  const found = manifestIn(value)
  if (found !== undefined) {
    const decoded = decodeManifest(found.manifest)
    if (Either.isLeft(decoded)) return fail(decoded.left.map((i) => capabilitiesProblem(found.at + i.path, i.message)))
    return Either.mapLeft(
      Grant.fromManifest(decoded.right),
      (problems) =>
        new Io.ConfigError({ file, issues: problems.map((p) => capabilitiesProblem(found.at + p.path, p.message)) })
    )
  }
  const issues: Array<Io.ConfigIssue> = []
  const map: Record<string, Capabilities.Capabilities> = {}
  for (const [type, caps] of Object.entries(value)) {
    const at = Issue.pointer([type])
    if (!Event.isEventType(type)) {
      issues.push(capabilitiesProblem(at, `${type} is not a catalogue event type`))
      continue
    }
    const decoded = decodeCapabilities(caps)
    if (Either.isLeft(decoded)) issues.push(...decoded.left.map((i) => capabilitiesProblem(at + i.path, i.message)))
    else map[type] = decoded.right
  }
  if (issues.length > 0) return fail(issues)
  return Either.mapLeft(
    Grant.fromCapabilityMap(map),
    (problems) => new Io.ConfigError({ file, issues: problems.map((p) => capabilitiesProblem(p.path, p.message)) })
  )
}

/**
 * The options of one dispatch.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly registration: string
  readonly event: string
  readonly capabilities: Option.Option<string>
  readonly state: Option.Option<string>
  readonly elicitationSchema: Option.Option<string>
  readonly source: Option.Option<string>
  readonly observationTimeoutMs: number
  readonly noWaitObservers: boolean
  /** The decision audit file (JSON Lines), if any. */
  readonly audit: Option.Option<string>
  /** Whether audit records carry the event. */
  readonly auditContent: boolean
  readonly pretty: boolean
}

const decodeState = Decoder.lazy(() => Decoder.make(Intercept.State))
const decodeRequestedSchema = Decoder.lazy(() => Decoder.make(Elicitation.RequestedSchema))

const readDecoded = <A>(file: string, what: string, decode: (u: unknown) => Either.Either<A, Array<Issue.Issue>>) =>
  Effect.flatMap(Io.readJson(file, what), (value) =>
    Either.match(decode(value), {
      onLeft: (issues) =>
        Effect.fail(new Io.InputError({ file, message: `the ${what} file ${file} is not valid`, issues })),
      onRight: Effect.succeed
    }))

const optionally = <A, E, R>(file: Option.Option<string>, read: (file: string) => Effect.Effect<A, E, R>) =>
  Option.match(file, { onNone: () => Effect.succeed(undefined), onSome: read })

const load = (options: Options) =>
  Effect.gen(function*() {
    const registration = yield* Io.readJson(options.registration, "registration")
    const event = yield* Io.readEvent(options.event)
    const capabilities = yield* optionally(options.capabilities, (file) => Io.readJson(file, "capabilities"))
    const state = yield* optionally(options.state, (file) => readDecoded(file, "state", decodeState))
    const elicitationSchema = yield* optionally(
      options.elicitationSchema,
      (file) => readDecoded(file, "elicitation schema", decodeRequestedSchema)
    )
    const grant = capabilities === undefined
      ? Grant.full()
      : yield* grantFrom(capabilities, Option.getOrElse(options.capabilities, () => ""))
    return { registration, event, state, elicitationSchema, grant }
  })

const listenForSignals = (interrupt: Deferred.Deferred<void>) =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const listener = () => Deferred.unsafeDone(interrupt, Exit.void)
      process.on("SIGINT", listener)
      process.on("SIGTERM", listener)
      return listener
    }),
    (listener) =>
      Effect.sync(() => {
        process.off("SIGINT", listener)
        process.off("SIGTERM", listener)
      })
  )

/**
 * Runs one dispatch and prints its result or failure; returns nothing, sets the exit code.
 * A SIGINT or SIGTERM interrupts the call (not this effect): the result is still printed.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: Options): Effect.Effect<void, never, Io.ExitCode> =>
  Effect.gen(function*() {
    const interrupt = yield* Deferred.make<void>()
    yield* listenForSignals(interrupt)
    const inputs = yield* load(options)
    const hooks = yield* Hooks.makeUnknown(inputs.registration, {
      grant: inputs.grant,
      source: Option.getOrUndefined(options.source),
      observationTimeoutMs: options.observationTimeoutMs
    }).pipe(
      Effect.mapError((error) =>
        new Io.ConfigError({ file: options.registration, issues: Io.withHints(inputs.registration, error.issues) })
      )
    )
    const scope = yield* Effect.scope
    const traced = Tracing.withTraceContext(
      inputs.event.input,
      Tracing.traceContextFrom(process.env.TRACEPARENT, process.env.TRACESTATE)
    )
    const result = yield* RouteTrace.logged(
      traced,
      hooks.registry.routes(inputs.event.type),
      hooks.dispatchUnknown(inputs.event.type, traced, {
        state: inputs.state,
        elicitationSchema: inputs.elicitationSchema,
        interrupt: Deferred.await(interrupt),
        observers: options.noWaitObservers ? { scope } : "wait"
      })
    ).pipe(
      Effect.mapError((error) =>
        new Io.InputError({
          file: options.event,
          message: error._tag === "InvalidEvent"
            ? `the event file ${options.event} is not a valid ${error.type} event`
            : error.message,
          issues: error.issues
        })
      )
    )
    yield* Io.printJson(toJson(result), options.pretty)
    yield* Io.exitWith(result.interrupted ? Io.exitCodes.interrupted : Io.exitCodes.ok)
    yield* Effect.raceFirst(result.observationsDone, Deferred.await(interrupt))
  }).pipe(
    Effect.scoped,
    Audit.withAudit(options.audit, options.auditContent),
    Effect.catchTags({
      InputError: (error) => Io.reportFailure(error, options.pretty),
      ConfigError: (error) => Io.reportFailure(error, options.pretty)
    }),
    Effect.provide(Recorder.layer.pipe(Layer.provide(NodeTransports.layerNode({
      stdio: { directory: StdioTransport.directoryOf(options.registration), oneShot: true }
    }))))
  )

/**
 * Runs the `dispatch` command. The call runs in a fiber of its own (a daemon: an
 * interrupted parent would interrupt its children at once) that the program waits for
 * without being interruptible, so a signal interrupts the call through its `interrupt`
 * option, never the printing or the release of the backends.
 *
 * @since 0.1.0
 * @category running
 */
export const main = (options: Options): Effect.Effect<void, never, Io.ExitCode> =>
  Effect.flatMap(Effect.forkDaemon(run(options)), (fiber) => Effect.uninterruptible(Fiber.join(fiber)))
