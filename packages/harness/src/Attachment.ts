/**
 * Attachment sources supplied by the host, and the immutable snapshots the harness makes
 * of them. A host passes the bytes of a body-selected attachment part with its dispatch
 * (`DispatchOptions.attachments`, keyed by part id) as bytes, a file path or a `Stream`.
 * Constructing a source reads nothing. When at least one receiver selects that part's
 * body, the harness reads the source once — within the call's byte budget and time
 * bound — into a snapshot (its own copy of the bytes, their size and SHA-256) that every
 * upload of the call reuses; a source no receiver needs as `body` is never read.
 *
 * Reading a file needs the platform: the `Files` service (the Node layer provides it).
 *
 * @since 0.1.0
 */
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"

// WebCrypto is on every JavaScript platform; the core compiles without platform typings.
declare const crypto: { readonly subtle: { digest(algorithm: string, data: Uint8Array): Promise<ArrayBuffer> } }

/**
 * What the host may state about a source; checked against the bytes read, never trusted.
 *
 * @since 0.1.0
 * @category models
 */
export interface Expected {
  readonly size?: number | undefined
  readonly sha256?: string | undefined
}

/**
 * Bytes in memory (copied when the snapshot is taken).
 *
 * @since 0.1.0
 * @category models
 */
export interface Bytes {
  readonly _tag: "Bytes"
  readonly bytes: Uint8Array
  readonly expected?: Expected | undefined
}

/**
 * A file, read through the `Files` service.
 *
 * @since 0.1.0
 * @category models
 */
export interface File {
  readonly _tag: "File"
  readonly path: string
  readonly expected?: Expected | undefined
}

/**
 * A stream of chunks, consumed at most once.
 *
 * @since 0.1.0
 * @category models
 */
export interface Chunks {
  readonly _tag: "Stream"
  readonly stream: Stream.Stream<Uint8Array, unknown>
  readonly expected?: Expected | undefined
}

/**
 * An attachment source.
 *
 * @since 0.1.0
 * @category models
 */
export type Source = Bytes | File | Chunks

/**
 * A source from bytes in memory.
 *
 * @since 0.1.0
 * @category constructors
 */
export const bytes = (data: Uint8Array, expected?: Expected): Source => ({ _tag: "Bytes", bytes: data, expected })

/**
 * A source from a file path (read only if a receiver selects the part's body).
 *
 * @since 0.1.0
 * @category constructors
 */
export const file = (path: string, expected?: Expected): Source => ({ _tag: "File", path, expected })

/**
 * A source from a stream of chunks (run only if a receiver selects the part's body).
 *
 * @since 0.1.0
 * @category constructors
 */
export const stream = (chunks: Stream.Stream<Uint8Array, unknown>, expected?: Expected): Source => ({
  _tag: "Stream",
  stream: chunks,
  expected
})

/**
 * The immutable bytes of one attachment, with their size and lowercase SHA-256 hex.
 *
 * @since 0.1.0
 * @category models
 */
export interface Snapshot {
  readonly bytes: Uint8Array
  readonly size: number
  readonly sha256: string
}

/**
 * Why an attachment's bytes are not available: no source was supplied, it could not be
 * read (or not within the time bound), it is not what the host said it was, or it is over
 * the call's byte budget.
 *
 * @since 0.1.0
 * @category models
 */
export const AttachmentFailure = Schema.Literal(
  "attachment-missing",
  "attachment-unreadable",
  "attachment-mismatch",
  "attachment-budget"
)

/**
 * @since 0.1.0
 * @category models
 */
export type AttachmentFailure = typeof AttachmentFailure.Type

/**
 * An attachment that could not be snapshotted. `detail` names the part, never its bytes
 * or the source's own error text.
 *
 * @since 0.1.0
 * @category errors
 */
export class AttachmentError extends Schema.TaggedError<AttachmentError>("@effect-ahp/harness/AttachmentError")(
  "AttachmentError",
  { reason: AttachmentFailure, detail: Schema.String }
) {
  override get message(): string {
    return `${this.reason}: ${this.detail}`
  }
}

/**
 * What reads files for `file` sources: a stream of the file's chunks.
 *
 * @since 0.1.0
 * @category models
 */
export interface FileReader {
  readonly stream: (path: string) => Stream.Stream<Uint8Array, unknown>
}

/**
 * No file access: the `Files` reference's default, under which a `file` source fails with
 * `attachment-unreadable` ("this runtime has no file access") without reading anything.
 *
 * @since 0.1.0
 * @category constants
 */
export const noFiles: FileReader = { stream: () => Stream.fail("no file access") }

/**
 * Reads files for `file` sources: a `Context.Reference` whose default is `noFiles` (the
 * Node layer, `AttachmentFiles.layer`, provides real access).
 *
 * @since 0.1.0
 * @category tags
 */
export class Files extends Context.Reference<Files>()("@effect-ahp/harness/Attachment/Files", {
  defaultValue: (): FileReader => noFiles
}) {}

const hex = (digest: ArrayBuffer): string => {
  let out = ""
  for (const byte of new Uint8Array(digest)) out += byte.toString(16).padStart(2, "0")
  return out
}

/**
 * The lowercase SHA-256 hex of some bytes.
 *
 * @since 0.1.0
 * @category utils
 */
export const sha256 = (data: Uint8Array): Effect.Effect<string> =>
  Effect.map(Effect.promise(() => crypto.subtle.digest("SHA-256", data)), hex)

/**
 * The chunks of `chunks` copied into one new array, or `undefined` once more than
 * `maxBytes` arrived (reading stops there). The buffer doubles as it fills, up to the limit.
 */
const collect = (
  chunks: Stream.Stream<Uint8Array, unknown>,
  maxBytes: number
): Effect.Effect<Uint8Array | undefined, unknown> =>
  Effect.suspend(() => {
    let buffer = new Uint8Array(0)
    let size = 0
    let over = false
    return Stream.runForEachWhile(chunks, (chunk) =>
      Effect.sync(() => {
        const end = size + chunk.length
        if (end > maxBytes) {
          over = true
          return false
        }
        if (end > buffer.length) {
          const grown = new Uint8Array(Math.min(maxBytes, Math.max(end, buffer.length * 2)))
          grown.set(buffer.subarray(0, size))
          buffer = grown
        }
        buffer.set(chunk, size)
        size = end
        return true
      })).pipe(Effect.map(() => over ? undefined : buffer.slice(0, size)))
  })

/**
 * Reads a source once into a snapshot of at most `maxBytes` bytes, within `timeoutMs`.
 * More bytes than that is `attachment-budget` (reading stops there: nothing is truncated);
 * a failing source, a file without the `Files` service, or a read still going at the time
 * bound is `attachment-unreadable`; a stated size or digest that differs from the bytes
 * is `attachment-mismatch`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const snapshot = (
  id: string,
  source: Source,
  options: { readonly maxBytes: number; readonly timeoutMs: number }
): Effect.Effect<Snapshot, AttachmentError> => {
  const fail = (reason: AttachmentFailure, detail: string) => Effect.fail(new AttachmentError({ reason, detail }))
  const unreadable = () =>
    new AttachmentError({ reason: "attachment-unreadable", detail: `attachment ${id} could not be read` })
  const read: Effect.Effect<Uint8Array | undefined, AttachmentError> = source._tag === "Bytes"
    ? Effect.sync(() => source.bytes.length > options.maxBytes ? undefined : source.bytes.slice())
    : source._tag === "Stream"
    ? Effect.mapError(collect(source.stream, options.maxBytes), unreadable)
    : Effect.flatMap(Files, (files) =>
      files === noFiles
        ? fail("attachment-unreadable", `attachment ${id} is a file, and this runtime has no file access`)
        : Effect.mapError(collect(files.stream(source.path), options.maxBytes), unreadable))
  return read.pipe(
    Effect.timeoutFail({
      duration: Duration.millis(options.timeoutMs),
      onTimeout: () =>
        new AttachmentError({
          reason: "attachment-unreadable",
          detail: `attachment ${id} was not read within ${options.timeoutMs} ms`
        })
    }),
    Effect.flatMap((data) => {
      if (data === undefined) {
        return fail(
          "attachment-budget",
          `attachment ${id} exceeds the remaining byte budget of ${options.maxBytes} bytes`
        )
      }
      return Effect.flatMap(sha256(data), (digest): Effect.Effect<Snapshot, AttachmentError> => {
        const expected = source.expected
        if (expected?.size !== undefined && expected.size !== data.length) {
          return fail(
            "attachment-mismatch",
            `attachment ${id} has ${data.length} bytes, not the ${expected.size} stated`
          )
        }
        if (expected?.sha256 !== undefined && expected.sha256.toLowerCase() !== digest) {
          return fail("attachment-mismatch", `attachment ${id} does not have the SHA-256 stated`)
        }
        return Effect.succeed({ bytes: data, size: data.length, sha256: digest })
      })
    })
  )
}
