/**
 * The per-call budget over the harness's in-process transport, on the test clock: an
 * exchange within the call's deadline ends as the backend ends it; one still running at the
 * deadline fails with the transport reason `budget`, naming who applied it and when; every
 * later exchange of the call fails at once without reaching the backend; each exchange is
 * recorded with its outcome and duration in its own call's record, so concurrent calls on
 * one set of endpoints keep their own deadlines. Outside a call nothing is bounded.
 */
import { Transport } from "@effect-ahp/harness"
import { Registration } from "@effect-ahp/protocol"
import type { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Duration, Effect, Either, Fiber, Layer, Option, Ref, Schema, TestClock } from "effect"
import * as Budget from "../src/Budget.js"

const backend = Schema.decodeUnknownSync(Registration.Backend)({
  id: "com.example.slow",
  transport: { type: "stdio", command: "never-run", lifecycle: "persistent" },
  subscriptions: [{
    mode: "intercept",
    events: ["tool.before"],
    timeoutMs: 60_000,
    failurePolicy: "fail-closed",
    content: { default: "body" }
  }]
})

const answer = (message: Json.JsonObject): Json.JsonValue => ({
  jsonrpc: "2.0",
  id: message.id ?? null,
  result: { protocolVersion: "draft", effects: [] }
})

/**
 * An endpoint of the slow backend through the budget: a request takes `params.ms` on the
 * clock (a failure when `params.fail`), a notification 50 ms; `reached` counts the messages
 * that got to the backend.
 */
const connect = (applier: Budget.Applier) =>
  Effect.gen(function*() {
    const reached = yield* Ref.make(0)
    const slow = {
      request: (message: Json.JsonObject) => {
        const params = message.params as { readonly ms: number; readonly fail?: boolean }
        return Ref.update(reached, (n) => n + 1).pipe(
          Effect.zipRight(Effect.sleep(Duration.millis(params.ms))),
          Effect.zipRight(
            params.fail === true
              ? Effect.fail(new Transport.TransportError({ reason: "exited", detail: "the backend exited" }))
              : Effect.succeed(answer(message))
          )
        )
      },
      notify: () => Ref.update(reached, (n) => n + 1).pipe(Effect.zipRight(Effect.sleep(Duration.millis(50))))
    }
    const layer = Budget.layer(applier).pipe(Layer.provide(Transport.layerInProcess({ [backend.id]: slow })))
    const transports = yield* Effect.provide(Transport.Transports, layer)
    const endpoint = yield* transports.connect(backend)
    return { endpoint, reached }
  })

const request = (id: number, ms: number, fail = false): Json.JsonObject => ({
  jsonrpc: "2.0",
  id,
  method: "hooks/intercept",
  params: { ms, fail }
})

/** A new call whose deadline is `ms` from now on the clock. */
const callEndingIn = (ms: number) => Effect.map(Clock.currentTimeMillis, (now) => Budget.makeCall(now + ms))

describe("Budget", () => {
  it.scoped("an exchange within the deadline ends as the backend ends it, recorded with its duration", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("hook")
      const call = yield* callEndingIn(1_000)
      const fiber = yield* Effect.fork(
        Effect.locally(
          Effect.zip(endpoint.request(request(1, 300)), endpoint.notify({ jsonrpc: "2.0", method: "hooks/observe" })),
          Budget.currentCall,
          call
        )
      )
      yield* TestClock.adjust(Duration.millis(350))
      const [response] = yield* Fiber.join(fiber)
      assert.deepStrictEqual(response, answer(request(1, 300)))
      assert.deepStrictEqual(call.exchanges, [
        { backend: backend.id, kind: "request", outcome: { _tag: "Answered", response }, durationMs: 300 },
        { backend: backend.id, kind: "notification", outcome: { _tag: "Delivered" }, durationMs: 50 }
      ])
    }))

  it.scoped("at the deadline the exchange fails with `budget`; every later one fails at once, unsent", () =>
    Effect.gen(function*() {
      const { endpoint, reached } = yield* connect("bridge")
      const call = yield* callEndingIn(1_000)
      const deadline = new Date(call.deadline).toISOString()
      const fiber = yield* Effect.fork(
        Effect.locally(Effect.either(endpoint.request(request(1, 5_000))), Budget.currentCall, call)
      )
      yield* TestClock.adjust(Duration.millis(999))
      assert.isTrue(Option.isNone(yield* Fiber.poll(fiber)), "still running a millisecond before the deadline")
      yield* TestClock.adjust(Duration.millis(1))
      const failed = yield* Fiber.join(fiber)
      assert.isTrue(Either.isLeft(failed))
      const error = Either.isLeft(failed) ? failed.left : undefined
      assert.strictEqual(error?.reason, "budget")
      assert.strictEqual(error?.detail, `the host's hook budget ran out (the bridge's deadline was ${deadline})`)
      const later = yield* Effect.locally(
        Effect.either(Effect.zip(endpoint.request(request(2, 1)), endpoint.notify({ jsonrpc: "2.0", method: "x" }))),
        Budget.currentCall,
        call
      )
      assert.isTrue(Either.isLeft(later) && later.left.reason === "budget")
      assert.strictEqual(yield* Ref.get(reached), 1, "only the first exchange reached the backend")
      assert.deepStrictEqual(call.exchanges.map((e) => [e.kind, e.outcome._tag, e.durationMs]), [
        ["request", "Failed", 1_000],
        ["request", "Failed", 0]
      ])
    }))

  it.scoped("a backend's own failure and an interrupted exchange are recorded as such", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("hook")
      const call = yield* callEndingIn(10_000)
      const crashed = yield* Effect.fork(
        Effect.locally(Effect.either(endpoint.request(request(1, 20, true))), Budget.currentCall, call)
      )
      yield* TestClock.adjust(Duration.millis(20))
      const failure = yield* Fiber.join(crashed)
      assert.isTrue(Either.isLeft(failure) && failure.left.reason === "exited")
      const stopped = yield* Effect.fork(Effect.locally(endpoint.request(request(2, 5_000)), Budget.currentCall, call))
      yield* TestClock.adjust(Duration.millis(40))
      yield* Fiber.interrupt(stopped)
      assert.deepStrictEqual(call.exchanges.map((e) => [e.outcome._tag, e.durationMs]), [["Failed", 20], [
        "Interrupted",
        40
      ]])
      const first = call.exchanges[0]!.outcome
      assert.strictEqual(first._tag === "Failed" ? first.error.detail : undefined, "the backend exited")
    }))

  it.scoped("concurrent calls on the same endpoint keep their own deadlines and records", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("bridge")
      const short = yield* callEndingIn(100)
      const long = yield* callEndingIn(10_000)
      const shortCall = yield* Effect.fork(
        Effect.locally(Effect.either(endpoint.request(request(1, 500))), Budget.currentCall, short)
      )
      const longCall = yield* Effect.fork(
        Effect.locally(Effect.either(endpoint.request(request(2, 500))), Budget.currentCall, long)
      )
      yield* TestClock.adjust(Duration.millis(500))
      const [shortEnd, longEnd] = [yield* Fiber.join(shortCall), yield* Fiber.join(longCall)]
      assert.isTrue(Either.isLeft(shortEnd) && shortEnd.left.reason === "budget")
      assert.isTrue(Either.isRight(longEnd))
      assert.deepStrictEqual(short.exchanges.map((e) => [e.outcome._tag, e.durationMs]), [["Failed", 100]])
      assert.deepStrictEqual(long.exchanges.map((e) => [e.outcome._tag, e.durationMs]), [["Answered", 500]])
    }))

  it.scoped("outside a hook call an exchange is not bounded", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("hook")
      const fiber = yield* Effect.fork(endpoint.request(request(1, 3_600_000)))
      yield* TestClock.adjust(Duration.hours(1))
      assert.deepStrictEqual(yield* Fiber.join(fiber), answer(request(1, 0)))
    }))
})
