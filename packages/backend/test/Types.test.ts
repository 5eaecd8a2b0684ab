/**
 * Boundary-typed backends, checked by the compiler (`pnpm check` type-checks this file; an
 * unused `@ts-expect-error` is an error): an intercept handler's result is typed by its
 * event's boundary (`Backend.EffectAt<T>`), so an effect kind, modify target, value type or
 * flow operation the boundary does not accept does not compile. `interceptAny` is the
 * explicit untyped entry.
 */
import { Backend } from "@effect-ahp/backend"
import { Arbitraries, type Capabilities, type HookEffect, type Json } from "@effect-ahp/protocol"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Effect, FastCheck, Layer } from "effect"

const messages = [{
  id: "m1",
  role: "tool" as const,
  parts: [{ id: "p1", kind: "text" as const, mediaType: "text/plain" as const, selection: "body" as const, text: "ok" }]
}]

describe("Backend.intercept: the handler result is typed by the boundary", () => {
  it("accepts what the boundary accepts", () => {
    const layers = [
      Backend.intercept("tool.before", () =>
        Effect.succeed([
          { type: "deny" as const, reason: "no" },
          { type: "modify" as const, target: "input" as const, operation: "merge" as const, value: { command: "ls" } }
        ])),
      Backend.intercept(
        "tool.after",
        () =>
          Effect.succeed([{
            type: "modify" as const,
            target: "output" as const,
            operation: "replace" as const,
            value: messages
          }])
      ),
      Backend.intercept(
        "turn.finish.before",
        () => Effect.succeed([{ type: "flow" as const, operation: "continue" as const }])
      )
    ]
    expectTypeOf<Backend.EffectAt<"tool.after">["type"]>().toEqualTypeOf<"modify" | "inject" | "flow" | "message">()
    expectTypeOf<Extract<Backend.EffectAt<"tool.before">, { type: "modify" }>["target"]>().toEqualTypeOf<"input">()
    expectTypeOf<Extract<Backend.EffectAt<"tool.before">, { type: "modify" }>["value"]>().toEqualTypeOf<
      Json.JsonObject
    >()
    assert.isTrue(layers.every(Layer.isLayer))
  })

  it("rejects modify(output) at tool.before", () => {
    const layer = Backend.intercept("tool.before", () =>
      // @ts-expect-error: tool.before has no output target
      Effect.succeed([{
        type: "modify" as const,
        target: "output" as const,
        operation: "replace" as const,
        value: messages
      }]))
    assert.isTrue(Layer.isLayer(layer))
  })

  it("rejects modify(input) with a string value", () => {
    const layer = Backend.intercept("tool.before", () =>
      // @ts-expect-error: modify(input) takes an object
      Effect.succeed([{
        type: "modify" as const,
        target: "input" as const,
        operation: "replace" as const,
        value: "rm -rf /"
      }]))
    assert.isTrue(Layer.isLayer(layer))
  })

  it("rejects allow at tool.after", () => {
    // @ts-expect-error: allow is not an effect of tool.after
    const layer = Backend.intercept("tool.after", () => Effect.succeed([{ type: "allow" as const }]))
    assert.isTrue(Layer.isLayer(layer))
  })

  it("rejects flow continue where the boundary only stops", () => {
    const effects = [{ type: "flow" as const, operation: "continue" as const }]
    // @ts-expect-error: tool.before's flow operations are stop only
    const layer = Backend.intercept("tool.before", () => Effect.succeed(effects))
    assert.isTrue(Layer.isLayer(layer))
  })

  it("interceptAny takes any wire effect, explicitly", () => {
    const anything: ReadonlyArray<HookEffect.HookEffect> = [{ type: "allow" }]
    const layer = Backend.interceptAny("tool.after", () => Effect.succeed(anything))
    // @ts-expect-error: the typed entry does not take untyped effects
    const typed = Backend.intercept("tool.after", () => Effect.succeed(anything))
    assert.isTrue(Layer.isLayer(layer) && Layer.isLayer(typed))
  })
})

describe("Arbitraries.effects: typed by the boundary", () => {
  it("draws EffectAt<T> and, at run time, only kinds the boundary accepts, whatever the capabilities say", () => {
    const granted: Capabilities.Capabilities = {
      effects: ["deny", "allow", "modify", "inject", "flow", "message"],
      modify: { output: { replace: true, merge: true } },
      flow: { operations: ["stop", "continue"], remainingContinuations: 1, continuationCount: 0 },
      inject: { context: { append: true, deliverAt: ["now", "next_turn"] } }
    }
    const drawn = Arbitraries.effects("tool.after", granted)
    expectTypeOf(drawn).toEqualTypeOf<FastCheck.Arbitrary<Array<Backend.EffectAt<"tool.after">>>>()
    const kinds = new Set(FastCheck.sample(drawn, { numRuns: 200, seed: 7 }).flat().map((effect) => effect.type))
    assert.isTrue(kinds.size > 0)
    for (const kind of kinds) assert.include(["modify", "inject", "flow", "message"], kind)
  })
})
