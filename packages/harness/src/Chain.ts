/**
 * The serial interceptor chain. Matching intercept routes run one after another in
 * registration order, never concurrently. Each receives its own projection of the
 * accepted effective event and the capabilities for its step. Each exchange — request,
 * response, validation, staging and publication — runs under the subscription's
 * `timeoutMs`; a response is published atomically or not at all.
 *
 * An operational failure (timeout, transport, malformed or rejected response) applies the
 * subscription's failure policy once: fail-open records it and goes on with the state
 * unchanged; fail-closed stops with a synthetic denial. An explicit deny denies under
 * either policy. Decision-making stops on an accepted deny, an accepted flow stop, a
 * fail-closed failure, or interruption.
 *
 * Progress is kept in a `Ref` owned by the caller, so an interrupted chain leaves exactly
 * what was accepted before the interruption (a staged but unpublished response is lost).
 *
 * @since 0.1.0
 */
import { Capabilities, Common, type Event, Intercept, Json } from "@effect-ahp/protocol"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Ref from "effect/Ref"
import type * as Boundary from "./Boundary.js"
import * as Grant from "./Grant.js"
import * as Projection from "./Projection.js"
import type * as Registry from "./Registry.js"
import { RouteFailure } from "./RouteFailure.js"
import * as Settlement from "./Settlement.js"
import * as Staging from "./Staging.js"
import type { Endpoint, TransportError } from "./Transport.js"

/**
 * Everything the chain needs for one boundary call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly boundary: Boundary.Boundary
  readonly routes: ReadonlyArray<Registry.Route>
  readonly endpoint: (route: Registry.Route) => Effect.Effect<Endpoint, TransportError>
  /** The call's capabilities (the grant, narrowed for this call). */
  readonly capabilities: Capabilities.Capabilities
  /** The continuation allowance before the first interceptor. */
  readonly allowance: Grant.Allowance
  readonly elicitationSchema?: Event.RequestedSchema | undefined
}

/**
 * The chain's progress: the effective event, the pending state, which routes were called
 * and which failed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  readonly event: Json.JsonObject
  readonly state: Settlement.PendingState
  readonly called: ReadonlySet<string>
  readonly failures: ReadonlyArray<RouteFailure>
  /** Whether a continuation was requested by an accepted response of this chain. */
  readonly continued: boolean
}

/**
 * The starting progress.
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (event: Json.JsonObject, state: Settlement.PendingState): Progress => ({
  event,
  state,
  called: new Set(),
  failures: [],
  continued: false
})

const failure = (
  route: Registry.Route,
  fields: Pick<RouteFailure, "phase" | "code" | "detail"> & Partial<Pick<RouteFailure, "path" | "httpStatus" | "jsonRpcCode">>
): RouteFailure =>
  new RouteFailure({
    backend: route.backend.id,
    subscription: route.label,
    mode: "intercept",
    syntheticDenial: route.failurePolicy === "fail-closed",
    ...(route.failurePolicy !== undefined ? { policy: route.failurePolicy } : {}),
    ...fields
  })

/**
 * Maps a transport error to a route failure.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromTransportError = (route: Registry.Route, error: TransportError): RouteFailure =>
  failure(route, {
    phase: "transport",
    code: error.reason,
    detail: error.detail,
    ...(error.status !== undefined ? { httpStatus: error.status } : {})
  })

const fromRejection = (route: Registry.Route, rejection: Staging.Rejection): RouteFailure =>
  failure(route, {
    phase: rejection.phase,
    code: rejection.code,
    detail: rejection.detail,
    path: rejection.path,
    ...(rejection.jsonRpcCode !== undefined ? { jsonRpcCode: rejection.jsonRpcCode } : {})
  })

const exchange = (input: Input, route: Registry.Route, progress: Ref.Ref<Progress>) =>
  Effect.gen(function*() {
    const current = yield* Ref.get(progress)
    const view = Projection.project(input.boundary, current.event, route.subscriber)
    if (view.pendingUploads.length > 0) {
      return yield* Effect.fail(failure(route, {
        phase: "prepare",
        code: "attachment-upload-unsupported",
        detail: `${view.pendingUploads.length} attachment(s) selected as body need an upload, which this harness does not support`
      }))
    }
    const allowance: Grant.Allowance = {
      remaining: Math.max(0, input.allowance.remaining - (current.continued ? 1 : 0)),
      count: input.allowance.count
    }
    const capabilities = Grant.forStep(input.capabilities, view, allowance)
    const requestId = current.event.id as string
    const request: Json.JsonObject = {
      jsonrpc: "2.0",
      id: requestId,
      method: Intercept.method,
      params: { protocolVersion: Common.protocolVersion, event: view.event, capabilities } as Json.JsonObject
    }
    const endpoint = yield* Effect.mapError(input.endpoint(route), (e) => fromTransportError(route, e))
    const response = yield* Effect.mapError(endpoint.request(request), (e) => fromTransportError(route, e))
    const staged = Staging.stage(response, {
      requestId,
      boundary: input.boundary,
      capabilities,
      view,
      selection: route.subscriber.content,
      event: current.event,
      elicitationSchema: input.elicitationSchema
    })
    if (Either.isLeft(staged)) return yield* Effect.fail(fromRejection(route, staged.left))
    const provenance: Settlement.Provenance = { backend: route.backend.id, subscription: route.label, requestId }
    const continues = staged.right.effects.some((e) => e.type === "flow" && e.operation === "continue")
    yield* Ref.set(progress, {
      ...current,
      event: staged.right.event,
      state: Settlement.accept(current.state, staged.right, provenance),
      continued: current.continued || continues
    })
  }).pipe(
    Effect.timeoutFail({
      duration: Duration.millis(route.timeoutMs ?? 0),
      onTimeout: () => failure(route, { phase: "transport", code: "timeout", detail: `no accepted response within ${route.timeoutMs} ms` })
    }),
    Effect.withSpan("Chain.route", { attributes: { backend: route.backend.id, subscription: route.label } })
  )

/**
 * Runs the chain, recording progress in `progress`, until every route ran or decision-making
 * stopped. Never fails: failures are recorded as data.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (input: Input, progress: Ref.Ref<Progress>): Effect.Effect<void> =>
  Effect.gen(function*() {
    for (const route of input.routes) {
      const before = yield* Ref.get(progress)
      if (Settlement.isShortCircuit(before.state)) return
      yield* Ref.set(progress, { ...before, called: new Set([...before.called, route.key]) })
      const result = yield* Effect.either(exchange(input, route, progress))
      if (Either.isRight(result)) continue
      const failed = result.left
      yield* Ref.update(progress, (p) => ({
        ...p,
        failures: [...p.failures, failed],
        state: failed.syntheticDenial
          ? Settlement.failClosed(p.state, { backend: route.backend.id, subscription: route.label, requestId: p.event.id as string })
          : p.state
      }))
    }
  })
