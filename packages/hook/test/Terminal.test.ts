/**
 * Untrusted text made safe for a terminal: every C0 and C1 control, DEL, the bidi
 * embeddings, overrides and isolates and the line and paragraph separators shown as
 * escapes (newlines kept only where text has lines), everything else untouched; JSON text
 * escaped so that it decodes to the same value.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import * as Terminal from "../src/Terminal.js"

const unsafe = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
  0x2028,
  0x2029,
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069
]

describe("Terminal", () => {
  it("line escapes every unsafe code point, and nothing else", () => {
    for (const code of unsafe) {
      const c = String.fromCharCode(code)
      assert.strictEqual(Terminal.line(`a${c}b`), `a\\u{${code.toString(16)}}b`, code.toString(16))
    }
    const safe = "plain text, é, 日本, 🙂, \u00a0, \u200f, \u2065, \u206a"
    assert.strictEqual(Terminal.line(safe), safe)
    assert.strictEqual(Terminal.line("\u001b[2J\u001b]8;;http://x\u0007"), "\\u{1b}[2J\\u{1b}]8;;http://x\\u{7}")
  })

  it("lines keeps newlines and escapes the rest, a carriage return included", () => {
    assert.strictEqual(Terminal.lines("one\ntwo\r\n\u009b31m"), "one\ntwo\\u{d}\n\\u{9b}31m")
  })

  it("json escapes what a terminal would act on and keeps the value", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.jsonValue(),
        FastCheck.constantFrom(...unsafe.filter((c) => c >= 0x7f)),
        (value, code) => {
          const text = JSON.stringify([value, `x${String.fromCharCode(code)}`])
          const escaped = Terminal.json(text)
          assert.deepStrictEqual(JSON.parse(escaped), JSON.parse(text))
          assert.notMatch(escaped, /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/)
        }
      )
    )
  })
})
