import { Settlement } from "@effect-ahp/harness"
import type { HookEffect } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"

const provenance = (n: number): Settlement.Provenance => ({
  backend: "com.example.b",
  subscription: String(n),
  requestId: "evt_1"
})

const effectArb: fc.Arbitrary<HookEffect.HookEffect> = fc.oneof(
  fc.constant<HookEffect.HookEffect>({ type: "allow" }),
  fc.constant<HookEffect.HookEffect>({ type: "ask" }),
  fc.string({ minLength: 1, maxLength: 5 }).map((reason): HookEffect.HookEffect => ({ type: "deny", reason })),
  fc.string({ maxLength: 5 }).map((text): HookEffect.HookEffect => ({ type: "message", text })),
  fc.jsonValue({ maxDepth: 1 }).map((value): HookEffect.HookEffect => ({ type: "return", value: value as any })),
  fc.string({ minLength: 1, maxLength: 5 }).map((reason): HookEffect.HookEffect => ({
    type: "flow",
    operation: "stop",
    reason
  })),
  fc.option(fc.string({ minLength: 1, maxLength: 5 }), { nil: undefined }).map((instruction): HookEffect.HookEffect =>
    instruction === undefined
      ? { type: "flow", operation: "continue" }
      : { type: "flow", operation: "continue", instruction }
  )
)

const responseArb = fc.record({
  effects: fc.array(effectArb, { maxLength: 4 }),
  operationChanged: fc.boolean()
})

const run = (responses: ReadonlyArray<Settlement.StagedResponse>, start = Settlement.initial()) =>
  responses.reduce((state, r, i) => Settlement.accept(state, r, provenance(i)), start)

describe("Settlement", () => {
  it.prop("deny is absorbing: once denied, no later response lifts it", [
    responseArb,
    fc.array(responseArb, { maxLength: 5 })
  ], ([first, rest]) => {
    const denied = Settlement.accept(Settlement.initial(), {
      effects: [...first.effects, { type: "deny", reason: "no" }],
      operationChanged: first.operationChanged
    }, provenance(0))
    const after = run(rest, denied)
    assert.strictEqual(after.permission, "deny")
    assert.strictEqual(Settlement.settle(after).permission, "deny")
    assert.isUndefined(Settlement.settle(after).candidate)
  })

  it.prop("ask is never lowered by a later allow", [fc.array(responseArb, { maxLength: 5 })], ([rest]) => {
    const asked = Settlement.accept(
      Settlement.initial(),
      { effects: [{ type: "ask" }], operationChanged: false },
      provenance(0)
    )
    const after = run(rest.map((r) => ({ ...r, effects: r.effects.filter((e) => e.type !== "deny") })), asked)
    assert.strictEqual(after.permission, "ask")
  })

  it.prop("the decision does not depend on where no-op responses are inserted", [
    fc.array(responseArb, { maxLength: 5 }),
    fc.array(fc.nat(6), { maxLength: 4 })
  ], ([responses, positions]) => {
    const withNoOps = [...responses]
    for (const p of positions) {
      withNoOps.splice(Math.min(p, withNoOps.length), 0, { effects: [], operationChanged: false })
    }
    const strip = (d: Settlement.Decision) => ({
      ...d,
      effects: d.effects.map((a) => a.effect),
      denial: d.denial?.reason,
      candidate: d.candidate?.value
    })
    assert.deepStrictEqual(strip(Settlement.settle(run(withNoOps))), strip(Settlement.settle(run(responses))))
  })

  it.prop("permission is the maximum of deny > ask > allow > none over accepted effects", [
    fc.array(responseArb, { maxLength: 6 })
  ], ([responses]) => {
    const rank = { none: 0, allow: 1, ask: 2, deny: 3 } as const
    let expected: keyof typeof rank = "none"
    for (const r of responses) {
      if (r.operationChanged && expected === "allow") expected = "none"
      for (const e of r.effects) {
        if ((e.type === "deny" || e.type === "ask" || e.type === "allow") && rank[e.type] > rank[expected]) {
          expected = e.type
        }
      }
    }
    assert.strictEqual(run(responses).permission, expected)
  })

  it("no effect is not permission", () => {
    const decision = Settlement.settle(run([{ effects: [], operationChanged: false }]))
    assert.strictEqual(decision.permission, "none")
    assert.isUndefined(decision.candidate)
  })

  it("a changed operation invalidates an earlier candidate and an earlier allow, not its own", () => {
    const state = run([
      { effects: [{ type: "allow" }, { type: "return", value: 1 }], operationChanged: false },
      { effects: [{ type: "message", text: "rewrote input" }], operationChanged: true }
    ])
    assert.strictEqual(state.permission, "none")
    assert.isUndefined(state.candidate)
    const own = run([{ effects: [{ type: "allow" }, { type: "return", value: 2 }], operationChanged: true }])
    assert.strictEqual(own.permission, "allow")
    assert.deepStrictEqual(own.candidate?.value, 2)
  })

  it("a later return replaces the candidate, and a null value is a real candidate", () => {
    const state = run([
      { effects: [{ type: "return", value: "first" }], operationChanged: false },
      { effects: [{ type: "return", value: null }], operationChanged: false }
    ])
    const decision = Settlement.settle(state)
    assert.isDefined(decision.candidate)
    assert.strictEqual(decision.candidate!.value, null)
    assert.deepStrictEqual(decision.effects.filter((a) => a.effect.type === "return").map((a) => a.effect), [{
      type: "return",
      value: null
    }])
  })

  it("stop beats continue in either order; instructions are kept but no allowance is consumed", () => {
    for (const order of [["continue", "stop"], ["stop", "continue"]] as const) {
      const effects: Array<HookEffect.HookEffect> = order.map((op) =>
        op === "stop"
          ? { type: "flow", operation: "stop", reason: "halt" }
          : { type: "flow", operation: "continue", instruction: "more" }
      )
      const decision = Settlement.settle(run([{ effects, operationChanged: false }]))
      assert.strictEqual(decision.flow, "stop")
      assert.strictEqual(decision.continuationsConsumed, 0)
      assert.deepStrictEqual(decision.instructions, ["more"])
      assert.isFalse(decision.effects.some((a) => a.effect.type === "flow" && a.effect.operation === "continue"))
    }
  })

  it("continue instructions accumulate in order and consume one allowance", () => {
    const decision = Settlement.settle(run([
      {
        effects: [{ type: "flow", operation: "continue", instruction: "a" }, {
          type: "flow",
          operation: "continue",
          instruction: "b"
        }],
        operationChanged: false
      },
      { effects: [{ type: "flow", operation: "continue", instruction: "c" }], operationChanged: false }
    ]))
    assert.strictEqual(decision.flow, "continue")
    assert.deepStrictEqual(decision.instructions, ["a", "b", "c"])
    assert.strictEqual(decision.continuationsConsumed, 1)
  })

  it("fail-closed adds a synthetic denial that is clearly marked", () => {
    const state = Settlement.failClosed(Settlement.initial(), provenance(3))
    const decision = Settlement.settle(state)
    assert.strictEqual(decision.permission, "deny")
    assert.isTrue(decision.denial?.synthetic)
    assert.strictEqual(decision.denial?.reason, Settlement.syntheticDenialReason)
  })

  it("interruption never grants execution and never adds a denial", () => {
    const state = run([{
      effects: [{ type: "allow" }, { type: "return", value: 1 }, { type: "flow", operation: "continue" }],
      operationChanged: false
    }])
    const decision = Settlement.settle(state, { interrupted: true })
    assert.strictEqual(decision.permission, "none")
    assert.isUndefined(decision.candidate)
    assert.strictEqual(decision.flow, "none")
    assert.isUndefined(decision.denial)
  })

  it("incoming state seeds the pending state", () => {
    const state = Settlement.initial({
      permission: "ask",
      candidate: { value: null },
      flow: "none",
      instructions: ["x"]
    })
    assert.strictEqual(state.permission, "ask")
    assert.strictEqual(state.candidate?.value, null)
    assert.deepStrictEqual(state.instructions, ["x"])
  })
})
