/**
 * The HTTP upload client (the attachment upload binding): the `Uploads` service for Node.
 * Each upload is one `POST` of the snapshot's raw octets to the subscription's exact
 * `upload.endpoint` (path and query kept), whatever the backend's event transport.
 *
 * - Framing: `Content-Type: application/octet-stream`, `Content-Length` (zero included),
 *   `AHP-Content-SHA256` (lowercase hex of the exact bytes); never chunked, encoded or
 *   wrapped. An endpoint with CR or LF, user information, or plain `http` to a non-loopback
 *   host is `upload-unsupported` before anything is sent.
 * - Confirmation: only `201` with `Content-Type: application/json` and a receipt
 *   `{ref, size, sha256}` (no other member) whose size and digest equal the bytes sent.
 *   A receipt body over `maxReceiptBytes` is not read further (`upload-receipt`). `202`,
 *   `204` and every other status are `upload-status`, any 3xx `upload-redirect` (never
 *   followed), a refused or lost connection `upload-connection`.
 * - Authentication is the subscription's `upload.auth` alone, through the `HttpAuth` in
 *   context (or one of its own) with purpose `upload`, so it is independent of the
 *   backend's event authentication (never inherited): `bearer`, `oauth` with either flow,
 *   and, without `upload.auth`, an upload sent without credentials whose 401 starts OAuth
 *   protected-resource discovery on the upload endpoint. A 401 earns one retry with the
 *   credential `HttpAuth` gives for it; when it gives none (no binding and no usable
 *   discovery), or the retry is refused, the upload is `upload-unauthorized`.
 *
 * Closing the layer aborts uploads in flight; they and later ones fail with
 * `upload-closed`. Details never hold credentials, receipt bodies or header values.
 *
 * @since 0.1.0
 */
import * as Tracing from "@effect-ahp/harness/Tracing"
import type * as TransportApi from "@effect-ahp/harness/Transport"
import * as Uploads from "@effect-ahp/harness/Uploads"
import { Decoder, Json, Upload } from "@effect-ahp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Credentials from "./Credentials.js"
import * as HttpAuth from "./HttpAuth.js"
import * as HttpTransport from "./HttpTransport.js"
import * as http from "./internal/http.js"

/**
 * Tuning for the upload client. Every field is optional; see `defaults`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends HttpAuth.Options {
  /** Largest receipt body read, in bytes. */
  readonly maxReceiptBytes?: number | undefined
}

/**
 * The default options: receipts up to 16 KiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = { maxReceiptBytes: 16 * 1024 } as const

/**
 * The upload framing header carrying the body's SHA-256.
 *
 * @since 0.1.0
 * @category constants
 */
export const sha256Header = "ahp-content-sha256"

const fail = (reason: Uploads.UploadFailure, detail: string, status?: number) =>
  new Uploads.UploadError(status === undefined ? { reason, detail } : { reason, detail, status })

const transportReasons: Partial<Record<TransportApi.TransportFailure, Uploads.UploadFailure>> = {
  connection: "upload-connection",
  closed: "upload-closed",
  credential: "upload-credential",
  unsupported: "upload-unsupported",
  oversized: "upload-receipt"
}

const fromTransport = (error: TransportApi.TransportError): Uploads.UploadError =>
  fail(transportReasons[error.reason] ?? "upload-connection", error.detail, error.status)

const statusMeaning: Readonly<Record<number, string>> = {
  400: "framing, length or hash rejected",
  401: "credentials missing or invalid",
  403: "not authorized for the upload scope",
  404: "unknown upload route",
  413: "over the receiver's size limit"
}

const statusFailure = (status: number) => {
  if (status >= 300 && status < 400) {
    return fail(
      "upload-redirect",
      `the upload endpoint answered with a redirect (HTTP ${status}), which is not followed`,
      status
    )
  }
  const meaning = statusMeaning[status]
  return fail(
    "upload-status",
    `the upload endpoint answered HTTP ${status}${
      meaning === undefined ? "" : ` (${meaning})`
    }, not 201 with a receipt`,
    status
  )
}

const decodeReceipt = Decoder.lazy(() => Schema.decodeUnknownEither(Upload.Receipt, { onExcessProperty: "error" }))

const isJsonMediaType = (incoming: http.Incoming): boolean => {
  const value = incoming.headers["content-type"]
  const type = Array.isArray(value) ? value[0] : value
  return type !== undefined && type.split(";")[0]!.trim().toLowerCase() === "application/json"
}

/** The receipt of a `201`, checked against the snapshot sent. */
const receiptOf = (
  incoming: http.Incoming,
  snapshot: Uploads.Request["snapshot"],
  maxReceiptBytes: number
): Either.Either<Upload.Receipt, Uploads.UploadError> => {
  if (incoming.status !== 201) return Either.left(statusFailure(incoming.status))
  if (!isJsonMediaType(incoming)) {
    return Either.left(fail("upload-receipt", "the receipt is not declared as application/json"))
  }
  if (incoming.body === undefined) {
    return Either.left(fail("upload-receipt", `the receipt exceeds the size limit of ${maxReceiptBytes} bytes`))
  }
  const parsed = Json.parseBytes(incoming.body)
  if (Either.isLeft(parsed)) return Either.left(fail("upload-receipt", "the receipt is not UTF-8 JSON"))
  const receipt = decodeReceipt(parsed.right)
  if (Either.isLeft(receipt)) return Either.left(fail("upload-receipt", "the receipt is not {ref, size, sha256}"))
  const problem = Uploads.verify(receipt.right, snapshot)
  return problem === undefined ? Either.right(receipt.right) : Either.left(problem)
}

const framingBreak = /[\r\n]/

/**
 * Builds the upload client from the platform services it uses, for the lifetime of the
 * current scope (closing it aborts uploads in flight).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Options = {}
): Effect.Effect<
  Uploads.Uploads["Type"],
  never,
  HttpTransport.Dispatcher | Credentials.CredentialResolver | Scope.Scope
> =>
  Effect.gen(function*() {
    const closedError = http.failure("closed", "the upload client was closed")
    const inFlight = new http.InFlight()
    yield* Effect.addFinalizer(() => Effect.sync(() => inFlight.close(closedError)))
    const dispatcher = yield* HttpTransport.Dispatcher
    const shared = yield* Effect.serviceOption(HttpAuth.HttpAuth)
    const httpAuth = Option.isSome(shared) ? shared.value : yield* HttpTransport.makeAuth(options)
    const maxReceiptBytes = options.maxReceiptBytes ?? defaults.maxReceiptBytes

    const post = (url: URL, request: Uploads.Request, credential: Option.Option<Redacted.Redacted<string>>) => {
      const snapshot = request.snapshot
      const framing: Record<string, string> = {
        "content-type": "application/octet-stream",
        "content-length": String(snapshot.size),
        [sha256Header]: snapshot.sha256,
        accept: "application/json"
      }
      if (Option.isSome(credential)) framing.authorization = `Bearer ${Redacted.value(credential.value)}`
      return Effect.mapError(
        http.exchange(
          dispatcher,
          { url, method: "POST", headers: framing, body: snapshot.bytes },
          maxReceiptBytes,
          "upload endpoint",
          inFlight
        ),
        fromTransport
      )
    }

    const traceUpload = Tracing.withSpanWhenTraced("HttpUpload.upload")
    const upload = (request: Uploads.Request): Effect.Effect<Upload.Receipt, Uploads.UploadError> =>
      Effect.suspend(() => {
        if (inFlight.closed !== undefined) return Effect.fail(fromTransport(closedError))
        const endpoint = request.config.endpoint
        if (framingBreak.test(endpoint)) {
          return Effect.fail(fail("upload-unsupported", "the upload endpoint contains a line break"))
        }
        const target = http.checkTarget(endpoint, "upload endpoint")
        if (Either.isLeft(target)) return Effect.fail(fromTransport(target.left))
        const url = target.right
        const unauthorized = fail("upload-unauthorized", "the upload endpoint rejected the credentials (HTTP 401)", 401)
        const confirm = (incoming: http.Incoming) =>
          Either.match(receiptOf(incoming, request.snapshot, maxReceiptBytes), {
            onLeft: Effect.fail,
            onRight: Effect.succeed
          })
        const auth = httpAuth.authorizer(
          { url, authentication: request.config.auth, backend: request.backend, purpose: "upload" },
          inFlight
        )
        const retry = (rejected: http.Incoming, credential: Option.Option<Redacted.Redacted<string>>) =>
          auth.challenge({ wwwAuthenticate: rejected.headers["www-authenticate"], credential }).pipe(
            Effect.mapError((error) =>
              error.reason === "credential" || error.reason === "unauthorized"
                ? fail(
                  "upload-unauthorized",
                  `the upload endpoint answered 401 and no credential is usable: ${error.detail}`,
                  401
                )
                : fromTransport(error)
            ),
            Effect.flatMap((token) => post(url, request, Option.some(token))),
            Effect.flatMap((second) => second.status === 401 ? Effect.fail(unauthorized) : confirm(second))
          )
        return Effect.mapError(auth.credential, fromTransport).pipe(
          Effect.flatMap((credential) =>
            Effect.flatMap(post(url, request, credential), (incoming) =>
              incoming.status === 401 ? retry(incoming, credential) : confirm(incoming))
          )
        )
      }).pipe(traceUpload)

    return Uploads.Uploads.of({ upload })
  })

/**
 * The upload client, requiring the dispatcher and a credential resolver (and using the
 * `HttpAuth` and `TokenStore` from context when there are).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<Uploads.Uploads, never, HttpTransport.Dispatcher | Credentials.CredentialResolver> =>
  Layer.scoped(Uploads.Uploads, make(options))
