/**
 * Receiving attachment uploads: a bounded in-memory store of uploaded bytes by reference,
 * the HTTP upload route that fills it (the receiver side of the upload binding), and
 * reading an attachment's bytes by reference from a handler.
 *
 * The upload route answers:
 *
 * | Request | Answer |
 * | --- | --- |
 * | a method other than `POST` | 405 with `Allow: POST` |
 * | a `token` is configured and `Authorization` is not `Bearer <token>` | 401 with `WWW-Authenticate: Bearer` (nothing is read or stored) |
 * | a `Content-Type` other than `application/octet-stream`, a `Content-Encoding`, chunked transfer, no or a malformed `Content-Length`, no or a malformed `AHP-Content-SHA256` | 400 |
 * | a `Content-Length` over `maxBytes`, or a body the store cannot hold | 413 |
 * | a body whose length or SHA-256 differs from the framing | 400 |
 * | otherwise | 201, `application/json`, the receipt `{ref, size, sha256}` |
 *
 * The store keeps at most `maxStoredBytes` (default 64 MiB) per server: a new upload
 * evicts the oldest ones until it fits, so a reference stays readable until that many
 * newer bytes have been uploaded after it. References are random and never reused.
 *
 * @since 0.1.0
 */
import type { Content, Upload } from "@effect-ahp/protocol"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as Crypto from "node:crypto"
import { readBody } from "./internal/body.js"

/**
 * Bytes the store cannot hold (larger than its whole capacity).
 *
 * @since 0.1.0
 * @category errors
 */
export class StoreFull extends Schema.TaggedError<StoreFull>("@effect-ahp/backend/StoreFull")("StoreFull", {
  size: Schema.Number,
  capacity: Schema.Number
}) {
  override get message(): string {
    return `${this.size} bytes exceed the attachment store's capacity of ${this.capacity} bytes`
  }
}

/**
 * A reference this server does not hold (never allocated, or evicted).
 *
 * @since 0.1.0
 * @category errors
 */
export class AttachmentNotFound
  extends Schema.TaggedError<AttachmentNotFound>("@effect-ahp/backend/AttachmentNotFound")(
    "AttachmentNotFound",
    { ref: Schema.String }
  )
{
  override get message(): string {
    return `no attachment is stored under ${this.ref}`
  }
}

/**
 * The attachment store of one server.
 *
 * @since 0.1.0
 * @category tags
 */
export class Attachments extends Context.Tag("@effect-ahp/backend/Attachments")<Attachments, {
  /** Stores bytes (a copy) under a new reference; succeeds with their receipt. */
  readonly put: (bytes: Uint8Array) => Effect.Effect<Upload.Receipt, StoreFull>
  /** The bytes stored under a reference (a copy). */
  readonly get: (ref: string) => Effect.Effect<Option.Option<Uint8Array>>
}>() {}

/**
 * The default capacity of a store: 64 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxStoredBytes = 64 * 1024 * 1024

/**
 * The default largest upload: 16 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxBytes = 16 * 1024 * 1024

const sha256 = (bytes: Uint8Array): string => Crypto.createHash("sha256").update(bytes).digest("hex")

/**
 * An in-memory store holding at most `maxStoredBytes`, evicting the oldest uploads first.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeMemory = (options: { readonly maxStoredBytes?: number | undefined } = {}): Attachments["Type"] => {
  const capacity = options.maxStoredBytes ?? defaultMaxStoredBytes
  const stored = new Map<string, Uint8Array>()
  let total = 0
  return Attachments.of({
    put: (bytes) =>
      Effect.suspend(() => {
        if (bytes.length > capacity) return Effect.fail(new StoreFull({ size: bytes.length, capacity }))
        for (const [ref, old] of stored) {
          if (total + bytes.length <= capacity) break
          stored.delete(ref)
          total -= old.length
        }
        const ref = `att_${Crypto.randomUUID()}`
        stored.set(ref, bytes.slice())
        total += bytes.length
        return Effect.succeed({ ref, size: bytes.length, sha256: sha256(bytes) })
      }),
    get: (ref) => Effect.sync(() => Option.map(Option.fromNullable(stored.get(ref)), (bytes) => bytes.slice()))
  })
}

/**
 * A layer with a fresh in-memory store.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (options: { readonly maxStoredBytes?: number | undefined } = {}): Layer.Layer<Attachments> =>
  Layer.sync(Attachments, () => makeMemory(options))

/**
 * Reads the bytes of an attachment by its reference, or of a body-selected attachment part.
 *
 * @example
 * ```ts
 * import { Attachments, Backend } from "@effect-ahp/backend"
 * import { Effect } from "effect"
 *
 * const sizeLimit = Backend.intercept("user.message.inbound", () =>
 *   Effect.gen(function*() {
 *     const bytes = yield* Attachments.read("att_1")
 *     return bytes.length > 1_000_000 ? [{ type: "deny" as const, reason: "too large" }] : []
 *   }).pipe(Effect.catchTag("AttachmentNotFound", () => Effect.succeed([]))))
 * ```
 *
 * @since 0.1.0
 * @category accessors
 */
export const read = (
  reference: string | Extract<Content.Part, { readonly body: unknown }>
): Effect.Effect<Uint8Array, AttachmentNotFound, Attachments> =>
  Effect.flatMap(Attachments, (store) => {
    const ref = typeof reference === "string" ? reference : reference.body.ref
    return Effect.flatMap(
      store.get(ref),
      Option.match({
        onNone: () => Effect.fail(new AttachmentNotFound({ ref })),
        onSome: Effect.succeed
      })
    )
  })

/**
 * What the upload route accepts.
 *
 * @since 0.1.0
 * @category models
 */
export interface RouteOptions {
  /** The largest accepted upload in bytes (default 16 MiB). */
  readonly maxBytes?: number | undefined
  /** When set, uploads must carry `Authorization: Bearer <token>`. */
  readonly token?: string | Redacted.Redacted<string> | undefined
}

const status = (code: number, headers?: Readonly<Record<string, string>>) =>
  HttpServerResponse.empty(headers === undefined ? { status: code } : { status: code, headers })

const digits = /^\d+$/
const hexDigest = /^[a-f0-9]{64}$/

const mediaTypeOf = (header: string | undefined): string | undefined => header?.split(";")[0]!.trim().toLowerCase()

/** Constant-time comparison of an `Authorization` header with the expected one. */
const authorized = (header: string | undefined, expected: string): boolean => {
  if (header === undefined) return false
  const given = Buffer.from(header)
  const wanted = Buffer.from(expected)
  return given.length === wanted.length && Crypto.timingSafeEqual(given, wanted)
}

/**
 * The upload route: stores the raw octets of a well-framed `POST` in the `Attachments`
 * store in context and answers `201` with the receipt.
 *
 * @since 0.1.0
 * @category constructors
 */
export const route = (options: RouteOptions = {}): HttpApp.Default<never, Attachments> => {
  const maxBytes = options.maxBytes ?? defaultMaxBytes
  const token = options.token
  const expected = token === undefined
    ? undefined
    : `Bearer ${Redacted.isRedacted(token) ? Redacted.value(token) : token}`
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (request.method !== "POST") return status(405, { allow: "POST" })
    const headers = request.headers
    if (expected !== undefined && !authorized(headers.authorization, expected)) {
      return status(401, { "www-authenticate": "Bearer" })
    }
    const length = headers["content-length"]
    const digest = headers["ahp-content-sha256"]
    const encoding = headers["content-encoding"]
    if (
      mediaTypeOf(headers["content-type"]) !== "application/octet-stream" ||
      (encoding !== undefined && encoding.toLowerCase() !== "identity") ||
      headers["transfer-encoding"] !== undefined ||
      length === undefined || !digits.test(length) ||
      digest === undefined || !hexDigest.test(digest)
    ) return status(400)
    if (Number(length) > maxBytes) return status(413)
    const body = yield* readBody(request.stream, maxBytes).pipe(Effect.option)
    if (Option.isNone(body)) return status(400)
    if (Option.isNone(body.value)) return status(413)
    const bytes = body.value.value
    if (bytes.length !== Number(length) || sha256(bytes) !== digest) return status(400)
    const store = yield* Attachments
    return yield* store.put(bytes).pipe(
      Effect.map((receipt) => HttpServerResponse.unsafeJson(receipt, { status: 201 })),
      Effect.catchTag("StoreFull", () => Effect.succeed(status(413)))
    )
  })
}
