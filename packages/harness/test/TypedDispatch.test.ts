import { DispatchResult, Hooks } from "@effect-ahp/harness"
import type { Event, Json } from "@effect-ahp/protocol"
import { assert, describe, expectTypeOf, it } from "@effect/vitest"
import { Effect } from "effect"
import { answer, backends, intercept, registration, withHooks } from "./support.js"

const A = "com.example.a"

const input = {
  session: { id: "sess_1" },
  tool: { name: "Bash", input: { command: "ls" }, origin: "native" as const },
  call: { id: "call_1" },
  path: "main"
}

describe("typed dispatch", () => {
  it("the input and the effective event are the boundary's event", () => {
    const call = Hooks.dispatch("tool.before", input)
    expectTypeOf(call).toEqualTypeOf<
      Effect.Effect<DispatchResult.DispatchResult<Event.ToolBefore>, Hooks.DispatchError, Hooks.Hooks>
    >()
    expectTypeOf<Effect.Effect.Success<typeof call>["event"]["tool"]>().toEqualTypeOf<Event.ToolBefore["tool"]>()
    expectTypeOf<Event.EventOf<"turn.start">>().toEqualTypeOf<Event.TurnStart>()
    expectTypeOf(Hooks.dispatchUnknown("tool.before", {})).toEqualTypeOf<
      Effect.Effect<DispatchResult.DispatchResult<Json.JsonObject>, Hooks.DispatchError, Hooks.Hooks>
    >()
  })

  it("each boundary's input is named, so compiler messages name it", () => {
    expectTypeOf(Hooks.dispatch<"tool.before">).parameter(1).toEqualTypeOf<Event.ToolBeforeInput>()
    expectTypeOf<Event.InputOf<"tool.before" | "turn.start">>().toEqualTypeOf<
      Event.ToolBeforeInput | Event.TurnStartInput
    >()
    expectTypeOf<Event.ToolBeforeInput["tool"]>().toEqualTypeOf<Event.ToolBefore["tool"]>()
    expectTypeOf<Event.ToolBeforeInput>().toHaveProperty("id")
    // @ts-expect-error the boundary gives the type: an input has none
    expectTypeOf<Event.ToolBeforeInput>().toHaveProperty("type")
  })

  it("a wrongly shaped input does not compile", () => {
    // @ts-expect-error a tool.before input needs a tool
    Hooks.dispatch("tool.before", { session: { id: "s" }, call: { id: "c" }, path: "main" })
    // @ts-expect-error the tool's origin is "native" or "mcp"
    Hooks.dispatch("tool.before", { ...input, tool: { ...input.tool, origin: "elsewhere" } })
    // @ts-expect-error a tool.before input is not a turn.start input
    Hooks.dispatch("turn.start", input)
    // @ts-expect-error an input's type member must be its boundary's
    Hooks.dispatch("tool.before", { ...input, type: "tool.after" })
    // @ts-expect-error not an event type
    Hooks.dispatch("tool.sideways", input)
    assert.ok(true)
  })

  it.effect("result.event is the effective tool.before event, edits applied", () => {
    const { layer } = backends({
      [A]: answer({ type: "modify", target: "input", operation: "replace", value: { command: "pwd" } })
    })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", input)).pipe(Effect.map((result) => {
      assert.strictEqual(result.event.type, "tool.before")
      assert.deepStrictEqual(result.event.tool.input, { command: "pwd" })
      assert.strictEqual(result.event.call.id, "call_1")
    }))
  })
})
