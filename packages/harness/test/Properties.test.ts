import { Hooks, Transport } from "@effect-ahp/harness"
import { Json, type JsonRpc } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Supervisor } from "effect"
import { answer, backends, intercept, observe, registration, toolBefore, withHooks } from "./support.js"

type Step = { readonly kind: "merge"; readonly value: Json.JsonObject } | {
  readonly kind: "rejected"
  readonly value: Json.JsonObject
} | {
  readonly kind: "fail"
} | { readonly kind: "hang" }

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.dictionary(fc.constantFrom("a", "b", "command"), fc.integer({ min: 0, max: 9 }), { minKeys: 1 }).map((value) => ({
    kind: "merge" as const,
    value
  })),
  fc.dictionary(fc.constantFrom("a", "b", "command"), fc.integer({ min: 0, max: 9 }), { minKeys: 1 }).map((value) => ({
    kind: "rejected" as const,
    value
  })),
  fc.constant<Step>({ kind: "fail" }),
  fc.constant<Step>({ kind: "hang" })
)

const ids = (n: number) => Array.from({ length: n }, (_, i) => `com.example.b${i}`)

const scripted = (
  steps: ReadonlyArray<Step>,
  record: (id: string, message: any) => void,
  extra: Record<string, JsonRpc.InProcessBackend<Transport.TransportError>> = {}
) => {
  let inFlight = 0
  let maxInFlight = 0
  const table: Record<string, JsonRpc.InProcessBackend<Transport.TransportError>> = {}
  ids(steps.length).forEach((id, i) => {
    const step = steps[i]!
    table[id] = {
      request: (message) =>
        Effect.gen(function*() {
          inFlight++
          maxInFlight = Math.max(maxInFlight, inFlight)
          record(id, message)
          yield* Effect.yieldNow()
          if (step.kind === "fail") {
            return yield* Effect.fail(new Transport.TransportError({ reason: "io", detail: "broken" }))
          }
          if (step.kind === "hang") return yield* Effect.never
          const modify: Json.JsonObject = { type: "modify", target: "input", operation: "merge", value: step.value }
          const effects = step.kind === "merge" ? [modify] : [modify, { type: "allow", bogus: true }]
          return { jsonrpc: "2.0", id: message.id as Json.JsonValue, result: { protocolVersion: "draft", effects } }
        }).pipe(Effect.ensuring(Effect.sync(() => inFlight--))),
      notify: (message) => Effect.sync(() => record(id, message))
    }
  })
  table["com.example.observer"] = {
    request: () => Effect.never,
    notify: (message) => Effect.sync(() => record("com.example.observer", message))
  }
  Object.assign(table, extra)
  return { layer: Transport.layerInProcess(table), maxInFlight: () => maxInFlight }
}

/**
 * Only a hanging backend's deadline is short: a deadline is absolute, so on a loaded
 * machine a 20 ms one could also expire while a prompt answer is being processed.
 */
const regFor = (steps: ReadonlyArray<Step>) =>
  registration([
    ...ids(steps.length).map((id, i) => ({
      id,
      subscriptions: [intercept(["tool.before"], { timeoutMs: steps[i]!.kind === "hang" ? 20 : 10_000 })]
    })),
    { id: "com.example.observer", subscriptions: [observe(["tool.before"])] }
  ])

describe("chain properties", () => {
  it.live.prop(
    "serial order and effective content: each backend sees exactly what its predecessors had accepted, one at a time",
    [fc.array(stepArb, { minLength: 1, maxLength: 5 })],
    ([steps]) =>
      Effect.gen(function*() {
        const seen: Array<{ id: string; input: Json.JsonObject; method: string }> = []
        const { layer, maxInFlight } = scripted(steps, (id, m) =>
          seen.push({ id, input: m.params.event.tool.input, method: m.method }))
        const result = yield* withHooks(
          regFor(steps),
          layer,
          Hooks.dispatch("tool.before", toolBefore({ command: "ls" }))
        )
        const intercepts = seen.filter((s) =>
          s.method === "hooks/intercept"
        )
        assert.deepStrictEqual(intercepts.map((s) => s.id), ids(steps.length))
        assert.strictEqual(maxInFlight(), 1)
        let expected: Json.JsonObject = { command: "ls" }
        steps.forEach((step, i) => {
          assert.deepStrictEqual(intercepts[i]!.input, expected)
          if (step.kind === "merge") expected = { ...expected, ...step.value }
        })
        assert.deepStrictEqual((result.event.tool as any).input, expected)
        const observed = seen.filter((s) => s.method === "hooks/observe")
        assert.deepStrictEqual(observed.map((s) => s.id), ["com.example.observer"])
        assert.deepStrictEqual(observed[0]!.input, expected)
        assert.strictEqual(result.errors.length, steps.filter((s) => s.kind !== "merge").length)
      }),
    { fastCheck: { numRuns: 25 } }
  )

  it.live.prop(
    "no fiber outlives a dispatch, whatever the backends do",
    [fc.array(stepArb, { minLength: 1, maxLength: 4 }), fc.boolean()],
    ([steps, slowObserver]) =>
      Effect.gen(function*() {
        const slow: JsonRpc.InProcessBackend<Transport.TransportError> = {
          request: () => Effect.never,
          notify: () => Effect.never
        }
        const { layer } = scripted(steps, () => {}, { "com.example.slow": slow })
        const reg = registration([
          ...ids(steps.length).map((id) => ({ id, subscriptions: [intercept(["tool.before"], { timeoutMs: 20 })] })),
          { id: slowObserver ? "com.example.slow" : "com.example.observer", subscriptions: [observe(["tool.before"])] }
        ])
        const supervisor = yield* Supervisor.track
        const run = withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore()), { observationTimeoutMs: 20 })
        yield* Effect.supervised(run, supervisor)
        const live = yield* supervisor.value
        assert.deepStrictEqual(live.length, 0)
      }),
    { fastCheck: { numRuns: 15 } }
  )

  const memberArb = fc.dictionary(
    fc.constantFrom("command", "x"),
    fc.constantFrom<Json.JsonValue>(1, 2, "ls", null)
  ) as fc.Arbitrary<
    Json.JsonObject
  >
  const editArb = fc.tuple(fc.constantFrom("merge", "replace"), memberArb)

  it.effect.prop(
    "authorization binding: an earlier allow and candidate survive a response exactly when its net edit is the identity",
    [memberArb, fc.array(editArb, { minLength: 1, maxLength: 5 }), fc.boolean()],
    ([input, edits, undo]) => {
      // With `undo`, the response ends by restoring the input (its members in reverse order).
      const all = undo ? [...edits, ["replace", Object.fromEntries(Object.entries(input).reverse())] as const] : edits
      const { layer } = backends({
        "com.example.approve": answer({ type: "allow" }, { type: "return", value: { cached: true } }),
        "com.example.edit": answer(
          ...all.map(([operation, value]) => ({ type: "modify", target: "input", operation, value }))
        )
      })
      const reg = registration([
        { id: "com.example.approve", subscriptions: [intercept(["tool.before"])] },
        { id: "com.example.edit", subscriptions: [intercept(["tool.before"])] }
      ])
      return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore(input))).pipe(Effect.map((result) => {
        const after = (result.event.tool as Json.JsonObject).input as Json.JsonObject
        const identity = Json.equals(input, after)
        if (undo) assert.isTrue(identity)
        assert.strictEqual(result.decision.permission, identity ? "allow" : "none")
        assert.deepStrictEqual(result.decision.candidate?.value, identity ? { cached: true } : undefined)
      }))
    },
    { fastCheck: { numRuns: 100 } }
  )
})
