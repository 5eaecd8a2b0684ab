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
 * - Authentication is the subscription's `upload.auth` alone, resolved independently of
 *   the backend's event authentication (never inherited): `bearer` (resolved for every
 *   upload, again after a 401, then retried once), `oauth` with `client_credentials` (a
 *   token per subscription, re-acquired once after a 401). `authorization_code_pkce` is
 *   `upload-unsupported`. Without `upload.auth` the upload is sent without credentials; a
 *   401 then asks the `UploadAuth` service for a credential to retry once with. The
 *   default (`UploadAuth.anonymous`) has none, so the 401 is `upload-unauthorized`: OAuth
 *   protected-resource discovery plugs in there.
 *
 * Closing the layer aborts uploads in flight; they and later ones fail with
 * `upload-closed`. Details never hold credentials, receipt bodies or header values.
 *
 * @since 0.1.0
 */
import * as Tracing from "@effect-ahp/harness/Tracing"
import * as Uploads from "@effect-ahp/harness/Uploads"
import type * as TransportApi from "@effect-ahp/harness/Transport"
import { Json, Upload } from "@effect-ahp/protocol"
import type { Registration } from "@effect-ahp/protocol"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as Credentials from "./Credentials.js"
import * as HttpTransport from "./HttpTransport.js"
import * as http from "./internal/http.js"
import * as oauth from "./internal/oauth.js"

/**
 * What `UploadAuth` is told after an upload endpoint without `upload.auth` answered 401.
 *
 * @since 0.1.0
 * @category models
 */
export interface Challenge {
  readonly endpoint: URL
  readonly backend: string
  readonly subscription: string
  /** The `WWW-Authenticate` header of the 401, if any. */
  readonly wwwAuthenticate: string | undefined
}

/**
 * The seam for upload endpoints without `upload.auth`: after a 401, a credential to retry
 * the upload once with (for example from OAuth protected-resource discovery on that
 * endpoint), or none. It must never hand out the backend's event credentials.
 *
 * @since 0.1.0
 * @category tags
 */
export class UploadAuth extends Context.Tag("@effect-ahp/node/HttpUpload/UploadAuth")<UploadAuth, {
  readonly challenge: (challenge: Challenge) => Effect.Effect<Option.Option<Redacted.Redacted<string>>, Uploads.UploadError>
}>() {
  /**
   * No credential for anyone: a 401 from an endpoint without `upload.auth` is final.
   *
   * @since 0.1.0
   */
  static readonly anonymous: Layer.Layer<UploadAuth> = Layer.succeed(UploadAuth, { challenge: () => Effect.succeedNone })
}

/**
 * Tuning for the upload client. Every field is optional; see `defaults`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Largest receipt body read, in bytes. */
  readonly maxReceiptBytes?: number | undefined
  /** As for `HttpTransport`: how long before `expires_in` an OAuth token is replaced. */
  readonly tokenRefreshMargin?: Duration.DurationInput | undefined
  /** As for `HttpTransport`: other origins an OAuth token endpoint may have. */
  readonly tokenEndpointOrigins?: ReadonlyArray<string> | undefined
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
    return fail("upload-redirect", `the upload endpoint answered with a redirect (HTTP ${status}), which is not followed`, status)
  }
  const meaning = statusMeaning[status]
  return fail(
    "upload-status",
    `the upload endpoint answered HTTP ${status}${meaning === undefined ? "" : ` (${meaning})`}, not 201 with a receipt`,
    status
  )
}

const decodeReceipt = Schema.decodeUnknownEither(Upload.Receipt, { onExcessProperty: "error" })

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
  if (!isJsonMediaType(incoming)) return Either.left(fail("upload-receipt", "the receipt is not declared as application/json"))
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
): Effect.Effect<Uploads.Uploads["Type"], never, HttpTransport.Dispatcher | Credentials.CredentialResolver | Scope.Scope> =>
  Effect.gen(function*() {
    const closedError = http.failure("closed", "the upload client was closed")
    const inFlight = new http.InFlight()
    yield* Effect.addFinalizer(() => Effect.sync(() => inFlight.close(closedError)))
    const dispatcher = yield* HttpTransport.Dispatcher
    const credentials = yield* Credentials.CredentialResolver
    const discovery = Option.getOrElse(
      yield* Effect.serviceOption(UploadAuth),
      (): UploadAuth["Type"] => ({ challenge: () => Effect.succeedNone })
    )
    const maxReceiptBytes = options.maxReceiptBytes ?? defaults.maxReceiptBytes
    const refreshMargin = Duration.decode(options.tokenRefreshMargin ?? HttpTransport.defaults.tokenRefreshMargin)
    const tokenEndpointOrigins = oauth.originsOf(options.tokenEndpointOrigins ?? [])
    // One token source per subscription with an oauth upload binding.
    const tokenSources = new Map<string, oauth.TokenSource>()

    const authorizer = (
      request: Uploads.Request
    ): Effect.Effect<HttpTransport.Authorizer | undefined, Uploads.UploadError> => {
      const auth: Registration.Authentication | undefined = request.config.auth
      if (auth === undefined) return Effect.succeed(undefined)
      if (auth.type === "bearer") return Effect.succeed(HttpTransport.bearer(credentials, auth))
      if (auth.flow !== "client_credentials") {
        return Effect.fail(
          fail("upload-unsupported", "the OAuth authorization_code_pkce flow needs user interaction, which is unavailable")
        )
      }
      const key = `${request.backend}#${request.subscription}`
      const known = tokenSources.get(key)
      const source = known === undefined
        ? Effect.tap(
          oauth.clientCredentials({ dispatcher, credentials, maxBodyBytes: maxReceiptBytes, refreshMargin, inFlight, tokenEndpointOrigins }, auth),
          (created) => Effect.sync(() => tokenSources.set(key, created))
        )
        : Effect.succeed(known)
      return Effect.map(source, (tokens) => ({ credential: Effect.asSome(tokens.get), invalidate: tokens.invalidate, retryOnce: true }))
    }

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
        http.exchange(dispatcher, { url, method: "POST", headers: framing, body: snapshot.bytes }, maxReceiptBytes, "upload endpoint", inFlight),
        fromTransport
      )
    }

    const wwwAuthenticate = (incoming: http.Incoming): string | undefined => {
      const value = incoming.headers["www-authenticate"]
      return Array.isArray(value) ? value[0] : value
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
          Either.match(receiptOf(incoming, request.snapshot, maxReceiptBytes), { onLeft: Effect.fail, onRight: Effect.succeed })
        return Effect.flatMap(authorizer(request), (auth) => {
          if (auth === undefined) {
            return Effect.flatMap(post(url, request, Option.none()), (incoming) => {
              if (incoming.status !== 401) return confirm(incoming)
              const challenge = {
                endpoint: url,
                backend: request.backend,
                subscription: request.subscription,
                wwwAuthenticate: wwwAuthenticate(incoming)
              }
              return Effect.flatMap(discovery.challenge(challenge), Option.match({
                onNone: () => Effect.fail(unauthorized),
                onSome: (token) =>
                  Effect.flatMap(post(url, request, Option.some(token)), (second) =>
                    second.status === 401 ? Effect.fail(unauthorized) : confirm(second))
              }))
            })
          }
          const attempt = Effect.flatMap(
            Effect.mapError(auth.credential, fromTransport),
            (credential) => post(url, request, credential)
          )
          return Effect.flatMap(attempt, (incoming) => {
            if (incoming.status !== 401) return confirm(incoming)
            if (!auth.retryOnce) return Effect.fail(unauthorized)
            return Effect.zipRight(auth.invalidate, attempt).pipe(
              Effect.flatMap((second) => second.status === 401 ? Effect.fail(unauthorized) : confirm(second))
            )
          })
        })
      }).pipe(traceUpload)

    return Uploads.Uploads.of({ upload })
  })

/**
 * The upload client, requiring the dispatcher and a credential resolver (and using an
 * `UploadAuth` from context when there is one).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<Uploads.Uploads, never, HttpTransport.Dispatcher | Credentials.CredentialResolver> =>
  Layer.scoped(Uploads.Uploads, make(options))
