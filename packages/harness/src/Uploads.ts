/**
 * How the harness uploads attachment bytes: a service that posts one snapshot to a
 * subscription's configured upload endpoint and succeeds with the receiver's receipt.
 * `@effect-ahp/node` provides the HTTP client (`HttpUpload`); `layerMemory` here is an
 * in-memory receiver for tests and embedding.
 *
 * Contract for implementations:
 * - POST the snapshot's exact bytes to `config.endpoint` (never a derived URL), with the
 *   credentials of `config.auth` only — never the backend's event credentials.
 * - Succeed only with a `201` receipt; the harness checks it against the snapshot again
 *   (`verify`) and publishes only its `ref`, to that subscription only.
 * - Be interruptible: the harness bounds each subscription's uploads by
 *   `config.timeoutMs` and interrupts what is still running then.
 * - Failures are `UploadError`s whose `detail` never holds credentials or receiver output.
 *
 * @since 0.1.0
 */
import { Common, Upload } from "@effect-ahp/protocol"
import type { Registration } from "@effect-ahp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type { Snapshot } from "./Attachment.js"

/**
 * Why an upload failed.
 *
 * @since 0.1.0
 * @category models
 */
export const UploadFailure = Schema.Literal(
  /** The subscription has no `upload` configuration. */
  "upload-unconfigured",
  /** No upload service is available in this runtime. */
  "upload-unavailable",
  /** The attachment is larger than the subscription's `upload.maxBytes` (nothing was sent). */
  "upload-too-large",
  /** The receiver answered another status than 201 (202 and 204 included). */
  "upload-status",
  /** The receiver answered with a redirect, which is never followed. */
  "upload-redirect",
  /** The receiver rejected the credentials (401). */
  "upload-unauthorized",
  /** The upload credential could not be resolved or acquired; nothing was sent. */
  "upload-credential",
  /** The endpoint or its authentication is not usable here; nothing was sent. */
  "upload-unsupported",
  /** The connection was refused, reset or lost. */
  "upload-connection",
  /** The uploads did not complete within `upload.timeoutMs`. */
  "upload-timeout",
  /** The receipt is missing, malformed, too large, or does not match the bytes sent. */
  "upload-receipt",
  /** The upload client was closed. */
  "upload-closed"
)

/**
 * @since 0.1.0
 * @category models
 */
export type UploadFailure = typeof UploadFailure.Type

/**
 * A failed upload. `detail` is safe to show: no credentials, no receiver output.
 *
 * @since 0.1.0
 * @category errors
 */
export class UploadError extends Schema.TaggedError<UploadError>("@effect-ahp/harness/UploadError")("UploadError", {
  reason: UploadFailure,
  detail: Schema.String,
  status: Common.optional(Schema.Number)
}) {
  override get message(): string {
    return `${this.reason}: ${this.detail}`
  }
}

/**
 * One upload: the bytes, where to (the subscription's configuration), and for whom.
 *
 * @since 0.1.0
 * @category models
 */
export interface Request {
  readonly backend: string
  /** The subscription's label (its id, else its index within the backend). */
  readonly subscription: string
  readonly config: Registration.Upload
  readonly snapshot: Snapshot
}

/**
 * What an upload client does.
 *
 * @since 0.1.0
 * @category models
 */
export interface Client {
  readonly upload: (request: Request) => Effect.Effect<Upload.Receipt, UploadError>
}

/**
 * No upload client: the `Uploads` reference's default, under which a subscription that
 * selects attachments as `body` fails with `upload-unavailable`.
 *
 * @since 0.1.0
 * @category constants
 */
export const none: Client = {
  upload: () => Effect.fail(new UploadError({ reason: "upload-unavailable", detail: "no upload client is available" }))
}

/**
 * The upload service: a `Context.Reference` whose default is `none` (the Node layers
 * provide an HTTP client).
 *
 * @since 0.1.0
 * @category tags
 */
export class Uploads extends Context.Reference<Uploads>()("@effect-ahp/harness/Uploads", {
  defaultValue: (): Client => none
}) {}

/**
 * Checks a receipt against the bytes sent: same size, same SHA-256.
 *
 * @since 0.1.0
 * @category guards
 */
export const verify = (receipt: Upload.Receipt, snapshot: Snapshot): UploadError | undefined => {
  if (receipt.size !== snapshot.size) {
    return new UploadError({
      reason: "upload-receipt",
      detail: `the receipt states ${receipt.size} bytes, but ${snapshot.size} were sent`
    })
  }
  if (receipt.sha256 !== snapshot.sha256) {
    return new UploadError({ reason: "upload-receipt", detail: "the receipt's SHA-256 does not match the bytes sent" })
  }
  return undefined
}

/**
 * An in-memory receiver: what it stored, by reference, and every upload it received.
 *
 * @since 0.1.0
 * @category models
 */
export interface Memory {
  /** The stored bytes of each allocated reference. */
  readonly stored: ReadonlyMap<string, Uint8Array>
  /** Every upload, in order. */
  readonly received: ReadonlyArray<Request>
}

/**
 * A test double: every upload is stored in memory under a fresh reference
 * (`<backend>/<subscription>/<n>`) and confirmed with an exact receipt. The returned
 * `Memory` shows what was stored and received.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (): { readonly layer: Layer.Layer<Uploads>; readonly memory: Memory } => {
  const stored = new Map<string, Uint8Array>()
  const received: Array<Request> = []
  const layer = Layer.succeed(
    Uploads,
    Uploads.of({
      upload: (request) =>
        Effect.sync(() => {
          received.push(request)
          const ref = `${request.backend}/${request.subscription}/${received.length}`
          stored.set(ref, request.snapshot.bytes.slice())
          return { ref, size: request.snapshot.size, sha256: request.snapshot.sha256 }
        })
    })
  )
  return { layer, memory: { stored, received } }
}
