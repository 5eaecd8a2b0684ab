import { Client, Transport } from "@effect-ahp/harness"
import type { JsonRpc } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, FastCheck as fc, Fiber, Scope, TestClock } from "effect"
import { scaled } from "../../../test/support/load.js"
import { answer, heldExchange, intercept, observe, openHooks, registration, toolBefore, within } from "./support.js"

const A = "com.example.a"
const SLOW = "com.example.slow"
const FAST = "com.example.fast"

/** An observer whose deliveries never complete and whose interruption is held until `gate` (if any) opens. */
const slowObserver = (started: Deferred.Deferred<void>, gate?: Deferred.Deferred<void>) => {
  const { run, state } = heldExchange(started, gate)
  const backend: JsonRpc.InProcessBackend<Transport.TransportError> = { request: () => Effect.never, notify: () => run }
  return { state, backend }
}

const allowing: JsonRpc.InProcessBackend<Transport.TransportError> = {
  request: (m) => answer({ type: "allow" }, { type: "return", value: 1 })(m, 0),
  notify: () => Effect.void
}

const fast = (log: Array<string>): JsonRpc.InProcessBackend<Transport.TransportError> => ({
  request: () => Effect.never,
  notify: () => Effect.sync(() => log.push("fast"))
})

const reg = registration([
  { id: A, subscriptions: [intercept(["tool.before"])] },
  { id: FAST, subscriptions: [observe(["tool.before"])] },
  { id: SLOW, subscriptions: [observe(["tool.before"])] }
])

/** Builds the service in a scope the test closes itself; deliveries are bounded by 60 s. */
const open = (backends: Record<string, JsonRpc.InProcessBackend<Transport.TransportError>>) =>
  openHooks(reg, Transport.layerInProcess(backends), { observationTimeoutMs: 60_000 })

describe("interruption during observation", () => {
  it.live(
    "the interrupt option ends pending deliveries at once: interrupted, keeping the decision settled before them",
    () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const slow = slowObserver(started)
        const log: Array<string> = []
        const { dispatch, scope } = yield* open({ [A]: allowing, [FAST]: fast(log), [SLOW]: slow.backend })
        const result = yield* within(3000, "the interrupted call", dispatch({ interrupt: Deferred.await(started) }))
        assert.isTrue(result.interrupted)
        assert.strictEqual(result.decision.permission, "allow")
        assert.deepStrictEqual(result.decision.candidate?.value, 1)
        assert.deepStrictEqual(result.decision.effects.map((a) => a.effect.type), ["allow", "return"])
        assert.deepStrictEqual(result.observations.map((o) => [o.backend, o.outcome]), [[FAST, "delivered"], [
          SLOW,
          "interrupted"
        ]])
        assert.deepStrictEqual(yield* result.observationsDone, result.observations)
        assert.deepStrictEqual(log, ["fast"])
        yield* Scope.close(scope, Exit.void)
        assert.strictEqual(slow.state.retired, 1)
      }),
    15_000
  )

  it.live(
    "an interruption does not wait for a delivery to retire its I/O; the service's scope does",
    () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const gate = yield* Deferred.make<void>()
        const slow = slowObserver(started, gate)
        const { dispatch, scope } = yield* open({ [A]: allowing, [FAST]: fast([]), [SLOW]: slow.backend })
        const result = yield* within(3000, "the interrupted call", dispatch({ interrupt: Deferred.await(started) }))
        assert.isTrue(result.interrupted)
        assert.strictEqual(slow.state.retired, 0)
        yield* Deferred.succeed(gate, undefined)
        yield* within(3000, "the close", Scope.close(scope, Exit.void))
        assert.strictEqual(slow.state.retired, 1)
      }),
    15_000
  )

  it.live("interrupting the fiber running dispatch during observation returns at once", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const slow = slowObserver(started, gate)
      const { dispatch, scope } = yield* open({ [A]: allowing, [FAST]: fast([]), [SLOW]: slow.backend })
      const fiber = yield* Effect.fork(dispatch())
      yield* Deferred.await(started)
      yield* within(3000, "the interruption", Fiber.interrupt(fiber))
      yield* Deferred.succeed(gate, undefined)
      yield* within(3000, "the close", Scope.close(scope, Exit.void))
      assert.strictEqual(slow.state.retired, 1)
    }), scaled(15_000))

  it.live("an observation timeout does not wait for the delivery to retire its I/O", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const gate = yield* Deferred.make<void>()
      const slow = slowObserver(started, gate)
      const { dispatch, scope } = yield* openHooks(
        reg,
        Transport.layerInProcess({ [A]: allowing, [FAST]: fast([]), [SLOW]: slow.backend }),
        { observationTimeoutMs: 50 }
      )
      const result = yield* within(3000, "the call", dispatch())
      assert.isFalse(result.interrupted)
      assert.strictEqual(result.decision.permission, "allow")
      assert.deepStrictEqual(result.observations.map((o) => o.outcome), ["delivered", "timeout"])
      yield* Deferred.succeed(gate, undefined)
      yield* within(3000, "the close", Scope.close(scope, Exit.void))
      assert.strictEqual(slow.state.retired, 1)
    }), scaled(15_000))

  it.live(
    "an interrupt that completes once is honoured in every phase (it is run once per call)",
    () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const slow = slowObserver(started)
        let runs = 0
        const { dispatch, scope } = yield* open({ [A]: allowing, [FAST]: fast([]), [SLOW]: slow.backend })
        const interrupt = Effect.zipRight(Effect.sync(() => runs++), Deferred.await(started))
        const result = yield* within(3000, "the interrupted call", dispatch({ interrupt }))
        assert.isTrue(result.interrupted)
        assert.strictEqual(runs, 1)
        yield* Scope.close(scope, Exit.void)
      }),
    15_000
  )

  it.live("an interrupt that has already happened is seen before anything is sent", () =>
    Effect.gen(function*() {
      const started = yield* Deferred.make<void>()
      const log: Array<string> = []
      const recording: JsonRpc.InProcessBackend<Transport.TransportError> = {
        request: (m) => Effect.zipRight(Effect.sync(() => log.push("request")), allowing.request(m)),
        notify: () => Effect.sync(() => log.push("notify"))
      }
      const { dispatch, scope } = yield* open({
        [A]: recording,
        [FAST]: fast(log),
        [SLOW]: slowObserver(started).backend
      })
      const result = yield* dispatch({ interrupt: Effect.void })
      assert.isTrue(result.interrupted)
      assert.strictEqual(result.decision.permission, "none")
      assert.deepStrictEqual(result.observations, [])
      assert.deepStrictEqual(log, [])
      yield* Scope.close(scope, Exit.void)
    }))

  it("an abort signal during observation yields interrupted (Promise facade)", async () => {
    const started = Effect.runSync(Deferred.make<void>())
    const slow = slowObserver(started)
    const client = await Client.make(
      reg,
      Transport.layerInProcess({ [A]: allowing, [FAST]: fast([]), [SLOW]: slow.backend }),
      { observationTimeoutMs: 60_000 }
    )
    const controller = new AbortController()
    void Effect.runPromise(Deferred.await(started)).then(() => controller.abort())
    const result = await client.dispatch("tool.before", toolBefore(), { signal: controller.signal })
    assert.isTrue(result.interrupted)
    assert.strictEqual(result.decision.permission, "allow")
    assert.deepStrictEqual(result.observations.map((o) => o.outcome), ["delivered", "interrupted"])
    await client.close()
    assert.strictEqual(slow.state.retired, 1)
  }, scaled(15_000))
})

describe("observation outcomes owned by the call", () => {
  /** Observers that each complete their delivery after their own delay, counting the deliveries that completed. */
  const delayed = (delays: ReadonlyArray<number>) => {
    const completed = new Set<string>()
    const ids = delays.map((_, i) => `com.example.o${i}`)
    const backends = Object.fromEntries(
      ids.map((id, i): [string, JsonRpc.InProcessBackend<Transport.TransportError>] => [id, {
        request: () => Effect.never,
        notify: () => Effect.zipRight(Effect.sleep(delays[i]!), Effect.sync(() => completed.add(id)))
      }])
    )
    const observed = registration(ids.map((id) => ({ id, subscriptions: [observe(["tool.before"])] })))
    return { ids, completed, backends, observed }
  }

  it.live(
    "closing the host scope early reports the pending deliveries as interrupted; the waiter is not interrupted",
    () =>
      Effect.gen(function*() {
        const started = yield* Deferred.make<void>()
        const slow = slowObserver(started)
        const { dispatch, scope } = yield* open({ [A]: allowing, [FAST]: fast([]), [SLOW]: slow.backend })
        const host = yield* Scope.make()
        const result = yield* dispatch({ observers: { scope: host } })
        assert.deepStrictEqual(result.observations.map((o) => o.outcome), ["pending", "pending"])
        yield* Deferred.await(started)
        yield* within(3000, "the host scope's close", Scope.close(host, Exit.void))
        const done = yield* within(3000, "the outcomes", result.observationsDone)
        assert.deepStrictEqual(done.map((o) => [o.backend, o.outcome]), [[FAST, "delivered"], [SLOW, "interrupted"]])
        assert.deepStrictEqual(yield* result.observationsDone, done)
        assert.strictEqual(result.decision.permission, "allow")
        yield* Scope.close(scope, Exit.void)
        assert.strictEqual(slow.state.retired, 1)
      }),
    15_000
  )

  it.live("a host scope closed before the call reports every delivery as interrupted", () =>
    Effect.gen(function*() {
      const log: Array<string> = []
      const { dispatch, scope } = yield* open({ [A]: allowing, [FAST]: fast(log), [SLOW]: fast(log) })
      const host = yield* Scope.make()
      yield* Scope.close(host, Exit.void)
      const result = yield* dispatch({ observers: { scope: host } })
      const done = yield* within(3000, "the outcomes", result.observationsDone)
      assert.deepStrictEqual(done.map((o) => o.outcome), ["interrupted", "interrupted"])
      assert.deepStrictEqual(log, [])
      assert.strictEqual(result.decision.permission, "allow")
      yield* Scope.close(scope, Exit.void)
    }), scaled(15_000))

  it.effect.prop(
    "whenever the host scope closes, the outcomes are complete: a delivery that had not completed is interrupted, one reported delivered had completed",
    [fc.array(fc.integer({ min: 0, max: 20 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 0, max: 21 })],
    ([steps, closeAt]) =>
      Effect.gen(function*() {
        // Deliveries complete at even times, the scope closes at an odd one.
        const { backends, completed, ids, observed } = delayed(steps.map((s) => s * 10))
        const hooks = yield* openHooks(observed, Transport.layerInProcess(backends), { observationTimeoutMs: 60_000 })
        const host = yield* Scope.make()
        const result = yield* hooks.dispatch({ observers: { scope: host } })
        yield* Effect.forkScoped(Effect.zipRight(Effect.sleep(closeAt * 10 - 5), Scope.close(host, Exit.void)))
        yield* TestClock.adjust(closeAt * 10 - 5)
        yield* TestClock.adjust(1000)
        const done = yield* result.observationsDone
        assert.deepStrictEqual(done.map((o) => o.backend), ids)
        done.forEach((o, i) => {
          const reached = steps[i]! * 10 < closeAt * 10 - 5
          if (!reached) assert.strictEqual(o.outcome, "interrupted")
          assert.include(["delivered", "interrupted"], o.outcome)
          if (o.outcome === "delivered") assert.isTrue(completed.has(ids[i]!))
        })
        yield* Scope.close(hooks.scope, Exit.void)
      }).pipe(Effect.scoped),
    { fastCheck: { numRuns: 60 } }
  )
})
