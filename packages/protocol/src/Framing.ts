/**
 * The stdio framing of AHP (AHP-STDIO-001): every message is one compact JSON text
 * followed by a newline byte. Lines are split on the newline byte before any decoding,
 * so a multi-byte UTF-8 sequence split across chunks is reassembled intact, and a line
 * longer than the cap is reported as soon as it crosses the cap and skipped without being
 * buffered. Pure: bytes in, frames out; no I/O.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import * as Json from "./Json.js"

/**
 * One complete line, without its newline. It is not decoded: it may be empty, blank or
 * not UTF-8 at all (the consumer decides). Its bytes may share memory with the chunks
 * given to the splitter.
 *
 * @since 0.1.0
 * @category models
 */
export interface Line {
  readonly _tag: "Line"
  readonly bytes: Uint8Array
}

/**
 * A line longer than the cap. Reported once, when the cap is crossed; the rest of that
 * line (up to and including its newline) is dropped.
 *
 * @since 0.1.0
 * @category models
 */
export interface Oversized {
  readonly _tag: "Oversized"
}

/**
 * What the splitter yields.
 *
 * @since 0.1.0
 * @category models
 */
export type Frame = Line | Oversized

/**
 * A stateful line splitter over byte chunks.
 *
 * @since 0.1.0
 * @category models
 */
export interface Splitter {
  /**
   * The frames completed by `chunk`, in order. The splitter keeps views of unfinished
   * lines, so a chunk must not be modified after it was pushed.
   */
  readonly push: (chunk: Uint8Array) => ReadonlyArray<Frame>
  /** At the end of the input: the final line if it had no newline (and was not oversized). */
  readonly end: () => ReadonlyArray<Frame>
}

const newline = 0x0a

const oversized: Oversized = { _tag: "Oversized" }

const none: ReadonlyArray<Frame> = []

const join = (parts: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
  if (parts.length === 1) return parts[0]!
  const out = new Uint8Array(size)
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

/**
 * A splitter accepting lines of at most `maxLineBytes` bytes (the newline not counted).
 * At most `maxLineBytes` bytes of an unfinished line are ever held.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeSplitter = (maxLineBytes: number): Splitter => {
  let parts: Array<Uint8Array> = []
  let size = 0
  let skipping = false
  const take = (): Line => {
    const bytes = join(parts, size)
    parts = []
    size = 0
    return { _tag: "Line", bytes }
  }
  const append = (piece: Uint8Array, out: Array<Frame>) => {
    if (skipping || piece.length === 0) return
    if (size + piece.length > maxLineBytes) {
      parts = []
      size = 0
      skipping = true
      out.push(oversized)
      return
    }
    parts.push(piece)
    size += piece.length
  }
  return {
    push: (chunk) => {
      let index = chunk.indexOf(newline)
      if (index === -1) {
        if (chunk.length === 0 || skipping) return none
        const out: Array<Frame> = []
        append(chunk, out)
        return out
      }
      const out: Array<Frame> = []
      let start = 0
      while (index !== -1) {
        append(chunk.subarray(start, index), out)
        if (skipping) skipping = false
        else out.push(take())
        start = index + 1
        index = chunk.indexOf(newline, start)
      }
      append(chunk.subarray(start), out)
      return out
    },
    end: () => {
      const out = skipping || size === 0 ? none : [take()]
      skipping = false
      return out
    }
  }
}

/**
 * A byte stream split into frames, with a fresh splitter per run: the frames of every
 * chunk, then the final line if the input did not end with a newline.
 *
 * @since 0.1.0
 * @category constructors
 */
export const frames = <E, R>(
  input: Stream.Stream<Uint8Array, E, R>,
  maxLineBytes: number
): Stream.Stream<Frame, E, R> =>
  Stream.suspend(() => {
    const splitter = makeSplitter(maxLineBytes)
    return input.pipe(
      Stream.mapConcat(splitter.push),
      Stream.concat(Stream.suspend(() => Stream.fromIterable(splitter.end())))
    )
  })

const encoder = new TextEncoder()

/**
 * Encodes a message as one line: compact JSON (`Json.encode`, so `LosslessNumber`s are
 * written verbatim) followed by the newline, in UTF-8. A message that cannot be written
 * (nested deeper than `Json.maxDepth`, cyclic, not JSON) is a `JsonEncodeError`.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (message: Json.JsonValue): Either.Either<Uint8Array, Json.JsonEncodeError> =>
  Either.map(encodeText(message), (line) => encoder.encode(line))

/**
 * The line `encode` writes, as text (for writers that encode UTF-8 themselves, such as
 * Node streams).
 *
 * @since 0.1.0
 * @category encoding
 */
export const encodeText = (message: Json.JsonValue): Either.Either<string, Json.JsonEncodeError> =>
  Either.map(Json.encode(message), (text) => `${text}\n`)
