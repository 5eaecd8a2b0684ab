/**
 * Strict UTF-8: where the first byte sequence that is not well-formed UTF-8 (RFC 3629)
 * starts — an invalid lead byte, a missing or stray continuation byte, an overlong form, a
 * surrogate, a code point above U+10FFFF, or a sequence cut off by the end of the input —
 * and the text of a file's bytes, for `Io`'s inputs and the command hook's registration.
 *
 * @internal
 */
import { isUtf8 } from "node:buffer"

const continuation = (byte: number | undefined): boolean => byte !== undefined && byte >= 0x80 && byte <= 0xbf

/**
 * The byte offset of the first ill-formed sequence, or `undefined` when all of `bytes` is
 * well-formed UTF-8.
 *
 * @internal
 */
export const firstInvalidOffset = (bytes: Uint8Array): number | undefined => {
  let i = 0
  while (i < bytes.length) {
    const lead = bytes[i]!
    if (lead < 0x80) {
      i++
      continue
    }
    let length: number
    let low = 0x80
    let high = 0xbf
    if (lead >= 0xc2 && lead <= 0xdf) length = 2
    else if (lead >= 0xe0 && lead <= 0xef) {
      length = 3
      if (lead === 0xe0) low = 0xa0
      if (lead === 0xed) high = 0x9f
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      length = 4
      if (lead === 0xf0) low = 0x90
      if (lead === 0xf4) high = 0x8f
    } else return i
    const second = bytes[i + 1]
    if (second === undefined || second < low || second > high) return i
    for (let k = 2; k < length; k++) if (!continuation(bytes[i + k])) return i
    i += length
  }
  return undefined
}

/**
 * The text of `bytes` (a leading byte-order mark skipped) when they are well-formed UTF-8,
 * else the first ill-formed byte and its offset ("byte 0xff at offset 6").
 *
 * @internal
 */
export const decodeStrict = (bytes: Buffer): { readonly text: string } | { readonly invalid: string } => {
  if (isUtf8(bytes)) {
    const start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0
    return { text: bytes.toString("utf8", start) }
  }
  const offset = firstInvalidOffset(bytes) ?? 0
  return { invalid: `byte 0x${bytes[offset]!.toString(16).padStart(2, "0")} at offset ${offset}` }
}
