import { Framing, Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Either, FastCheck, Stream } from "effect"

const encoder = new TextEncoder()
const bytes = (text: string) => encoder.encode(text)
const utf8 = new TextDecoder("utf-8", { fatal: true })
const show = (frame: Framing.Frame) => frame._tag === "Line" ? utf8.decode(frame.bytes) : "<oversized>"

/** Pushes the chunks through a fresh splitter and ends it. */
const split = (chunks: ReadonlyArray<Uint8Array>, maxLineBytes = 1024): Array<Framing.Frame> => {
  const splitter = Framing.makeSplitter(maxLineBytes)
  return [...chunks.flatMap((chunk) => splitter.push(chunk)), ...splitter.end()]
}

/** `input` cut at the given offsets (sorted, duplicates allowed: empty chunks). */
const cut = (input: Uint8Array, offsets: ReadonlyArray<number>): Array<Uint8Array> => {
  const points = [...offsets].map((o) => o % (input.length + 1)).sort((a, b) => a - b)
  const chunks: Array<Uint8Array> = []
  let from = 0
  for (const point of points) {
    chunks.push(input.subarray(from, point))
    from = point
  }
  chunks.push(input.subarray(from))
  return chunks
}

/** Frames as comparable values: line bytes as plain arrays. */
const comparable = (frames: ReadonlyArray<Framing.Frame>) =>
  frames.map((frame) => frame._tag === "Line" ? Array.from(frame.bytes) : "oversized")

/** Text with multi-byte characters and (sometimes) newlines, as a byte stream. */
const stream = FastCheck.array(
  FastCheck.oneof(
    FastCheck.constantFrom("\n", "é", "€", "😀", "{\"a\":1}", " "),
    FastCheck.string({ maxLength: 12 })
  ),
  { maxLength: 40 }
).map((parts) => bytes(parts.join("")))

describe("Framing", () => {
  it("splits on the newline byte, keeping multi-byte characters cut across chunks intact", () => {
    const input = bytes("{\"t\":\"é€😀\"}\n{\"u\":1}\n")
    for (let first = 0; first <= input.length; first++) {
      for (let second = first; second <= input.length; second++) {
        const frames = split(cut(input, [first, second]))
        assert.deepStrictEqual(frames.map(show), ["{\"t\":\"é€😀\"}", "{\"u\":1}"], `cuts ${first}/${second}`)
      }
    }
  })

  it("yields empty and blank lines as lines, and a final line without newline at the end", () => {
    const splitter = Framing.makeSplitter(16)
    assert.deepStrictEqual(splitter.push(bytes("\n \r\nab")).map(show), ["", " \r"])
    assert.deepStrictEqual(splitter.end().map(show), ["ab"])
    assert.deepStrictEqual(splitter.end(), [])
    assert.deepStrictEqual(splitter.push(bytes("cd\n")).map(show), ["cd"], "usable again after the end")
  })

  it("accepts a line of exactly the cap", () => {
    assert.deepStrictEqual(split([bytes("abcd\nabcd")], 4).map(show), ["abcd", "abcd"])
  })

  it("reports an oversized line as soon as it crosses the cap, once, and recovers on the next line", () => {
    const splitter = Framing.makeSplitter(8)
    assert.deepStrictEqual(splitter.push(bytes("0123")), [])
    assert.deepStrictEqual(splitter.push(bytes("456789")).map(show), ["<oversized>"], "before its newline arrives")
    assert.deepStrictEqual(splitter.push(bytes("x".repeat(100_000))), [])
    assert.deepStrictEqual(splitter.push(bytes("yz\nok\n01234")).map(show), ["ok"])
    assert.deepStrictEqual(splitter.push(bytes("56789")).map(show), ["<oversized>"])
    assert.deepStrictEqual(splitter.end(), [], "an unterminated oversized line is not reported twice")
  })

  it("encodes a message as one compact JSON line, lossless numbers verbatim", () => {
    const parsed = Json.parse("{\"id\":12345678901234567890,\"text\":\"line\\nbreak é\"}")
    assert.isTrue(parsed._tag === "Right")
    const line = Either.getOrThrow(Framing.encode((parsed as { right: Json.JsonValue }).right))
    assert.strictEqual(utf8.decode(line), "{\"id\":12345678901234567890,\"text\":\"line\\nbreak é\"}\n")
    assert.strictEqual(line.indexOf(0x0a), line.length - 1)
  })

  it("a message nested deeper than Json.maxDepth is an encode error, not a line", () => {
    let deep: Json.JsonValue = []
    for (let i = 0; i < 10_000; i++) deep = [deep]
    const bytes = Framing.encode({ params: { event: deep } })
    const text = Framing.encodeText({ params: { event: deep } })
    assert.isTrue(Either.isLeft(bytes) && bytes.left.reason === "depth")
    assert.isTrue(Either.isLeft(text) && text.left.reason === "depth")
  })

  it.prop("any split of a byte stream into chunks yields the same frames", [
    stream,
    FastCheck.array(FastCheck.nat(), { maxLength: 12 }),
    FastCheck.integer({ min: 1, max: 24 })
  ], ([input, offsets, max]) => {
    assert.deepStrictEqual(comparable(split(cut(input, offsets), max)), comparable(split([input], max)))
  })

  it.prop("lines within the cap come out byte for byte; longer ones are reported as oversized", [
    FastCheck.array(FastCheck.uint8Array({ maxLength: 40 }).map((line) => line.map((b) => b === 0x0a ? 0x20 : b))),
    FastCheck.array(FastCheck.nat(), { maxLength: 12 }),
    FastCheck.integer({ min: 1, max: 32 })
  ], ([lines, offsets, max]) => {
    const joined = new Uint8Array(lines.reduce((n, line) => n + line.length + 1, 0))
    let offset = 0
    for (const line of lines) {
      joined.set(line, offset)
      joined[offset + line.length] = 0x0a
      offset += line.length + 1
    }
    const expected = lines.map((line) => line.length > max ? "oversized" : Array.from(line))
    assert.deepStrictEqual(comparable(split(cut(joined, offsets), max)), expected)
  })
})

describe("Framing.frames", () => {
  it.effect("frames a byte stream like the splitter, a fresh one per run", () =>
    Effect.gen(function*() {
      const frames = Framing.frames(Stream.make(bytes("{\"a\":"), bytes("1}\n\n{\"b\""), bytes(":2}")), 1024)
      for (let run = 0; run < 2; run++) {
        assert.deepStrictEqual(Chunk.toArray(yield* Stream.runCollect(frames)).map(show), [`{"a":1}`, "", `{"b":2}`])
      }
    }))
})
