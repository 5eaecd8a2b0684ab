/**
 * Observation after settlement. Recipients are every explicit observe subscription of the
 * event and, after a short-circuit (accepted deny or stop, fail-closed failure), every
 * intercept subscription that was not called; already-called interceptors get no second
 * copy, and nothing is sent unless the host offers the event for observation. Each
 * recipient gets `hooks/observe` with its own projection of the accepted effective event —
 * never a rejected candidate.
 *
 * A recipient that receives attachments as `body` first gets them uploaded to its own
 * upload endpoint (bounded by its `upload.timeoutMs`); if that fails, nothing is sent to it
 * and its outcome is `failed` with the preparation's code (observation stays best effort).
 *
 * Deliveries run concurrently as child fibers of the call, each bounded by the
 * observation timeout; they cannot change the decision. They never fail: each ends as an
 * outcome. After an interruption no delivery is started, and an interruption while they
 * run ends every pending one at once with the outcome `interrupted` (the deliveries that
 * already ended keep their outcome). Neither a timeout nor an interruption waits for a
 * transport to retire a delivery's I/O beyond a short grace: that goes on in a fiber
 * owned by `DeliveryOptions.retiring`.
 *
 * @since 0.1.0
 */
import { Common, Json, Observe } from "@effect-ahp/protocol"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as FiberId from "effect/FiberId"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { AttachmentError } from "./Attachment.js"
import type * as Boundary from "./Boundary.js"
import { type Owner, retire } from "./internal/retire.js"
import * as Projection from "./Projection.js"
import type * as Registry from "./Registry.js"
import { Code } from "./RouteFailure.js"
import type { Endpoint, TransportError } from "./Transport.js"
import type { UploadError } from "./Uploads.js"

/**
 * How a delivery ended. `interrupted`: the call was interrupted before it completed (its
 * I/O is retired; nothing says whether the observer read it). `pending` is reported when
 * deliveries were handed to a scope the host owns.
 *
 * @since 0.1.0
 * @category models
 */
export const Outcome = Schema.Literal("delivered", "failed", "timeout", "interrupted", "pending")

/**
 * One delivery and its outcome.
 *
 * @since 0.1.0
 * @category models
 */
export const Observation = Schema.Struct({
  backend: Schema.String,
  subscription: Schema.String,
  /** The subscription's own mode: `intercept` when an uncalled interceptor is observed after a short-circuit. */
  mode: Schema.Literal("intercept", "observe"),
  outcome: Outcome,
  code: Common.optional(Code),
  detail: Common.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category models
 */
export type Observation = typeof Observation.Type

/**
 * The recipients of an observation, in registration order.
 *
 * @since 0.1.0
 * @category planning
 */
export const plan = (
  routes: { readonly intercept: ReadonlyArray<Registry.Route>; readonly observe: ReadonlyArray<Registry.Route> },
  options: { readonly observed: boolean; readonly shortCircuit: boolean; readonly called: ReadonlySet<string> }
): ReadonlyArray<Registry.Route> => {
  if (!options.observed) return []
  const downgraded = options.shortCircuit ? routes.intercept.filter((r) => !options.called.has(r.key)) : []
  return [...routes.observe, ...downgraded]
}

const outcomeOf = (
  route: Registry.Route,
  outcome: Observation["outcome"],
  code?: Code,
  detail?: string
): Observation => ({
  backend: route.backend.id,
  subscription: route.label,
  mode: route.mode,
  outcome,
  ...(code !== undefined ? { code } : {}),
  ...(detail !== undefined ? { detail } : {})
})

/**
 * How deliveries are bounded and owned.
 *
 * @since 0.1.0
 * @category models
 */
export interface DeliveryOptions {
  /** The bound of each delivery, in milliseconds. */
  readonly timeoutMs: number
  /** Takes over a delivery ended by its timeout or an interruption until it has retired its I/O. */
  readonly retiring: Owner
  /** Completed when the call is interrupted. */
  readonly interrupted?: Deferred.Deferred<void> | undefined
  /** Uploads a recipient's pending attachments; succeeds with their references, by part id. */
  readonly prepare: (
    route: Registry.Route,
    pending: ReadonlyArray<Projection.PendingUpload>
  ) => Effect.Effect<ReadonlyMap<string, string>, AttachmentError | UploadError>
}

/**
 * The outcomes of a set of deliveries, and whether an interruption ended them.
 *
 * @since 0.1.0
 * @category models
 */
export interface Delivered {
  readonly observations: ReadonlyArray<Observation>
  readonly interrupted: boolean
}

/**
 * Runs `effect` on a fiber of its own and waits for it. Interrupting the wait (a timeout,
 * the call's interruption; possible whatever the caller's region) interrupts that fiber
 * and waits a short grace at most: `owner` then holds it until its finalizers have run.
 */
const owned = <A, E>(owner: Owner, effect: Effect.Effect<A, E>): Effect.Effect<A, E> =>
  Effect.uninterruptible(
    Effect.flatMap(Effect.forkDaemon(Effect.interruptible(effect)), (fiber) =>
      Effect.onInterrupt(
        Effect.interruptible(Fiber.join(fiber)),
        () => Effect.withFiberRuntime((waiter) => retire(owner, fiber, waiter.id()))
      ))
  )

const interruptedDetail = "the call was interrupted before the delivery completed"

/**
 * Delivers one observation within `options.timeoutMs`; never fails.
 *
 * @since 0.1.0
 * @category delivery
 */
export const deliver = (
  boundary: Boundary.Boundary,
  event: Json.JsonObject,
  route: Registry.Route,
  endpoint: Effect.Effect<Endpoint, TransportError>,
  options: DeliveryOptions
): Effect.Effect<Observation> => {
  const first = Projection.project(boundary, event, route.subscriber)
  const view: Effect.Effect<Projection.View, AttachmentError | UploadError> = first.pendingUploads.length === 0
    ? Effect.succeed(first)
    : Effect.map(
      options.prepare(route, first.pendingUploads),
      (references) => Projection.project(boundary, event, route.subscriber, references)
    )
  const notify = (ready: Projection.View) => {
    const notification: Json.JsonObject = {
      jsonrpc: "2.0",
      method: Observe.method,
      params: { protocolVersion: Common.protocolVersion, event: ready.event } as Json.JsonObject
    }
    return owned(options.retiring, Effect.flatMap(endpoint, (e) => e.notify(notification))).pipe(
      Effect.timeoutFail({ duration: Duration.millis(options.timeoutMs), onTimeout: () => "timeout" as const })
    )
  }
  return Effect.flatMap(view, notify).pipe(
    Effect.exit,
    Effect.map((exit) => {
      if (Exit.isSuccess(exit)) return outcomeOf(route, "delivered")
      const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
      if (failure === "timeout") {
        return outcomeOf(route, "timeout", "timeout", `not delivered within ${options.timeoutMs} ms`)
      }
      if (failure !== undefined) return outcomeOf(route, "failed", failure.reason, failure.detail)
      return outcomeOf(route, "interrupted", undefined, interruptedDetail)
    }),
    Effect.withSpan("Observation.deliver", { attributes: { backend: route.backend.id, subscription: route.label } })
  )
}

/** The outcomes so far: each delivery that has not ended is `interrupted`. */
const outcomesOf = (
  recipients: ReadonlyArray<Registry.Route>,
  outcomes: ReadonlyArray<Observation | undefined>
): ReadonlyArray<Observation> =>
  outcomes.map((o, i) => o ?? outcomeOf(recipients[i]!, "interrupted", undefined, interruptedDetail))

/** Every delivery, concurrently, each writing its outcome into `outcomes` when it ends. */
const runAll = (
  boundary: Boundary.Boundary,
  event: Json.JsonObject,
  recipients: ReadonlyArray<Registry.Route>,
  endpoint: (route: Registry.Route) => Effect.Effect<Endpoint, TransportError>,
  options: DeliveryOptions,
  outcomes: Array<Observation | undefined>
): Effect.Effect<void> =>
  Effect.forEach(
    recipients,
    (route, i) => Effect.map(deliver(boundary, event, route, endpoint(route), options), (o) => (outcomes[i] = o)),
    { concurrency: "unbounded", discard: true }
  )

/**
 * Delivers to every recipient concurrently and waits for all outcomes, or for
 * `options.interrupted`: then nothing more is started, every pending delivery ends at
 * once as `interrupted`, and `interrupted` is reported. Nothing is started when the call
 * was interrupted before.
 *
 * @since 0.1.0
 * @category delivery
 */
export const deliverAll = (
  boundary: Boundary.Boundary,
  event: Json.JsonObject,
  recipients: ReadonlyArray<Registry.Route>,
  endpoint: (route: Registry.Route) => Effect.Effect<Endpoint, TransportError>,
  options: DeliveryOptions
): Effect.Effect<Delivered> =>
  Effect.suspend(() => {
    const stop = options.interrupted
    const outcomes: Array<Observation | undefined> = recipients.map(() => undefined)
    const all = runAll(boundary, event, recipients, endpoint, options, outcomes)
    if (stop === undefined) return Effect.as(all, { observations: outcomes as Array<Observation>, interrupted: false })
    const race = Effect.map(
      Effect.raceFirst(
        Effect.interruptible(Effect.as(all, false)),
        Effect.interruptible(Effect.as(Deferred.await(stop), true))
      ),
      (interrupted): Delivered => ({ interrupted, observations: outcomesOf(recipients, outcomes) })
    )
    return Effect.flatMap(
      Deferred.isDone(stop),
      (done): Effect.Effect<Delivered> => done ? Effect.succeed({ observations: [], interrupted: true }) : race
    )
  })

/**
 * Starts every delivery in a fiber owned by `scope` and returns at once with the effect
 * that yields their outcomes. The outcomes belong to the deliveries, never to whoever
 * waits for them: they are kept in a `Deferred` completed when that fiber exits, however
 * it exits, so closing `scope` before the deliveries end reports each pending one as
 * `interrupted` (the ended ones keep theirs), and a scope already closed reports every one
 * as `interrupted`. `onDone` runs in that fiber once every delivery has ended.
 *
 * @since 0.1.0
 * @category delivery
 */
export const deliverIn = (
  boundary: Boundary.Boundary,
  event: Json.JsonObject,
  recipients: ReadonlyArray<Registry.Route>,
  endpoint: (route: Registry.Route) => Effect.Effect<Endpoint, TransportError>,
  options: DeliveryOptions,
  scope: Scope.Scope,
  onDone: (observations: ReadonlyArray<Observation>) => Effect.Effect<void>
): Effect.Effect<Effect.Effect<ReadonlyArray<Observation>>> =>
  Effect.suspend(() => {
    const outcomes: Array<Observation | undefined> = recipients.map(() => undefined)
    const done = Deferred.unsafeMake<ReadonlyArray<Observation>>(FiberId.none)
    const all = Effect.zipRight(
      runAll(boundary, event, recipients, endpoint, options, outcomes),
      Effect.suspend(() => onDone(outcomes as Array<Observation>))
    )
    return Effect.map(Effect.forkIn(all, scope), (fiber) => {
      fiber.addObserver(() => Deferred.unsafeDone(done, Exit.succeed(outcomesOf(recipients, outcomes))))
      return Deferred.await(done)
    })
  })

/**
 * The outcomes reported while deliveries run in a host-owned scope.
 *
 * @since 0.1.0
 * @category delivery
 */
export const pending = (recipients: ReadonlyArray<Registry.Route>): ReadonlyArray<Observation> =>
  recipients.map((route) => outcomeOf(route, "pending"))
