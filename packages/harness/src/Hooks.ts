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
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Scope from "effect/Scope"
import * as Attachment from "./Attachment.js"
import * as Audit from "./Audit.js"
import * as AuditTelemetry from "./AuditTelemetry.js"
import * as Boundary from "./Boundary.js"
import * as Chain from "./Chain.js"
import * as DispatchResult from "./DispatchResult.js"
import * as Grant from "./Grant.js"
import * as Prepare from "./internal/prepare.js"
import * as Retire from "./internal/retire.js"
import * as Observation from "./Observation.js"
import * as Registry from "./Registry.js"
import * as Settlement from "./Settlement.js"
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

/** How the chain ended: interrupted, or with the call's attachment preparation. */
type Ran = { readonly interrupted: true } | { readonly interrupted: false; readonly prepare: Prepare.Prepare }

const stopped: Ran = { interrupted: true }

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
    const current: Effect.Effect<Audit.Service> = built === Audit.none ? Audit.Audit : Effect.succeed(built)
    /** What a settled call hands to its span and its audit (but the time it was settled). */
    const entryOf = (
      before: Json.JsonObject,
      final: Chain.Progress,
      result: Pick<DispatchResult.DispatchResult, "decision" | "observations" | "interrupted">
    ) => ({
      before,
      after: final.event,
      steps: final.steps,
      decision: result.decision,
      observations: result.observations,
      interrupted: result.interrupted
    })
    /** The call's attributes on its live span (`ahp.call`). */
    const annotate = (entry: Omit<Audit.Entry, "settledAt">) =>
      Effect.annotateCurrentSpan(AuditTelemetry.callAttributes(Audit.summarize(entry)))
    const audit = (entry: Omit<Audit.Entry, "settledAt">) =>
      Effect.flatMap(current, (service) =>
        service === Audit.none ? Effect.void : Effect.flatMap(
          Effect.clockWith((clock) => clock.currentTimeMillis),
          (settledAt) => service.record({ ...entry, settledAt })
        ))
    /** The settled call, on its span when traced, and to the audit. */
    const record = (
      before: Json.JsonObject,
      final: Chain.Progress,
      result: Pick<DispatchResult.DispatchResult, "decision" | "observations" | "interrupted">,
      traced: boolean
    ) => {
      const entry = entryOf(before, final, result)
      return traced ? Effect.zipRight(annotate(entry), audit(entry)) : audit(entry)
    }
    const endpoint = (route: Registry.Route): Effect.Effect<Endpoint, TransportError> =>
      endpoints.get(route.backend.id) ??
        Effect.fail(
          new TransportError({ reason: "unsupported", detail: `backend ${route.backend.id} is not connected` })
        )

    /**
     * One call; `stop` completes when it must be interrupted. `traceContext` is the call's
     * span under an installed tracer (`traced`), and goes to the backends unless the input
     * already carries one.
     */
    const body = Effect.fnUntraced(function*(
      type: Event.EventType,
      input: Json.JsonObject,
      dispatchOptions: DispatchOptions | undefined,
      stop: Deferred.Deferred<void> | undefined,
      traced: boolean,
      traceContext: Tracing.TraceContext | undefined
    ) {
      const event = Tracing.withTraceContext(yield* prepare(type, input, source), traceContext)
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
      const progress = Ref.unsafeMake(Chain.start(event, Settlement.initial(dispatchOptions?.state)))
      const observed = grant.events[type]?.observe === true
      const prepareOptions: Prepare.Options = {
        boundary,
        event,
        routes: observed ? [...routes.intercept, ...routes.observe] : routes.intercept,
        sources: dispatchOptions?.attachments,
        maxBytes: dispatchOptions?.maxAttachmentBytes ?? options?.maxAttachmentBytes ??
          attachmentDefaults.maxAttachmentBytes,
        timeoutMs: options?.attachmentTimeoutMs ?? attachmentDefaults.attachmentTimeoutMs,
        uploads,
        permits
      }
      const runChain = (prepare: Prepare.Prepare) =>
        Chain.run({
          boundary,
          routes: routes.intercept,
          endpoint,
          capabilities,
          allowance,
          elicitationSchema: dispatchOptions?.elicitationSchema,
          prepare,
          retiring,
          traced
        }, progress)
      let ran: Ran
      if (stop === undefined && prepareOptions.sources === undefined) {
        // Nothing to snapshot and nothing to race: the chain runs at once (four steps fewer).
        const prepare = Prepare.withoutSources(prepareOptions)
        yield* runChain(prepare)
        ran = { interrupted: false, prepare }
      } else {
        const snapshots = Prepare.make(prepareOptions)
        // Only sources are read through `Attachment.Files`: without any, providing it (a
        // fiber-ref swap in an acquire/release) would be most of a call's Effect steps.
        const chain: Effect.Effect<Ran> = Effect.flatMap(
          Option.isSome(files) && prepareOptions.sources !== undefined
            ? Effect.provideService(snapshots, Attachment.Files, files.value)
            : snapshots,
          (prepare) => runChain(prepare).pipe(Effect.as({ interrupted: false, prepare }))
        )
        ran = stop === undefined
          ? yield* chain
          : (yield* Deferred.isDone(stop))
          ? stopped
          : yield* Effect.raceFirst(
            Effect.interruptible(chain),
            Effect.interruptible(Effect.as(Deferred.await(stop), stopped))
          )
      }
      const interrupted = ran.interrupted
      const final = yield* Ref.get(progress)
      const recipients = ran.interrupted ? [] : Observation.plan(routes, {
        observed,
        shortCircuit: Settlement.isShortCircuit(final.state),
        called: final.called
      })
      if (recipients.length === 0 || ran.interrupted) {
        const result = DispatchResult.make({
          event: final.event,
          decision: Settlement.settle(final.state, { interrupted }),
          errors: final.failures,
          observations: [],
          interrupted
        })
        yield* record(event, final, result, traced)
        return result
      }
      const observers = dispatchOptions?.observers
      if (observers !== undefined && observers !== "wait") {
        // The host's scope owns these deliveries, to the end of their retirement; their
        // outcomes belong to the call, whoever waits for them.
        const owner = yield* Scope.extend(Retire.makeOwner, observers.scope)
        const decision = Settlement.settle(final.state)
        const observationsDone = yield* Observation.deliverIn(
          boundary,
          final.event,
          recipients,
          endpoint,
          { timeoutMs: observationTimeoutMs, retiring: owner, prepare: ran.prepare },
          observers.scope,
          (observations) => audit(entryOf(event, final, { decision, observations, interrupted: false }))
        )
        // The span ends with the call, before the deliveries: it carries them as pending.
        const pending = Observation.pending(recipients)
        if (traced) yield* annotate(entryOf(event, final, { decision, observations: pending, interrupted: false }))
        return DispatchResult.make({
          event: final.event,
          decision,
          errors: final.failures,
          observations: pending,
          interrupted: false,
          observationsDone
        })
      }
      const delivered = yield* Observation.deliverAll(boundary, final.event, recipients, endpoint, {
        timeoutMs: observationTimeoutMs,
        retiring,
        interrupted: stop,
        prepare: ran.prepare
      })
      const result = DispatchResult.make({
        event: final.event,
        // The decision was settled before the first delivery: an interruption while they
        // run ends them, and keeps it.
        decision: Settlement.settle(final.state),
        errors: final.failures,
        observations: delivered.observations,
        interrupted: delivered.interrupted
      })
      yield* record(event, final, result, traced)
      return result
    })

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
