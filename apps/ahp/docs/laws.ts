import { Boundary, Grant, Hooks } from "@effect-ahp/harness"
import { Arbitraries, type HookEffect, type JsonRpc } from "@effect-ahp/protocol"
import { assert, it } from "@effect/vitest"
import { Effect } from "effect"

// Effects valid at tool.before and granted there: the public arbitraries draw them.
const granted = Grant.boundaryCapabilities(Boundary.of("tool.before"), 3)
const answers = Arbitraries.effects("tool.before", granted, { maxLength: 3 })

// An in-process backend answering every request with the same effects.
const answering = (effects: ReadonlyArray<HookEffect.HookEffect>): JsonRpc.InProcessBackend => ({
  request: (message) => Effect.succeed(Arbitraries.response(message.id!, effects)),
  notify: () => Effect.void
})

const registration = {
  protocolVersion: "draft",
  hooks: ["com.example.first", "com.example.second"].map((id) => ({
    id,
    transport: { type: "http", url: `https://${id}.invalid/hooks` },
    subscriptions: [{
      mode: "intercept",
      events: ["tool.before"],
      timeoutMs: 1000,
      failurePolicy: "fail-open",
      content: { default: "body" }
    }]
  }))
}

const denies = (effects: ReadonlyArray<HookEffect.HookEffect>) => effects.some((e) => e.type === "deny")
const stops = (effects: ReadonlyArray<HookEffect.HookEffect>) =>
  denies(effects) || effects.some((e) => e.type === "flow" && e.operation === "stop")

// "Any deny ⇒ deny" is false: once the first backend stops the flow, the second one's
// deny is never asked for. The law: deny exactly when an interceptor that was reached denied.
export const denyLaw = () =>
  it.effect.prop(
    "deny exactly when a reached interceptor denied",
    [answers, answers],
    ([first, second]) =>
      Effect.gen(function*() {
        const hooks = yield* Hooks.Hooks
        const { decision } = yield* hooks.dispatch("tool.before", {
          session: { id: "session-1" },
          tool: { name: "bash", input: { command: "ls" }, origin: "native" },
          call: { id: "call-1" },
          path: "main"
        })
        const reached = stops(first) ? [first] : [first, second]
        assert.strictEqual(decision.permission === "deny", reached.some(denies))
      }).pipe(Effect.provide(Hooks.layerTest(registration, {
        "com.example.first": answering(first),
        "com.example.second": answering(second)
      }))),
    { fastCheck: { numRuns: 40 } }
  )
