/**
 * The recording decorator over the harness's in-process transport, on the test clock:
 * every message sent and how it ended (answered, delivered, failed, interrupted), in the
 * order they ended, numbered per connection, with when it started and how long it took;
 * what passes through is unchanged.
 */
import { Transport } from "@effect-ahp/harness"
import { Registration } from "@effect-ahp/protocol"
import type { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Either, Fiber, Layer, Schema, TestClock } from "effect"
import * as Recorder from "../src/Recorder.js"

const backendOf = (id: string) =>
  Schema.decodeUnknownSync(Registration.Backend)({
    id,
    transport: { type: "stdio", command: "never-run", lifecycle: "persistent" },
    subscriptions: [{
      mode: "intercept",
      events: ["tool.before"],
      timeoutMs: 1_000,
      failurePolicy: "fail-open",
      content: { default: "body" }
    }]
  })

const message = (id: number, ms: number): Json.JsonObject => ({
  jsonrpc: "2.0",
  id,
  method: "hooks/intercept",
  params: { ms }
})

const served = {
  request: (m: Json.JsonObject) => {
    const ms = (m.params as { readonly ms: number }).ms
    return Effect.sleep(Duration.millis(ms)).pipe(
      Effect.zipRight(
        ms === 13
          ? Effect.fail(new Transport.TransportError({ reason: "io", detail: "unlucky" }))
          : Effect.succeed<Json.JsonValue>({ jsonrpc: "2.0", id: m.id ?? null, result: { effects: [] } })
      )
    )
  },
  notify: () => Effect.sleep(Duration.millis(5))
}

describe("Recorder", () => {
  it.scoped("records every exchange in the order they ended, numbered per connection, timed", () =>
    Effect.gen(function*() {
      const layer = Recorder.layer.pipe(
        Layer.provide(Transport.layerInProcess({ "com.example.a": served, "com.example.b": served }))
      )
      const { recorder, transports } = yield* Effect.provide(
        Effect.all({ recorder: Recorder.Recorder, transports: Transport.Transports }),
        layer
      )
      const a = yield* transports.connect(backendOf("com.example.a"))
      const b = yield* transports.connect(backendOf("com.example.b"))
      yield* TestClock.adjust(Duration.millis(100))
      const slow = yield* Effect.fork(a.request(message(1, 50)))
      const quick = yield* Effect.fork(
        Effect.zip(b.notify({ jsonrpc: "2.0", method: "hooks/observe" }), b.request(message(2, 13)).pipe(Effect.either))
      )
      const stuck = yield* Effect.fork(a.request(message(3, 1_000)))
      yield* TestClock.adjust(Duration.millis(50))
      assert.deepStrictEqual(yield* Fiber.join(slow), { jsonrpc: "2.0", id: 1, result: { effects: [] } })
      const [, failed] = yield* Fiber.join(quick)
      assert.isTrue(Either.isLeft(failed) && failed.left.detail === "unlucky")
      yield* Fiber.interrupt(stuck)
      const exchanges = yield* recorder.exchanges
      assert.deepStrictEqual(
        exchanges.map((e) => [e.backend, e.kind, e.sequence, e.outcome._tag, e.startedMs, e.durationMs]),
        [
          ["com.example.b", "notification", 1, "Delivered", 100, 5],
          ["com.example.b", "request", 2, "Failed", 105, 13],
          ["com.example.a", "request", 1, "Answered", 100, 50],
          ["com.example.a", "request", 2, "Interrupted", 100, 50]
        ]
      )
      assert.deepStrictEqual(exchanges[2]!.message, message(1, 50))
      assert.isUndefined(yield* recorder.diagnostics("com.example.a"), "an in-process endpoint tells nothing more")
      assert.isUndefined(yield* recorder.diagnostics("com.example.unknown"))
    }))
})
