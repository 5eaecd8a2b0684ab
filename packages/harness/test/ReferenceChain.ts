/**
 * A plain-Effect reference for `Chain.run`: the same contract (serial routes in
 * registration order, one exchange at a time, each under its subscription's `timeoutMs`,
 * a response published whole or not at all, the failure policy applied once (the chain's
 * own `failure` and `withFailure` records: what is compared is the running), a stop on
 * deny, flow stop or fail-closed failure, progress kept in the caller's `Ref`), written
 * the obvious way — a loop, `Effect.timeoutFail` per exchange, a `Semaphore` around each
 * exchange — with no hand-driven fiber and no platform timer. Property tests run both and
 * compare them.
 */
import { Chain, Grant, Projection, type Registry, Settlement, Staging } from "@effect-ahp/harness"
import { Common, Intercept, type Json } from "@effect-ahp/protocol"
import { Duration, Effect, Either, Ref } from "effect"

const failure = Chain.failure
const withFailure = Chain.withFailure

/** One exchange: project, advertise, request, stage; the progress to publish. */
const exchange = (input: Chain.Input, route: Registry.Route, current: Chain.Progress) =>
  Effect.gen(function*() {
    const projected = Projection.project(input.boundary, current.event, route.subscriber)
    const view = projected.pendingUploads.length === 0 ? projected : Projection.project(
      input.boundary,
      current.event,
      route.subscriber,
      yield* Effect.mapError(input.prepare(route, projected.pendingUploads), (e) => Chain.fromPrepareError(route, e))
    )
    const allowance: Grant.Allowance = {
      remaining: Math.max(0, input.allowance.remaining - (current.continued ? 1 : 0)),
      count: input.allowance.count
    }
    const capabilities = Grant.forStep(input.capabilities, view, allowance)
    const requestId = current.event.id as string
    const endpoint = yield* Effect.mapError(input.endpoint(route), (e) => Chain.fromTransportError(route, e))
    const response = yield* Effect.mapError(
      endpoint.request({
        jsonrpc: "2.0",
        id: requestId,
        method: Intercept.method,
        params: { protocolVersion: Common.protocolVersion, event: view.event, capabilities } as Json.JsonObject
      }),
      (e) => Chain.fromTransportError(route, e)
    )
    const staged = Staging.stage(response, {
      requestId,
      boundary: input.boundary,
      capabilities,
      view,
      selection: route.subscriber.content,
      event: current.event,
      elicitationSchema: input.elicitationSchema
    })
    if (Either.isLeft(staged)) {
      const r = staged.left
      return yield* Effect.fail(failure(route, {
        phase: r.phase,
        code: r.code,
        detail: r.detail,
        path: r.path,
        ...(r.jsonRpcCode !== undefined ? { jsonRpcCode: r.jsonRpcCode } : {})
      }))
    }
    const provenance = { backend: route.backend.id, subscription: route.label, requestId }
    return {
      ...current,
      event: staged.right.event,
      state: Settlement.accept(current.state, staged.right, provenance),
      continued: current.continued || staged.right.effects.some((e) => e.type === "flow" && e.operation === "continue")
    } satisfies Chain.Progress
  })

/** The reference chain: same `Input` and `Progress` as `Chain.run`. */
export const run = (input: Chain.Input, progress: Ref.Ref<Chain.Progress>): Effect.Effect<void> =>
  Effect.gen(function*() {
    const exclusive = yield* Effect.makeSemaphore(1)
    for (const route of input.routes) {
      const current = yield* Ref.get(progress)
      if (Settlement.isShortCircuit(current.state)) return
      const called = { ...current, called: new Set([...current.called, route.key]) }
      yield* Ref.set(progress, called)
      const outcome = yield* exclusive.withPermits(1)(
        exchange(input, route, called).pipe(
          Effect.timeoutFail({
            duration: Duration.millis(route.timeoutMs ?? 0),
            onTimeout: () =>
              failure(route, {
                phase: "transport",
                code: "timeout",
                detail: `no accepted response within ${route.timeoutMs} ms`
              })
          }),
          Effect.either
        )
      )
      yield* Ref.set(
        progress,
        Either.match(outcome, { onLeft: (f) => withFailure(called, route, f, 0), onRight: (p) => p })
      )
    }
  })
