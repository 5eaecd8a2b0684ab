/**
 * One-line descriptions for people: text collapsed to one line and cut with an ellipsis at
 * its bound, controls escaped; the tool call, prompt or output an event carries; each
 * effect kind; the capabilities a step advertises.
 */
import type { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import * as Brief from "../src/Brief.js"

const says = (text: string) => [{ role: "user", parts: [{ type: "text", text }] }]

describe("Brief", () => {
  it("clip: one line, at most max characters with an ellipsis, controls escaped", () => {
    assert.strictEqual(Brief.clip("  a\n\tb   c  "), "a b c")
    assert.strictEqual(Brief.clip("x".repeat(60)), "x".repeat(60))
    assert.strictEqual(Brief.clip("x".repeat(61)), `${"x".repeat(59)}…`)
    assert.strictEqual(Brief.clip("abcdef", 4), "abc…")
    assert.strictEqual(Brief.clip("\u001b[2Jhi"), "\\u{1b}[2Jhi")
  })

  it("textOf: the text parts of a message list, joined", () => {
    assert.strictEqual(Brief.textOf([...says("one"), { parts: [{ type: "data" }, { text: "two" }] }, 7]), "one two")
    assert.strictEqual(Brief.textOf({ parts: [] }), "")
    assert.strictEqual(Brief.textOf(undefined), "")
  })

  it("event: the tool call, its output, the prompt", () => {
    const tool = (input: Json.JsonObject): Json.JsonObject => ({ type: "tool.before", tool: { name: "bash", input } })
    assert.strictEqual(Brief.event(tool({ command: "ls -la" })), "bash: ls -la")
    assert.strictEqual(Brief.event(tool({ command: ["git", "status"] })), "bash: git status")
    assert.strictEqual(Brief.event(tool({ path: "/etc/passwd" })), "bash: /etc/passwd")
    assert.strictEqual(Brief.event(tool({ q: 1 })), "bash {\"q\":1}")
    assert.strictEqual(
      Brief.event({ type: "tool.after", tool: { name: "bash", input: { command: "ls" } }, items: says("a.txt") }),
      "bash: ls → \"a.txt\""
    )
    assert.strictEqual(Brief.event({ type: "tool.after", tool: { name: "bash", input: {} } }), "bash {} → (no output)")
    assert.strictEqual(Brief.event({ type: "turn.start", message: { messages: says("hello") } }), "\"hello\"")
    assert.strictEqual(Brief.event({ type: "turn.end", items: says("done") }), "\"done\"")
    assert.strictEqual(Brief.event({ type: "session.start" }), "session.start")
    assert.strictEqual(Brief.event({}), "event")
  })

  it("effect: each kind in a line", () => {
    assert.strictEqual(Brief.effect({ type: "deny", reason: "no", code: "E1" }), "deny \"no\" (E1)")
    assert.strictEqual(
      Brief.effect({ type: "modify", target: "tool.input", operation: "merge" }),
      "modify tool.input (merge)"
    )
    assert.strictEqual(
      Brief.effect({ type: "inject", deliverAt: "next-turn", value: says("note") }),
      "inject context (next-turn): \"note\""
    )
    assert.strictEqual(Brief.effect({ type: "message", text: "hi" }), "message \"hi\"")
    assert.strictEqual(Brief.effect({ type: "return", value: { a: 1 } }), "return {\"a\":1}")
    assert.strictEqual(Brief.effect({ type: "flow", operation: "stop", reason: "r" }), "flow stop \"r\"")
    assert.strictEqual(Brief.effect({ type: "custom" }), "custom")
    assert.strictEqual(Brief.effect("odd"), "\"odd\"")
  })

  it("capabilities: the effect kinds, modify with its targets", () => {
    assert.strictEqual(
      Brief.capabilities({ effects: ["deny", "modify"], modify: { "tool.input": {}, output: {} } }),
      "deny modify(tool.input,output)"
    )
    assert.strictEqual(Brief.capabilities({ effects: [] }), "nothing")
    assert.strictEqual(Brief.capabilities(undefined), "nothing")
  })
})
