/**
 * Reading a request body within a size limit.
 *
 * @internal
 */
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Stream from "effect/Stream"

/**
 * Reads the whole body, keeping at most `max` bytes: none when it is larger (the rest is
 * read and discarded, so the client still gets its answer).
 *
 * @internal
 */
export const readBody = (stream: Stream.Stream<Uint8Array, unknown>, max: number) =>
  Stream.runFold(stream, { parts: [] as Array<Uint8Array>, size: 0 }, (acc, chunk) => {
    const size = acc.size + chunk.length
    if (size <= max) acc.parts.push(chunk)
    return { parts: acc.parts, size }
  }).pipe(
    Effect.map(({ parts, size }) => {
      if (size > max) return Option.none()
      const body = new Uint8Array(size)
      let offset = 0
      for (const part of parts) {
        body.set(part, offset)
        offset += part.length
      }
      return Option.some(body)
    })
  )
