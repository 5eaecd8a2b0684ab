/**
 * The event a payload names when the payload itself cannot be used: read from the
 * top-level members only (never from inside a string or a nested value), the last
 * occurrence winning as with `JSON.parse`, up to where the text ends or breaks; and, on any
 * JSON object, the same answer as parsing it.
 */
import { HostEvents } from "@effect-ahp/hosts"
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as PayloadEvent from "../src/internal/payloadEvent.js"

describe("PayloadEvent.nameOfText", () => {
  it("reads hook_event_name, else type, among the top-level members", () => {
    assert.strictEqual(PayloadEvent.nameOfText("{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{"), "PreToolUse")
    assert.strictEqual(
      PayloadEvent.nameOfText("\uFEFF \n{ \"type\" : \"agent-turn-complete\" }"),
      "agent-turn-complete"
    )
    assert.strictEqual(PayloadEvent.nameOfText("{\"type\":\"a\",\"hook_event_name\":\"Stop\"}"), "Stop")
    assert.strictEqual(PayloadEvent.nameOfText("{\"hook_event_name\":\"Pre\\u0054oolUse\"}"), "PreToolUse")
  })

  it("never from inside a string or a nested value; the last occurrence wins", () => {
    assert.isUndefined(PayloadEvent.nameOfText("{\"a\":\"\\\"hook_event_name\\\":\\\"Stop\\\"\"}"))
    assert.isUndefined(PayloadEvent.nameOfText("{\"a\":{\"hook_event_name\":\"Stop\"},\"b\":[{\"type\":\"x\"}]}"))
    assert.strictEqual(
      PayloadEvent.nameOfText(
        "{\"hook_event_name\":\"Stop\",\"x\":[1,{\"y\":\"]}\"}],\"hook_event_name\":\"PreToolUse\""
      ),
      "PreToolUse"
    )
    assert.strictEqual(PayloadEvent.nameOfText("{\"hook_event_name\":7,\"type\":\"t\"}"), "t", "only a string names")
    assert.strictEqual(
      PayloadEvent.nameOfText("{\"hook_event_name\":\"PreToolUse\",\"type\":\"t\",\"hook_event_name\":null}"),
      "t",
      "a later member that is not a string replaces an earlier string, as in the parse"
    )
  })

  it("keeps what it found before the text ends or breaks; nothing from what is not an object", () => {
    assert.strictEqual(PayloadEvent.nameOfText("{\"hook_event_name\":\"Stop\",\"tool\":\"unterminated"), "Stop")
    assert.strictEqual(PayloadEvent.nameOfText("{\"hook_event_name\":\"Stop\" oops \"type\":\"x\"}"), "Stop")
    assert.isUndefined(PayloadEvent.nameOfText("{\"hook_event_name\":\"Sto"))
    assert.isUndefined(PayloadEvent.nameOfText("[\"hook_event_name\",\"Stop\"]"))
    assert.isUndefined(PayloadEvent.nameOfText(""))
  })

  it("on a JSON object, the name HostEvents.nameOf reads from its parse", () => {
    const key = FastCheck.constantFrom("hook_event_name", "type", "tool_input", "cwd")
    const payload = FastCheck.array(FastCheck.tuple(key, FastCheck.jsonValue({ maxDepth: 3 })), { maxLength: 6 })
    FastCheck.assert(
      FastCheck.property(payload, (members) => {
        const text = `{${members.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`
        assert.strictEqual(PayloadEvent.nameOfText(text), HostEvents.nameOf(JSON.parse(text)), text)
      })
    )
  })
})
