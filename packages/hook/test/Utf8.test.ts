/**
 * Strict UTF-8 (RFC 3629): every kind of ill-formed sequence is found at the offset where
 * it starts, well-formed text of any code points is accepted, and the offset agrees with
 * Node's own validator on arbitrary bytes; the decoded text skips a byte order mark.
 */
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { isUtf8 } from "node:buffer"
import * as Utf8 from "../src/Utf8.js"

const bytes = (...values: ReadonlyArray<number>) => Uint8Array.from(values)

describe("Utf8", () => {
  it("finds each kind of ill-formed sequence where it starts", () => {
    const cases: ReadonlyArray<readonly [string, Uint8Array, number]> = [
      ["an invalid lead byte", bytes(0x61, 0xff), 1],
      ["a stray continuation byte", bytes(0x61, 0x62, 0x80), 2],
      ["an overlong two-byte form", bytes(0xc0, 0x80), 0],
      ["an overlong two-byte form (C1)", bytes(0x41, 0xc1, 0xbf), 1],
      ["an overlong three-byte form", bytes(0xe0, 0x80, 0x80), 0],
      ["an overlong four-byte form", bytes(0xf0, 0x8f, 0xbf, 0xbf), 0],
      ["a surrogate", bytes(0x61, 0xed, 0xa0, 0x80), 1],
      ["above U+10FFFF", bytes(0xf4, 0x90, 0x80, 0x80), 0],
      ["a lead byte above F4", bytes(0xf5, 0x80, 0x80, 0x80), 0],
      ["a missing continuation byte", bytes(0xe2, 0x82, 0x41), 0],
      ["a sequence cut off by the end", bytes(0x61, 0xf0, 0x9f, 0x98), 1]
    ]
    for (const [what, input, offset] of cases) assert.strictEqual(Utf8.firstInvalidOffset(input), offset, what)
  })

  it("accepts the edges of each range", () => {
    const edges = [0x00, 0x7f, 0x80, 0x7ff, 0x800, 0xd7ff, 0xe000, 0xfffd, 0xffff, 0x10000, 0x10ffff]
    for (const code of edges) {
      assert.isUndefined(Utf8.firstInvalidOffset(Buffer.from(String.fromCodePoint(code), "utf8")), code.toString(16))
    }
    assert.isUndefined(Utf8.firstInvalidOffset(bytes()))
  })

  it("accepts any well-formed text", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.string({ unit: "binary", maxLength: 64 }), (text) => {
        assert.isUndefined(Utf8.firstInvalidOffset(Buffer.from(text, "utf8")))
      })
    )
  })

  it("agrees with Node's validator, and everything before the offset is well-formed", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.uint8Array({ maxLength: 24 }), (input) => {
        const offset = Utf8.firstInvalidOffset(input)
        assert.strictEqual(offset === undefined, isUtf8(input))
        if (offset !== undefined) assert.isTrue(isUtf8(input.subarray(0, offset)))
      }),
      { numRuns: 2_000 }
    )
  })

  it("decodeStrict: the text without its byte order mark, or the first ill-formed byte and its offset", () => {
    assert.deepStrictEqual(Utf8.decodeStrict(Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69])), { text: "hi" })
    assert.deepStrictEqual(Utf8.decodeStrict(Buffer.from("\uFEFF\uFEFFhi", "utf8")), { text: "\uFEFFhi" }, "one mark")
    assert.deepStrictEqual(Utf8.decodeStrict(Buffer.from("né", "utf8")), { text: "né" })
    assert.deepStrictEqual(Utf8.decodeStrict(Buffer.from([0x7b, 0x22, 0x0a, 0x22, 0x3a, 0x22, 0x0f, 0xe9])), {
      invalid: "byte 0xe9 at offset 7"
    })
    assert.deepStrictEqual(Utf8.decodeStrict(Buffer.from([0x03, 0xc0, 0xaf])), { invalid: "byte 0xc0 at offset 1" })
  })
})
