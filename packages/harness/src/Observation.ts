/**
 * Observation after settlement. Recipients are every explicit observe subscription of the
 * event and, after a short-circuit (accepted deny or stop, fail-closed failure), every
 * intercept subscription that was not called; already-called interceptors get no second
 * copy, and nothing is sent unless the host offers the event for observation. Each
 * recipient gets `hooks/observe` with its own projection of the accepted effective event —
 * never a rejected candidate.
 *
 * Deliveries run concurrently as child fibers of the call, each bounded by the
 * observation timeout; they cannot change the decision. They never fail: each ends as an
 * outcome. After an interruption no delivery is started.
 *
 * @since 0.1.0
 */
import { Common, Json, Observe } from "@effect-ahp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Schema from "effect/Schema"
import type * as Boundary from "./Boundary.js"
import * as Projection from "./Projection.js"
import type * as Registry from "./Registry.js"
import { Code } from "./RouteFailure.js"
import type { Endpoint, TransportError } from "./Transport.js"

/**
 * How a delivery ended. `pending` is reported when deliveries were handed to a scope the
 * host owns.
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
  code: Schema.optionalWith(Code, { exact: true }),
  detail: Schema.optionalWith(Schema.String, { exact: true })
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

const outcomeOf = (route: Registry.Route, outcome: Observation["outcome"], code?: Code, detail?: string): Observation => ({
  backend: route.backend.id,
  subscription: route.label,
  mode: route.mode,
  outcome,
  ...(code !== undefined ? { code } : {}),
  ...(detail !== undefined ? { detail } : {})
})

/**
 * Delivers one observation within `timeoutMs`; never fails.
 *
 * @since 0.1.0
 * @category delivery
 */
export const deliver = (
  boundary: Boundary.Boundary,
  event: Json.JsonObject,
  route: Registry.Route,
  endpoint: Effect.Effect<Endpoint, TransportError>,
  timeoutMs: number
): Effect.Effect<Observation> => {
  const view = Projection.project(boundary, event, route.subscriber)
  const notification: Json.JsonObject = {
    jsonrpc: "2.0",
    method: Observe.method,
    params: { protocolVersion: Common.protocolVersion, event: view.event } as Json.JsonObject
  }
  return endpoint.pipe(
    Effect.flatMap((e) => e.notify(notification)),
    Effect.timeoutFail({ duration: Duration.millis(timeoutMs), onTimeout: () => "timeout" as const }),
    Effect.exit,
    Effect.map((exit) => {
      if (Exit.isSuccess(exit)) return outcomeOf(route, "delivered")
      const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
      if (failure === "timeout") return outcomeOf(route, "timeout", "timeout", `not delivered within ${timeoutMs} ms`)
      if (failure !== undefined) return outcomeOf(route, "failed", failure.reason, failure.detail)
      return outcomeOf(route, "interrupted")
    }),
    Effect.withSpan("Observation.deliver", { attributes: { backend: route.backend.id, subscription: route.label } })
  )
}

/**
 * Delivers to every recipient concurrently and waits for all outcomes.
 *
 * @since 0.1.0
 * @category delivery
 */
export const deliverAll = (
  boundary: Boundary.Boundary,
  event: Json.JsonObject,
  recipients: ReadonlyArray<Registry.Route>,
  endpoint: (route: Registry.Route) => Effect.Effect<Endpoint, TransportError>,
  timeoutMs: number
): Effect.Effect<ReadonlyArray<Observation>> =>
  Effect.forEach(recipients, (route) => deliver(boundary, event, route, endpoint(route), timeoutMs), {
    concurrency: "unbounded"
  })

/**
 * The outcomes reported while deliveries run in a host-owned scope.
 *
 * @since 0.1.0
 * @category delivery
 */
export const pending = (recipients: ReadonlyArray<Registry.Route>): ReadonlyArray<Observation> =>
  recipients.map((route) => outcomeOf(route, "pending"))
