import { Transport } from "@effect-ahp/harness"
import type { JsonRpc } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Cause, Deferred, Duration, Effect, Exit, Fiber, Scope } from "effect"
import { scaled } from "../../../test/support/load.js"
import { answer, backends, heldExchange, intercept, openHooks, registration, within } from "./support.js"

const A = "com.example.a"
const B = "com.example.b"

/** Blocks the event loop for `millis`, as parsing or staging a huge answer would. */
const busy = (millis: number) =>
  Effect.sync(() => {
    const end = performance.now() + millis
    while (performance.now() < end) {
      // no timer can fire meanwhile
    }
  })

/** A backend whose requests never complete and whose interruption is held until `gate` opens. */
const heldBackend = (gate: Deferred.Deferred<void>, started: Deferred.Deferred<void>) => {
  const { run, state } = heldExchange(started, gate)
  const backend: JsonRpc.InProcessBackend<Transport.TransportError> = { request: () => run, notify: () => Effect.void }
  return { state, backend }
}

describe.sequential("absolute deadlines", () => {
  it.live("an answer still being processed when the deadline passes is a timeout, not published", () =>
    Effect.gen(function*() {
      const { layer, log } = backends({
        [A]: (request) => Effect.zipRight(busy(150), answer({ type: "deny", reason: "late" })(request, 0)),
        [B]: answer({ type: "ask" })
      })
      const reg = registration([
        { id: A, subscriptions: [intercept(["tool.before"], { timeoutMs: 50 })] },
        { id: B, subscriptions: [intercept(["tool.before"])] }
      ])
      const { dispatch, scope } = yield* openHooks(reg, layer)
      const result = yield* dispatch()
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(result.errors.map((e) => [e.backend, e.code]), [[A, "timeout"]])
      assert.strictEqual(result.decision.permission, "ask")
      assert.isUndefined(result.decision.denial)
      assert.deepStrictEqual(result.decision.effects.map((a) => a.effect.type), ["ask"])
      assert.deepStrictEqual(log.map((r) => r.backend), [A, B])
    }))

  it.live("a fail-closed route whose answer is processed past its deadline denies synthetically", () =>
    Effect.gen(function*() {
      const { layer } = backends({
        [A]: (request) =>
          Effect.zipRight(busy(150), answer({ type: "allow" }, { type: "return", value: 1 })(request, 0))
      })
      const reg = registration([{
        id: A,
        subscriptions: [intercept(["tool.before"], { timeoutMs: 50, failurePolicy: "fail-closed" })]
      }])
      const { dispatch, scope } = yield* openHooks(reg, layer)
      const result = yield* dispatch()
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual(result.errors[0]?.code, "timeout")
      assert.strictEqual(result.decision.permission, "deny")
      assert.isTrue(result.decision.denial?.synthetic)
      assert.isUndefined(result.decision.candidate)
    }))
})

describe("one timer for every deadline", () => {
  it.live("a deadline armed while a later one is pending still expires at its own time", () =>
    Effect.gen(function*() {
      // Both calls' deadlines are on the one shared timer, first set for the 60-second one.
      const gates = [yield* Deferred.make<void>(), yield* Deferred.make<void>()] as const
      const starts = [yield* Deferred.make<void>(), yield* Deferred.make<void>()] as const
      const [slow, fast] = [heldBackend(gates[0], starts[0]), heldBackend(gates[1], starts[1])]
      // Two services: the deadlines of both are on the one timer of the process.
      const slowHooks = yield* openHooks(
        registration([{ id: A, subscriptions: [intercept(["tool.before"], { timeoutMs: 60_000 })] }]),
        Transport.layerInProcess({ [A]: slow.backend })
      )
      const fastHooks = yield* openHooks(
        registration([{ id: B, subscriptions: [intercept(["tool.before"], { timeoutMs: 50 })] }]),
        Transport.layerInProcess({ [B]: fast.backend })
      )
      const long = yield* Effect.fork(slowHooks.dispatch())
      yield* Deferred.await(starts[0])
      const result = yield* within(3000, "the 50 ms deadline", fastHooks.dispatch())
      assert.deepStrictEqual(result.errors.map((e) => [e.backend, e.code]), [[B, "timeout"]])
      assert.isTrue((yield* Fiber.poll(long))._tag === "None", "the 60-second call is still waiting")
      yield* Fiber.interrupt(long)
      yield* Deferred.succeed(gates[0], undefined)
      yield* Deferred.succeed(gates[1], undefined)
      yield* within(3000, "the close", Scope.close(slowHooks.scope, Exit.void))
      yield* within(3000, "the close", Scope.close(fastHooks.scope, Exit.void))
    }), scaled(15_000))
})

describe("the decision is not held by an exchange's retirement", () => {
  it.live(
    "at a deadline the chain goes on while the exchange retires; the service's scope awaits it",
    () =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        const started = yield* Deferred.make<void>()
        const held = heldBackend(gate, started)
        const reg = registration([
          { id: A, subscriptions: [intercept(["tool.before"], { timeoutMs: 50 })] },
          { id: B, subscriptions: [intercept(["tool.before"])] }
        ])
        const { dispatch, scope } = yield* openHooks(
          reg,
          Transport.layerInProcess({
            [A]: held.backend,
            [B]: { request: (m) => answer({ type: "ask" })(m, 0), notify: () => Effect.void }
          })
        )
        const result = yield* within(3000, "the decision", dispatch())
        assert.strictEqual(result.errors[0]?.code, "timeout")
        assert.strictEqual(result.decision.permission, "ask")
        assert.strictEqual(held.state.retired, 0)
        const closing = yield* Effect.fork(Scope.close(scope, Exit.void))
        yield* Effect.sleep(Duration.millis(50))
        assert.isTrue((yield* Fiber.poll(closing))._tag === "None", "closing waits for the retiring exchange")
        yield* Deferred.succeed(gate, undefined)
        yield* within(3000, "the close", Fiber.join(closing))
        assert.strictEqual(held.state.retired, 1)
      }),
    15_000
  )

  it.live("an interrupted call returns at once while its exchange retires", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const held = heldBackend(gate, started)
      const reg = registration([{
        id: A,
        subscriptions: [intercept(["tool.before"], { timeoutMs: 60_000, failurePolicy: "fail-closed" })]
      }])
      const { dispatch, scope } = yield* openHooks(reg, Transport.layerInProcess({ [A]: held.backend }))
      const result = yield* within(3000, "the interrupted call", dispatch({ interrupt: Deferred.await(started) }))
      assert.isTrue(result.interrupted)
      assert.strictEqual(result.decision.permission, "none")
      assert.deepStrictEqual(result.errors, [])
      yield* Deferred.succeed(gate, undefined)
      yield* within(3000, "the close", Scope.close(scope, Exit.void))
      assert.strictEqual(held.state.retired, 1)
    }), scaled(15_000))

  it.live(
    "interrupting the fiber running dispatch returns at once while its exchange retires",
    () =>
      Effect.gen(function*() {
        const gate = yield* Deferred.make<void>()
        const started = yield* Deferred.make<void>()
        const held = heldBackend(gate, started)
        const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"], { timeoutMs: 60_000 })] }])
        const { dispatch, scope } = yield* openHooks(reg, Transport.layerInProcess({ [A]: held.backend }))
        const fiber = yield* Effect.fork(dispatch())
        yield* Deferred.await(started)
        yield* within(3000, "the interruption", Fiber.interrupt(fiber))
        assert.strictEqual(held.state.retired, 0)
        yield* Deferred.succeed(gate, undefined)
        yield* within(3000, "the close", Scope.close(scope, Exit.void))
        assert.strictEqual(held.state.retired, 1)
      }),
    15_000
  )
})

describe("defects", () => {
  it.effect("a defect in an exchange is not swallowed by the chain", () =>
    Effect.gen(function*() {
      const { layer } = backends({ [A]: () => Effect.die("a bug in the backend") })
      const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }])
      const { dispatch, scope } = yield* openHooks(reg, layer)
      const exit = yield* Effect.exit(dispatch())
      yield* Scope.close(scope, Exit.void)
      assert.isTrue(Exit.isFailure(exit) && Cause.isDie(exit.cause))
    }))
})
