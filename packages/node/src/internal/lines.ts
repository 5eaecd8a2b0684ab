/**
 * Byte-level newline framing with a hard line-size cap. Lines are split on the newline
 * byte before any decoding, so a multi-byte UTF-8 sequence split across chunks is
 * reassembled intact, and bytes beyond the cap are dropped instead of buffered.
 *
 * @internal
 */

/** @internal */
export type Frame =
  | { readonly _tag: "Line"; readonly bytes: Uint8Array }
  | { readonly _tag: "Oversized" }

const newline = 0x0a

const line = (bytes: Uint8Array): Frame => ({ _tag: "Line", bytes })

const oversized: Frame = { _tag: "Oversized" }

const concat = (parts: ReadonlyArray<Uint8Array>, size: number): Uint8Array => {
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
 * A stateful splitter: `push` returns the frames completed by a chunk, `end` the final
 * unterminated line (if any). A line longer than `maxLineBytes` yields one `Oversized`
 * frame as soon as the cap is crossed; the rest of that line is skipped.
 *
 * @internal
 */
export interface Splitter {
  readonly push: (chunk: Uint8Array) => Array<Frame>
  readonly end: () => Array<Frame>
}

/** @internal */
export const makeSplitter = (maxLineBytes: number): Splitter => {
  let parts: Array<Uint8Array> = []
  let size = 0
  let skipping = false
  const reset = () => {
    parts = []
    size = 0
  }
  const append = (piece: Uint8Array, out: Array<Frame>) => {
    if (skipping || piece.length === 0) return
    if (size + piece.length > maxLineBytes) {
      skipping = true
      reset()
      out.push(oversized)
      return
    }
    parts.push(piece)
    size += piece.length
  }
  return {
    push: (chunk) => {
      const out: Array<Frame> = []
      let start = 0
      for (;;) {
        const index = chunk.indexOf(newline, start)
        if (index === -1) {
          append(chunk.subarray(start), out)
          return out
        }
        append(chunk.subarray(start, index), out)
        if (!skipping) out.push(line(concat(parts, size)))
        skipping = false
        reset()
        start = index + 1
      }
    },
    end: () => {
      const out = skipping || size === 0 ? [] : [line(concat(parts, size))]
      skipping = false
      reset()
      return out
    }
  }
}
