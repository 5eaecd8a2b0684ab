/**
 * The service hosts use at every boundary. `dispatch(type, input, options)` fills in and
 * validates the event, runs the serial interceptor chain, settles one decision and
 * delivers observations inside a scope the call owns, then returns the effective event,
 * the decision, per-route failures, observation outcomes and whether it was interrupted.
 *
 * Interruption: pass `options.interrupt` (an effect, run once per call, that completes
 * when the call should stop) to get a result with `interrupted: true` at any point of the
 * call — the pending exchange is ended, no observation starts, pending deliveries end at
 * once as `interrupted`, and the decision never grants execution. Interrupting the fiber
 * running `dispatch` also stops everything the call owns. Neither (nor a deadline) waits
 * more than a short grace (100 ms) for a transport to retire an exchange's I/O: what is
 * left goes on in fibers owned by the service's scope, which awaits them when it closes.
 *
 * Observations: by default the call waits for every delivery (each bounded by the
 * observation timeout). With `options.observers = { scope }` the decision returns at once
 * and the deliveries run in the host's scope; `observationsDone` yields their outcomes.
 *
 * @since 0.1.0
 */
import { Capabilities, Decoder, type Elicitation, Event, Intercept, Issue, Json } from "@effect-ahp/protocol"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import { hasProperty } from "effect/Predicate"
import * as Random from "effect/Random"
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Boundary from "./Boundary.js"
import * as Chain from "./Chain.js"
import * as Tracing from "./Tracing.js"
import * as Grant from "./Grant.js"
import * as Retire from "./internal/retire.js"
import * as Observation from "./Observation.js"
import * as Registry from "./Registry.js"
import type { RouteFailure } from "./RouteFailure.js"
import * as Settlement from "./Settlement.js"
import { type Endpoint, type InProcessBackend, layerInProcess, startAll, TransportError, Transports } from "./Transport.js"

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
 * An event's fields without the envelope members the harness fills in when absent.
 *
 * @since 0.1.0
 * @category models
 */
export type Input<E = Event.Event> = E extends unknown
  ? Omit<E, "type" | "id" | "time" | "source"> & { readonly id?: string; readonly time?: string; readonly source?: string }
  : never

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
}

/**
 * The result of one boundary call.
 *
 * @since 0.1.0
 * @category models
 */
export interface DispatchResult {
  /** The effective event after accepted edits. */
  readonly event: Json.JsonObject
  readonly decision: Settlement.Decision
  /** One entry per failed route. */
  readonly errors: ReadonlyArray<RouteFailure>
  /** One entry per observation delivery. */
  readonly observations: ReadonlyArray<Observation.Observation>
  readonly interrupted: boolean
  /** The final observation outcomes (immediate unless deliveries run in a host scope). */
  readonly observationsDone: Effect.Effect<ReadonlyArray<Observation.Observation>>
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
}

/**
 * The Hooks service.
 *
 * @since 0.1.0
 * @category tags
 */
export class Hooks extends Context.Tag("@effect-ahp/harness/Hooks")<Hooks, {
  readonly dispatch: (
    type: Event.EventType,
    input: Json.JsonObject | Input,
    options?: DispatchOptions
  ) => Effect.Effect<DispatchResult, DispatchError>
  readonly registry: Registry.Registry
  readonly grant: Grant.Grant
}>() {}

const eventValidators = new Map<string, (u: unknown) => Array<Issue.Issue>>()
const validatorFor = (type: Event.EventType) => {
  let validate = eventValidators.get(type)
  if (validate === undefined) {
    validate = Decoder.validator(Event.schemaFor(type) as Schema.Schema<unknown, unknown>)
    eventValidators.set(type, validate)
  }
  return validate
}

const newId = Effect.map(Effect.zip(Random.nextInt, Random.nextInt), ([a, b]) =>
  `evt_${(a >>> 0).toString(36)}${(b >>> 0).toString(36)}`)

const has = (input: Json.JsonObject, key: string) => Object.prototype.hasOwnProperty.call(input, key)

const currentTime = Effect.clockWith((c) => c.currentTimeMillis).pipe(Effect.map((millis) => new Date(millis).toISOString()))

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
    return Either.left(new InvalidEvent({ type, issues: [{ path: "", message: `nests deeper than ${Event.maxDepth} levels` }] }))
  }
  if ("type" in input && input.type !== type) {
    return Either.left(new InvalidEvent({ type, issues: [{ path: "/type", message: `must be ${type}` }] }))
  }
  const issues = validatorFor(type)(event)
  return issues.length > 0 ? Either.left(new InvalidEvent({ type, issues })) : Either.right(event)
}

/** Fills in the envelope members that are absent (a present one is validated, never replaced). */
const prepare = (type: Event.EventType, input: Json.JsonObject, source: string): Effect.Effect<Json.JsonObject, InvalidEvent> => {
  if (has(input, "id") && has(input, "time")) return validate(type, input, source, input.id!, input.time!)
  return Effect.flatMap(
    Effect.zip(has(input, "id") ? Effect.succeed(input.id!) : newId, has(input, "time") ? Effect.succeed(input.time!) : currentTime),
    ([id, time]) => validate(type, input, source, id, time)
  )
}

/**
 * Builds the service from a registration document (any JSON value), connecting every
 * backend for the lifetime of the scope and starting what they keep running (persistent
 * children), so that start-up does not count against the first call's deadline; a backend
 * that cannot be started is logged and fails again on each call that needs it.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (registration: unknown, options?: Options) =>
  Effect.gen(function*() {
    const grant = options?.grant ?? Grant.full()
    const source = options?.source ?? "urn:effect-ahp:harness"
    const observationTimeoutMs = options?.observationTimeoutMs ?? 5000
    // Owns exchanges and deliveries ended at a deadline or an interruption until they have
    // retired their I/O; closing the service's scope awaits them.
    const retiring = yield* Retire.makeOwner
    const registry = yield* Either.match(Registry.compile(registration, grant), {
      onLeft: (e) => Effect.fail(e),
      onRight: (r) => Effect.succeed(r)
    })
    const transports = yield* Transports
    const endpoints = new Map<string, Either.Either<Endpoint, TransportError>>()
    for (const backend of registry.registration.hooks) {
      endpoints.set(backend.id, yield* Effect.either(transports.connect(backend, { observationTimeoutMs })))
    }
    yield* startAll(endpoints)
    const endpoint = (route: Registry.Route): Effect.Effect<Endpoint, TransportError> =>
      endpoints.get(route.backend.id) ??
        Effect.fail(new TransportError({ reason: "unsupported", detail: `backend ${route.backend.id} is not connected` }))

    /** One call; `stop` completes when it must be interrupted. */
    const call = Effect.fnUntraced(function*(
      type: Event.EventType,
      input: Json.JsonObject | Input,
      dispatchOptions: DispatchOptions | undefined,
      stop: Deferred.Deferred<void> | undefined
    ) {
      const event = yield* prepare(type, input as Json.JsonObject, source)
      const boundary = Boundary.of(type)
      const routes = registry.routes(type)
      const granted = grant.events[type]?.intercept ?? { effects: [] }
      const capabilities = dispatchOptions?.capabilities === undefined
        ? granted
        : yield* Either.match(Grant.narrow(granted, dispatchOptions.capabilities), {
          onLeft: (issues) => Effect.fail(new InvalidNarrowing({ issues })),
          onRight: Effect.succeed
        })
      const reported = event.continuationCount
      const count = dispatchOptions?.continuation?.count ??
        (typeof reported === "number" || reported instanceof Json.LosslessNumber ? Json.toNumber(reported) : 0)
      const allowance: Grant.Allowance = {
        count,
        remaining: dispatchOptions?.continuation?.remaining ?? Math.max(0, grant.maxContinuations - count)
      }
      const progress = yield* Ref.make(Chain.start(event, Settlement.initial(dispatchOptions?.state)))
      const chain = Chain.run({
        boundary,
        routes: routes.intercept,
        endpoint,
        capabilities,
        allowance,
        elicitationSchema: dispatchOptions?.elicitationSchema,
        retiring
      }, progress).pipe(Effect.as(false))
      const interrupted = stop === undefined
        ? yield* chain
        : (yield* Deferred.isDone(stop)) ||
          (yield* Effect.raceFirst(Effect.interruptible(chain), Effect.interruptible(Effect.as(Deferred.await(stop), true))))
      const final = yield* Ref.get(progress)
      const recipients = interrupted ? [] : Observation.plan(routes, {
        observed: grant.events[type]?.observe === true,
        shortCircuit: Settlement.isShortCircuit(final.state),
        called: final.called
      })
      if (recipients.length === 0) {
        const observations: ReadonlyArray<Observation.Observation> = []
        return {
          event: final.event,
          decision: Settlement.settle(final.state, { interrupted }),
          errors: final.failures,
          observations,
          interrupted,
          observationsDone: Effect.succeed(observations)
        } satisfies DispatchResult
      }
      const deliveries = (owner: Retire.Owner) =>
        Observation.deliverAll(boundary, final.event, recipients, endpoint, {
          timeoutMs: observationTimeoutMs,
          retiring: owner,
          interrupted: stop
        })
      const observers = dispatchOptions?.observers
      if (observers !== undefined && observers !== "wait") {
        // The host's scope owns these deliveries, to the end of their retirement.
        const owner = yield* Scope.extend(Retire.makeOwner, observers.scope)
        const fiber = yield* Effect.forkIn(Effect.map(deliveries(owner), (d) => d.observations), observers.scope)
        return {
          event: final.event,
          decision: Settlement.settle(final.state, { interrupted }),
          errors: final.failures,
          observations: Observation.pending(recipients),
          interrupted,
          observationsDone: Fiber.join(fiber)
        } satisfies DispatchResult
      }
      const delivered = yield* deliveries(retiring)
      return {
        event: final.event,
        decision: Settlement.settle(final.state, { interrupted: delivered.interrupted }),
        errors: final.failures,
        observations: delivered.observations,
        interrupted: delivered.interrupted,
        observationsDone: Effect.succeed(delivered.observations)
      } satisfies DispatchResult
    }, (effect, type) => Tracing.withSpanWhenTraced("Hooks.dispatch", { attributes: { "event.type": type } })(effect))

    const dispatch = (type: Event.EventType, input: Json.JsonObject | Input, dispatchOptions?: DispatchOptions) => {
      const interrupt = dispatchOptions?.interrupt
      if (interrupt === undefined) return call(type, input, dispatchOptions, undefined)
      // The interrupt effect runs once, for the whole call, in a fiber ended with the call
      // (interruptible whatever the caller's region). It starts at once: an interrupt that
      // has already happened is seen before anything is sent.
      return Effect.flatMap(Effect.zip(Deferred.make<void>(), Effect.runtime<never>()), ([stop, runtime]) =>
        Effect.acquireUseRelease(
          Effect.sync(() =>
            Runtime.runFork(runtime, Effect.interruptible(Effect.zipRight(interrupt, Deferred.succeed(stop, undefined))))
          ),
          () => call(type, input, dispatchOptions, stop),
          Fiber.interrupt
        ))
    }
    return Hooks.of({ dispatch, registry, grant })
  })

/**
 * A layer building the service from a registration document.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (registration: unknown, options?: Options): Layer.Layer<Hooks, Registry.ConfigurationError, Transports> =>
  Layer.scoped(Hooks, make(registration, options))

/**
 * A layer building the service from a registration document held as JSON text in
 * configuration (by default the `AHP_REGISTRATION` variable). Text that is not JSON is a
 * `ConfigurationError` like any other invalid registration.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (
  config: Config.Config<string> = Config.string("AHP_REGISTRATION"),
  options?: Options
): Layer.Layer<Hooks, Registry.ConfigurationError | ConfigError.ConfigError, Transports> =>
  Layer.unwrapEffect(Effect.map(config, (text) =>
    Either.match(Json.parse(text), {
      onLeft: (error) =>
        Layer.fail(
          new Registry.ConfigurationError({ issues: [{ code: "invalid-document", path: "", message: error.message }] })
        ),
      onRight: (registration) => layer(registration, options)
    })))

/**
 * A test double: the real service over in-process backends (plain Effect functions keyed
 * by backend id), so tests and examples need no processes or sockets.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTest = (
  registration: unknown,
  backends: Readonly<Record<string, InProcessBackend>>,
  options?: Options
): Layer.Layer<Hooks, Registry.ConfigurationError> => layer(registration, options).pipe(Layer.provide(layerInProcess(backends)))

/**
 * Dispatches a `tool.before` boundary.
 *
 * @since 0.1.0
 * @category helpers
 */
export const toolBefore = (input: Input<Event.ToolBefore>, options?: DispatchOptions) =>
  Effect.flatMap(Hooks, (hooks) => hooks.dispatch("tool.before", input, options))

/**
 * Dispatches a `tool.after` boundary.
 *
 * @since 0.1.0
 * @category helpers
 */
export const toolAfter = (input: Input<Event.ToolAfter>, options?: DispatchOptions) =>
  Effect.flatMap(Hooks, (hooks) => hooks.dispatch("tool.after", input, options))

/**
 * Dispatches a `turn.start` boundary.
 *
 * @since 0.1.0
 * @category helpers
 */
export const turnStart = (input: Input<Event.TurnStart>, options?: DispatchOptions) =>
  Effect.flatMap(Hooks, (hooks) => hooks.dispatch("turn.start", input, options))

/**
 * Dispatches a `model.request.before` boundary.
 *
 * @since 0.1.0
 * @category helpers
 */
export const modelRequestBefore = (input: Input<Event.ModelRequestBefore>, options?: DispatchOptions) =>
  Effect.flatMap(Hooks, (hooks) => hooks.dispatch("model.request.before", input, options))

/**
 * Dispatches a `user.message.inbound` boundary.
 *
 * @since 0.1.0
 * @category helpers
 */
export const userMessageInbound = (input: Input<Event.UserMessageInbound>, options?: DispatchOptions) =>
  Effect.flatMap(Hooks, (hooks) => hooks.dispatch("user.message.inbound", input, options))

/**
 * Dispatches any boundary through the service in context.
 *
 * @since 0.1.0
 * @category helpers
 */
export const dispatch = (type: Event.EventType, input: Json.JsonObject | Input, options?: DispatchOptions) =>
  Effect.flatMap(Hooks, (hooks) => hooks.dispatch(type, input, options))
