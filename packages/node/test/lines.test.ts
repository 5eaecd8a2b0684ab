import { assert, describe, it } from "@effect/vitest"
import { makeSplitter } from "../src/internal/lines.js"
import type { Frame } from "../src/internal/lines.js"

const bytes = (text: string) => new TextEncoder().encode(text)
const utf8 = new TextDecoder("utf-8", { fatal: true })
const decode = (frame: Frame) => frame._tag === "Line" ? utf8.decode(frame.bytes) : "<oversized>"

describe("lines", () => {
  it("splits on newline bytes and keeps multi-byte characters split across chunks intact", () => {
    const input = bytes("{\"t\":\"é€😀\"}\n{\"u\":1}\n")
    for (let cut = 0; cut <= input.length; cut++) {
      for (let cut2 = cut; cut2 <= input.length; cut2++) {
        const splitter = makeSplitter(1024)
        const frames = [
          ...splitter.push(input.subarray(0, cut)),
          ...splitter.push(input.subarray(cut, cut2)),
          ...splitter.push(input.subarray(cut2)),
          ...splitter.end()
        ]
        assert.deepStrictEqual(frames.map(decode), ["{\"t\":\"é€😀\"}", "{\"u\":1}"], `cuts ${cut}/${cut2}`)
      }
    }
  })

  it("reports an oversized line once, skips the rest of it and recovers on the next line", () => {
    const splitter = makeSplitter(8)
    const frames = [
      ...splitter.push(bytes("0123")),
      ...splitter.push(bytes("456789")),
      ...splitter.push(bytes("abcdef".repeat(100))),
      ...splitter.push(bytes("\nok\n"))
    ]
    assert.deepStrictEqual(frames.map(decode), ["<oversized>", "ok"])
  })

  it("accepts a line of exactly the cap, and flushes an unterminated last line at the end", () => {
    const splitter = makeSplitter(4)
    assert.deepStrictEqual(splitter.push(bytes("abcd\nxy")).map(decode), ["abcd"])
    assert.deepStrictEqual(splitter.end().map(decode), ["xy"])
    assert.deepStrictEqual(splitter.end(), [])
  })

  it("yields empty lines as lines (they are not JSON, so the caller rejects them)", () => {
    const splitter = makeSplitter(4)
    assert.deepStrictEqual(splitter.push(bytes("\n\n")).map(decode), ["", ""])
  })
})
