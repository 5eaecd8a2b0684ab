/**
 * The service hosts use at every boundary. `dispatch(type, input, options)` fills in and
 * validates the event, runs the serial interceptor chain, settles one decision and
 * delivers observations inside a scope the call owns, then returns the effective event,
 * the decision, per-route failures, observation outcomes and whether it was interrupted.
 *
 * Interruption: pass `options.interrupt` (an effect, run once per call, that completes
 * when the call should stop) to get a result with `interrupted: true` at any point of the
 * call — the pending exchange is ended, no observation starts, pending deliveries end at
 * once as `interrupted`, and a decision not yet settled never grants execution (one settled
 * before the interruption, during observation, is kept). Interrupting the fiber
 * running `dispatch` also stops everything the call owns. Neither (nor a deadline) waits
 * more than a short grace (100 ms) for a transport to retire an exchange's I/O: what is
 * left goes on in fibers owned by the service's scope, which awaits them when it closes.
 *
 * Attachments: the host passes the bytes of body-selected attachment parts in
 * `options.attachments` (by part id; see `Attachment`). The sources some receiver needs as
 * `body` are read once, within the call's byte budget (`maxAttachmentBytes`) and
 * `attachmentTimeoutMs`, before the chain; each such receiver then gets its own upload
 * (through the `Uploads` service, at most `uploadConcurrency` at a time across the
 * service) and sees only its own reference. A failed snapshot or upload is that
 * delivery's failure alone, under its subscription's failure policy.
 *
 * Observations: by default the call waits for every delivery (each bounded by the
 * observation timeout). With `options.observers = { scope }` the decision returns at once
 * and the deliveries run in the host's scope; `observationsDone` yields their outcomes,
 * which the call owns: closing that scope early reports each pending one as `interrupted`.
 *
 * @since 0.1.0
 */
import {
  Capabilities,
  type Elicitation,
  Event,
  Intercept,
  Json,
  type JsonRpc,
  type Registration
} from "@effect-ahp/protocol"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { hasProperty } from "effect/Predicate"
import * as Random from "effect/Random"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Attachment from "./Attachment.js"
import * as Audit from "./Audit.js"
import * as DispatchResult from "./DispatchResult.js"
import * as Grant from "./Grant.js"
import * as Dispatch from "./internal/dispatch.js"
import * as Retire from "./internal/retire.js"
import * as Registry from "./Registry.js"
import * as Tracing from "./Tracing.js"
import { type Endpoint, inProcessEndpoint, layerInProcess, startAll, TransportError, Transports } from "./Transport.js"
import * as Uploads from "./Uploads.js"

/**
 * The brand of an `InvalidEvent`.
 *
 * @since 0.1.0
 * @category type ids
 */
export const InvalidEventTypeId: unique symbol = Symbol.for("@effect-ahp/harness/InvalidEvent")

/**
 * @since 0.1.0
 * @category type ids
 */
export type InvalidEventTypeId = typeof InvalidEventTypeId

/**
 * A boundary input that is not a valid event of its type.
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidEvent extends Schema.TaggedError<InvalidEvent>("@effect-ahp/harness/InvalidEvent")("InvalidEvent", {
  type: Schema.String,
  issues: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))
}) {
  readonly [InvalidEventTypeId]: InvalidEventTypeId = InvalidEventTypeId
  override get message(): string {
    return `invalid ${this.type} event: ${this.issues.map((i) => `${i.path || "/"}: ${i.message}`).join("; ")}`
  }
}

/**
 * Whether a value is an `InvalidEvent`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isInvalidEvent = (u: unknown): u is InvalidEvent => hasProperty(u, InvalidEventTypeId)

/**
 * The brand of an `InvalidNarrowing`.
 *
 * @since 0.1.0
 * @category type ids
 */
export const InvalidNarrowingTypeId: unique symbol = Symbol.for("@effect-ahp/harness/InvalidNarrowing")

/**
 * @since 0.1.0
 * @category type ids
 */
export type InvalidNarrowingTypeId = typeof InvalidNarrowingTypeId

/**
 * A per-call capability narrowing that would widen the grant (nothing was sent).
 *
 * @since 0.1.0
 * @category errors
 */
export class InvalidNarrowing extends Schema.TaggedError<InvalidNarrowing>("@effect-ahp/harness/InvalidNarrowing")(
  "InvalidNarrowing",
  { issues: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String })) }
) {
  readonly [InvalidNarrowingTypeId]: InvalidNarrowingTypeId = InvalidNarrowingTypeId
  override get message(): string {
    return `capabilities cannot widen the grant: ${this.issues.map((i) => `${i.path}: ${i.message}`).join("; ")}`
  }
}

/**
 * Whether a value is an `InvalidNarrowing`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isInvalidNarrowing = (u: unknown): u is InvalidNarrowing => hasProperty(u, InvalidNarrowingTypeId)

/**
 * The errors `dispatch` can fail with (both are detected before anything is sent).
 *
 * @since 0.1.0
 * @category errors
 */
export type DispatchError = InvalidEvent | InvalidNarrowing

/**
 * Per-call options.
 *
 * @since 0.1.0
 * @category models
 */
export interface DispatchOptions {
  /** Narrows the granted capabilities for this call; may never widen them. */
  readonly capabilities?: Capabilities.Capabilities | undefined
  /** The pending state before the first interceptor. */
  readonly state?: Intercept.State | undefined
  /** The continuation allowance; defaults from the grant and the event's continuationCount. */
  readonly continuation?: { readonly remaining?: number; readonly count?: number } | undefined
  /** The requested form schema an elicitation answer edit must satisfy. */
  readonly elicitationSchema?: Elicitation.RequestedSchema | undefined
  /** Completes when the call must be interrupted. */
  readonly interrupt?: Effect.Effect<void> | undefined
  /** `"wait"` (default) or a host scope that owns the observation deliveries. */
  readonly observers?: "wait" | { readonly scope: Scope.Scope } | undefined
  /**
   * The bytes of the event's body-selected attachment parts, by part id. A source is read
   * only if some receiver selects that part's body; a part without one cannot be
   * delivered as `body` (`attachment-missing`).
   */
  readonly attachments?: Readonly<Record<string, Attachment.Source>> | undefined
  /** This call's byte budget for attachment snapshots (defaults to the service's). */
  readonly maxAttachmentBytes?: number | undefined
}

/**
 * Construction options.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** What the host can enforce; defaults to everything each boundary permits. */
  readonly grant?: Grant.Grant | undefined
  /** The stable URI of this harness installation, used when an input has no source. */
  readonly source?: string | undefined
  /** The bound of each observation delivery (default 5000 ms). */
  readonly observationTimeoutMs?: number | undefined
  /** The byte budget of each call's attachment snapshots, all together (default 32 MiB). */
  readonly maxAttachmentBytes?: number | undefined
  /** The time bound of each call's attachment snapshots, all together (default 10 000 ms). */
  readonly attachmentTimeoutMs?: number | undefined
  /** The most uploads in flight at once, across all calls of the service (default 4). */
  readonly uploadConcurrency?: number | undefined
}

/**
 * A backend the host serves in process, for a backend registered `in-process`: plain
 * Effect functions over JSON values, or an effect building them in the service's scope
 * (closing it releases the backend) such as `InProcess.fromLayer(GuardLive)` from the
 * backend package.
 *
 * @since 0.1.0
 * @category models
 */
export type Served<E = never, R = never> =
  | JsonRpc.InProcessBackend<TransportError>
  | Effect.Effect<JsonRpc.InProcessBackend<TransportError>, E, R>

/**
 * Construction options with the backends the host serves in process, by backend id.
 *
 * @since 0.1.0
 * @category models
 */
export interface ServingOptions<E = never, R = never> extends Options {
  /**
   * The backends registered `in-process`, by id: each is reached directly, every other
   * backend through the `Transports` service. An in-process backend that is not served, or
   * a served id not registered in-process, is a `ConfigurationError`.
   */
  readonly backends?: Readonly<Record<string, Served<E, R>>> | undefined
}

/**
 * The defaults of the attachment options.
 *
 * @since 0.1.0
 * @category constants
 */
export const attachmentDefaults = {
  maxAttachmentBytes: 32 * 1024 * 1024,
  attachmentTimeoutMs: 10_000,
  uploadConcurrency: 4
} as const

/**
 * The Hooks service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Hooks extends Context.Tag("@effect-ahp/harness/Hooks")<Hooks, {
  /** One boundary call, typed by its event type: the input and the effective event are that type's event. */
  readonly dispatch: <T extends Event.EventType>(
    type: T,
    input: Event.InputOf<T>,
    options?: DispatchOptions
  ) => Effect.Effect<DispatchResult.DispatchResult<Event.EventOf<T>>, DispatchError>
  /** One boundary call from untyped JSON (for tools reading events from files or the wire). */
  readonly dispatchUnknown: (
    type: Event.EventType,
    input: Json.JsonObject,
    options?: DispatchOptions
  ) => Effect.Effect<DispatchResult.DispatchResult, DispatchError>
  readonly registry: Registry.Registry
  readonly grant: Grant.Grant
}>() {}

const newId = Effect.map(
  Effect.zip(Random.nextInt, Random.nextInt),
  ([a, b]) => `evt_${(a >>> 0).toString(36)}${(b >>> 0).toString(36)}`
)

const has = (input: Json.JsonObject, key: string) => Object.prototype.hasOwnProperty.call(input, key)

const currentTime = Effect.clockWith((c) => c.currentTimeMillis).pipe(
  Effect.map((millis) => new Date(millis).toISOString())
)

/** The event from an input and its envelope members, if it is a valid event of its type. */
const validate = (
  type: Event.EventType,
  input: Json.JsonObject,
  source: string,
  id: Json.JsonValue,
  time: Json.JsonValue
): Either.Either<Json.JsonObject, InvalidEvent> => {
  const event: Json.JsonObject = { ...input, id, source: has(input, "source") ? input.source! : source, type, time }
  if (Json.exceedsDepth(event, Event.maxDepth)) {
    return Either.left(
      new InvalidEvent({ type, issues: [{ path: "", message: `nests deeper than ${Event.maxDepth} levels` }] })
    )
  }
  if ("type" in input && input.type !== type) {
    return Either.left(new InvalidEvent({ type, issues: [{ path: "/type", message: `must be ${type}` }] }))
  }
  const issues = Event.validatorFor(type)(event)
  return issues.length > 0 ? Either.left(new InvalidEvent({ type, issues })) : Either.right(event)
}

/** Fills in the envelope members that are absent (a present one is validated, never replaced). */
const prepare = (
  type: Event.EventType,
  input: Json.JsonObject,
  source: string
): Effect.Effect<Json.JsonObject, InvalidEvent> => {
  if (has(input, "id") && has(input, "time")) return validate(type, input, source, input.id!, input.time!)
  return Effect.flatMap(
    Effect.zip(
      has(input, "id") ? Effect.succeed(input.id!) : newId,
      has(input, "time") ? Effect.succeed(input.time!) : currentTime
    ),
    ([id, time]) => validate(type, input, source, id, time)
  )
}

/** A served backend, built if it is an effect. */
const build = <E, R>(served: Served<E, R>): Effect.Effect<JsonRpc.InProcessBackend<TransportError>, E, R> =>
  Effect.isEffect(served) ? served : Effect.succeed(served)

/**
 * Builds the service from a registration document (typed: a `Registration.Registration`,
 * as the `Registration` builders make; `makeUnknown` takes an untyped JSON one), reaching each backend registered `in-process` through the
 * backend served by its id (`options.backends`) and every other one through the
 * `Transports` service, connecting every backend for the lifetime of the scope and starting what they keep running (persistent
 * children), so that start-up does not count against the first call's deadline; a backend
 * that cannot be started is logged and fails again on each call that needs it. `Audit`,
 * `Uploads` and `Attachment.Files` are `Context.Reference`s read when the service is built,
 * with explicit no-op defaults (`Audit.none`: nothing recorded, unless the calling fiber
 * has an Audit; `Uploads.none`: body-selected attachments fail with `upload-unavailable`;
 * `Attachment.noFiles`: file sources fail with `attachment-unreadable`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <E = never, R = never>(
  registration: Registration.Registration,
  options?: ServingOptions<E, R>
): Effect.Effect<Hooks["Type"], Registry.ConfigurationError | E, Transports | Scope.Scope | R> =>
  makeUnknown(registration, options)

/**
 * `make` from an untyped registration document (parsed JSON, a configuration value): it
 * is decoded and checked against the registry's rules, and a document that is not a valid
 * registration fails with a typed `ConfigurationError` naming every problem.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeUnknown = <E = never, R = never>(
  registration: unknown,
  options?: ServingOptions<E, R>
): Effect.Effect<Hooks["Type"], Registry.ConfigurationError | E, Transports | Scope.Scope | R> =>
  Effect.gen(function*() {
    const grant = options?.grant ?? Grant.full()
    const source = options?.source ?? "urn:effect-ahp:harness"
    const observationTimeoutMs = options?.observationTimeoutMs ?? 5000
    const client = yield* Uploads.Uploads
    const uploads = client === Uploads.none ? Option.none() : Option.some(client)
    const reader = yield* Attachment.Files
    const files = reader === Attachment.noFiles ? Option.none() : Option.some(reader)
    const permits = yield* Effect.makeSemaphore(options?.uploadConcurrency ?? attachmentDefaults.uploadConcurrency)
    // Owns exchanges and deliveries ended at a deadline or an interruption until they have
    // retired their I/O; closing the service's scope awaits them.
    const retiring = yield* Retire.makeOwner
    const served = options?.backends ?? {}
    const registry = yield* Either.match(Registry.compile(registration, grant, { served: Object.keys(served) }), {
      onLeft: (e) => Effect.fail(e),
      onRight: (r) => Effect.succeed(r)
    })
    const transports = yield* Transports
    const endpoints = new Map<string, Either.Either<Endpoint, TransportError>>()
    for (const backend of registry.registration.hooks) {
      const connected = backend.transport.type === "in-process"
        ? Effect.map(build(served[backend.id]!), (b) => Either.right(inProcessEndpoint(b)))
        : Effect.either(transports.connect(backend, { observationTimeoutMs }))
      endpoints.set(backend.id, yield* connected)
    }
    yield* startAll(endpoints)
    // The Audit the service was built with, else the calling fiber's (an Audit merged
    // beside Hooks instead of provided to it); with neither, a call does no audit work.
    const built = yield* Audit.Audit
    const service: Dispatch.Service = {
      grant,
      registry,
      endpoint: (route) =>
        endpoints.get(route.backend.id) ??
          Effect.fail(
            new TransportError({ reason: "unsupported", detail: `backend ${route.backend.id} is not connected` })
          ),
      observationTimeoutMs,
      maxAttachmentBytes: options?.maxAttachmentBytes ?? attachmentDefaults.maxAttachmentBytes,
      attachmentTimeoutMs: options?.attachmentTimeoutMs ?? attachmentDefaults.attachmentTimeoutMs,
      uploads,
      files,
      permits,
      retiring,
      audit: built === Audit.none ? Audit.Audit : Effect.succeed(built)
    }

    /**
     * One call; `stop` completes when it must be interrupted. `traceContext` is the call's
     * span under an installed tracer (`traced`), and goes to the backends unless the input
     * already carries one. The input is validated and the capabilities narrowed here (the
     * service's errors); the pipeline runs the rest.
     */
    const body = (
      type: Event.EventType,
      input: Json.JsonObject,
      dispatchOptions: DispatchOptions | undefined,
      stop: Deferred.Deferred<void> | undefined,
      traced: boolean,
      traceContext: Tracing.TraceContext | undefined
    ): Effect.Effect<DispatchResult.DispatchResult, DispatchError> => {
      const granted = grant.events[type]?.intercept ?? { effects: [] }
      const narrowed = dispatchOptions?.capabilities === undefined
        ? Either.right(granted)
        : Either.mapLeft(
          Grant.narrow(granted, dispatchOptions.capabilities),
          (issues) => new InvalidNarrowing({ issues })
        )
      return Effect.flatMap(prepare(type, input, source), (validated) =>
        Either.match(narrowed, {
          onLeft: Effect.fail,
          onRight: (capabilities) =>
            Dispatch.run(service, {
              type,
              event: Tracing.withTraceContext(validated, traceContext),
              capabilities,
              options: dispatchOptions,
              stop,
              traced
            })
        }))
    }

    /**
     * One call, in the span `ahp.call` under an installed tracer: a child of the trace
     * context the input carries, else of the current span. The tracer is read once for the
     * call (the span, the trace context and the chain's route spans).
     */
    const call = (
      type: Event.EventType,
      input: Json.JsonObject,
      dispatchOptions: DispatchOptions | undefined,
      stop: Deferred.Deferred<void> | undefined
    ) =>
      Effect.tracerWith((tracer) => {
        if (Tracing.isBuiltIn(tracer)) return body(type, input, dispatchOptions, stop, false, undefined)
        const parent = Tracing.parentOf(Tracing.traceContextOf(input)?.traceparent)
        return Effect.withSpan(
          Effect.flatMap(
            Tracing.currentTraceContext,
            (traceContext) => body(type, input, dispatchOptions, stop, true, traceContext)
          ),
          "ahp.call",
          {
            attributes: { "ahp.event.type": type },
            captureStackTrace: false,
            ...(Option.isSome(parent) ? { parent: parent.value } : {})
          }
        )
      })

    const dispatchUnknown = (type: Event.EventType, input: Json.JsonObject, dispatchOptions?: DispatchOptions) => {
      const interrupt = dispatchOptions?.interrupt
      if (interrupt === undefined) return call(type, input, dispatchOptions, undefined)
      // The interrupt effect runs once, for the whole call, in a fiber forked in the call's
      // scope (interruptible whatever the caller's region). The call yields once before it
      // starts, so an interrupt that has already happened is seen before anything is sent.
      return Effect.scoped(Effect.flatMap(Deferred.make<void>(), (stop) =>
        Effect.zipRight(
          Effect.zipRight(
            Effect.forkScoped(Effect.interruptible(Effect.zipRight(interrupt, Deferred.succeed(stop, undefined)))),
            Effect.yieldNow()
          ),
          call(type, input, dispatchOptions, stop)
        )))
    }
    // An input of `Event.InputOf<T>` is JSON once validated, and the effective event is
    // `EventOf<T>`: `prepare` validates it against the boundary's Schema, Staging every edit.
    const dispatch = <T extends Event.EventType>(
      type: T,
      input: Event.InputOf<T>,
      dispatchOptions?: DispatchOptions
    ) =>
      dispatchUnknown(type, input as unknown as Json.JsonObject, dispatchOptions) as Effect.Effect<
        DispatchResult.DispatchResult<Event.EventOf<T>>,
        DispatchError
      >
    return Hooks.of({ dispatch, dispatchUnknown, registry, grant })
  })

/**
 * A layer building the service from a registration document, with the backends the host
 * serves in process; in-process, stdio and HTTP backends mix freely.
 *
 * @example
 * ```ts
 * import { Backend, InProcess } from "@effect-ahp/backend"
 * import { Hooks } from "@effect-ahp/harness"
 * import { NodeTransports } from "@effect-ahp/node"
 * import { Registration } from "@effect-ahp/protocol"
 * import { Effect, Layer } from "effect"
 *
 * const guard = Backend.intercept("tool.before", () => Effect.succeed([]))
 *
 * const HooksLive = Hooks.layer(
 *   Registration.make([
 *     Registration.inProcess("com.example.guard", [
 *       Registration.intercept(["tool.before"], { timeoutMs: 2000, failurePolicy: "fail-closed" })
 *     ]),
 *     Registration.stdio("com.example.lint", { command: "lint-hook", lifecycle: "persistent" }, [
 *       Registration.observe(["tool.after"])
 *     ])
 *   ]),
 *   { backends: { "com.example.guard": InProcess.fromLayer(Backend.make(guard)) } }
 * ).pipe(Layer.provide(NodeTransports.layerNode()))
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = <E = never, R = never>(
  registration: Registration.Registration,
  options?: ServingOptions<E, R>
): Layer.Layer<Hooks, Registry.ConfigurationError | E, Transports | Exclude<R, Scope.Scope>> =>
  Layer.scoped(Hooks, make(registration, options))

/**
 * `layer` from an untyped registration document (parsed JSON, a configuration value),
 * decoded when the layer is built: a document that is not a valid registration fails with
 * a typed `ConfigurationError` naming every problem.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerUnknown = <E = never, R = never>(
  registration: unknown,
  options?: ServingOptions<E, R>
): Layer.Layer<Hooks, Registry.ConfigurationError | E, Transports | Exclude<R, Scope.Scope>> =>
  Layer.scoped(Hooks, makeUnknown(registration, options))

/**
 * The construction options as configuration, for `layerConfig`: the registration document
 * as JSON text, and every other option.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConfigOptions extends Options {
  /** The registration document, as JSON text. */
  readonly registration: string
}

/**
 * The default configuration of `layerConfig`: the registration from `AHP_REGISTRATION`
 * (JSON text), every other option at its default.
 *
 * @since 0.1.0
 * @category config
 */
export const defaultConfig: Config.Config.Wrap<ConfigOptions> = { registration: Config.string("AHP_REGISTRATION") }

/**
 * A layer building the service from configuration, in the style of `PgClient.layerConfig`:
 * each option read through its own `Config` (a `ConfigProvider` drives them all), the
 * registration as JSON text. Text that is not JSON is a `ConfigurationError` like any other
 * invalid registration; a value that cannot be read is a `ConfigError`.
 *
 * @example
 * ```ts
 * import { Hooks } from "@effect-ahp/harness"
 * import { Config } from "effect"
 *
 * const HooksLive = Hooks.layerConfig({
 *   registration: Config.string("AHP_REGISTRATION"),
 *   source: Config.string("AHP_SOURCE"),
 *   observationTimeoutMs: Config.integer("AHP_OBSERVATION_TIMEOUT_MS")
 * })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = <E = never, R = never>(
  config: Config.Config.Wrap<ConfigOptions> = defaultConfig,
  serving?: { readonly backends?: Readonly<Record<string, Served<E, R>>> | undefined }
): Layer.Layer<
  Hooks,
  Registry.ConfigurationError | ConfigError.ConfigError | E,
  Transports | Exclude<R, Scope.Scope>
> =>
  Layer.unwrapEffect(
    Effect.map(Config.unwrap(config), ({ registration, ...options }) =>
      layerJson(registration, { ...options, backends: serving?.backends }))
  )

/**
 * A layer building the service from a registration document held as JSON text. Text that
 * is not JSON is a `ConfigurationError` like any other invalid registration.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerJson = <E = never, R = never>(
  text: string,
  options?: ServingOptions<E, R>
): Layer.Layer<Hooks, Registry.ConfigurationError | E, Transports | Exclude<R, Scope.Scope>> =>
  Either.match(Json.parse(text), {
    onLeft: (error) =>
      Layer.fail(
        new Registry.ConfigurationError({ issues: [{ code: "invalid-document", path: "", message: error.message }] })
      ),
    onRight: (document) => layerUnknown(document, options)
  })

/**
 * A test double: the real service over in-process backends (plain Effect functions keyed
 * by backend id), so tests and examples need no processes or sockets. A backend registered
 * `in-process` (`Registration.inProcess`) is served as the host serves it; any other stands
 * in for its transport. The document may be typed or untyped JSON (decoded when built).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTest = (
  registration: unknown,
  backends: Readonly<Record<string, JsonRpc.InProcessBackend<TransportError>>>,
  options?: Options
): Layer.Layer<Hooks, Registry.ConfigurationError> => {
  const served: Record<string, JsonRpc.InProcessBackend<TransportError>> = {}
  for (const id of inProcessIds(registration)) {
    if (Object.prototype.hasOwnProperty.call(backends, id)) served[id] = backends[id]!
  }
  return layerUnknown(registration, { ...options, backends: served }).pipe(Layer.provide(layerInProcess(backends)))
}

/** The ids of the backends a document registers `in-process`. */
const inProcessIds = (document: unknown): ReadonlyArray<string> =>
  Json.isObject(document) && Array.isArray(document.hooks)
    ? document.hooks.flatMap((backend: unknown) =>
      Json.isObject(backend) && typeof backend.id === "string" && Json.isObject(backend.transport) &&
        backend.transport.type === "in-process"
        ? [backend.id]
        : []
    )
    : []

/**
 * Dispatches a boundary through the service in context, typed by its event type:
 * `dispatch("tool.before", { tool, … })` takes a `tool.before` input and its result's
 * `event` is a `ToolBefore`.
 *
 * @since 0.1.0
 * @category accessors
 */
export const dispatch = <T extends Event.EventType>(
  type: T,
  input: Event.InputOf<T>,
  options?: DispatchOptions
) => Effect.flatMap(Hooks, (hooks) => hooks.dispatch(type, input, options))

/**
 * Dispatches a boundary from untyped JSON through the service in context (validated at
 * run time only: an invalid input fails with `InvalidEvent`).
 *
 * @since 0.1.0
 * @category accessors
 */
export const dispatchUnknown = (type: Event.EventType, input: Json.JsonObject, options?: DispatchOptions) =>
  Effect.flatMap(Hooks, (hooks) => hooks.dispatchUnknown(type, input, options))
