/**
 * The HTTP binding (AHP-HTTP-001): every message is the JSON body of a new `POST` to the
 * backend's `url`, with `Content-Type` and `Accept` set to `application/json`.
 *
 * - A request succeeds only with status 200 and a body that is one JSON-RPC 2.0 response
 *   carrying the request's id (anything else is `malformed`). A notification succeeds only
 *   with 202 or 204 and no body. Any 3xx is `redirect` (redirects are never followed), 401
 *   is `unauthorized`, every other status is `status`; all three carry the status code.
 * - Bodies larger than `maxBodyBytes` are `oversized` and are not read further.
 * - `https` is required, except plain `http` to loopback hosts; other URLs are
 *   `unsupported` before anything is sent. Refused, reset or lost connections are
 *   `connection`.
 * - Authentication follows the backend's explicit binding, resolved through the
 *   `CredentialResolver` for every dispatch:
 *   - `bearer`: the token is resolved before sending (missing or empty: `credential`,
 *     nothing sent, never an anonymous fallback) and sent in exactly one `Authorization`
 *     header. After a 401 the token is resolved again (it may have been rotated) and the
 *     identical body is sent once more; a second 401 is `unauthorized`.
 *   - `oauth` with `client_credentials`: a token is acquired from the issuer's token
 *     endpoint (discovered from its metadata), cached until shortly before it expires, and
 *     invalidated and re-acquired once after a 401. `authorization_code_pkce` needs user
 *     interaction and fails with `unsupported`.
 *   - no binding: the request is sent without credentials and a 401 is `unauthorized`.
 *     The RFC 9728 protected-resource discovery that could follow such a 401 is not
 *     implemented.
 *
 * Closing the endpoint's scope aborts exchanges in flight; they and later calls fail with
 * `closed`. Credentials never appear in errors, logs or span attributes (the client's
 * tracing redacts the `Authorization` header).
 *
 * @since 0.1.0
 */
import * as Tracing from "@effect-ahp/harness/Tracing"
import * as TransportApi from "@effect-ahp/harness/Transport"
import { Json } from "@effect-ahp/protocol"
import type { Registration } from "@effect-ahp/protocol"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Credentials from "./Credentials.js"
import * as http from "./internal/http.js"
import * as oauth from "./internal/oauth.js"
import * as response from "./internal/response.js"

/**
 * Tuning for the HTTP binding. Every field is optional; see `defaults`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Largest accepted response body, in bytes (also for OAuth metadata and tokens). */
  readonly maxBodyBytes?: number | undefined
  /** How long before `expires_in` an OAuth access token is replaced. */
  readonly tokenRefreshMargin?: Duration.DurationInput | undefined
}

/**
 * The default options: 8 MiB bodies, tokens replaced 30 s before they expire.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  maxBodyBytes: 8 * 1024 * 1024,
  tokenRefreshMargin: Duration.seconds(30)
} as const

/** How an exchange obtains its `Authorization` value, and whether a 401 earns one retry. */
interface Authorizer {
  readonly credential: Effect.Effect<Option.Option<Redacted.Redacted<string>>, TransportApi.TransportError>
  readonly invalidate: Effect.Effect<void>
  readonly retryOnce: boolean
}

const anonymous: Authorizer = { credential: Effect.succeedNone, invalidate: Effect.void, retryOnce: false }

const usableToken = /^[\x21-\x7e]+$/

const bearer = (credentials: Credentials.CredentialResolver["Type"], binding: Registration.Bearer): Authorizer => {
  const reference: Credentials.Reference = binding.tokenEnv !== undefined
    ? { kind: "env", name: binding.tokenEnv }
    : { kind: "ref", name: binding.tokenRef ?? "" }
  return {
    credential: credentials.resolve(reference).pipe(
      Effect.mapError((error) => http.failure("credential", `the bearer token is unavailable: ${error.message}`)),
      Effect.filterOrFail(
        (token) => usableToken.test(Redacted.value(token)),
        () => http.failure("credential", `the bearer token from ${Credentials.describe(reference)} is not usable`)
      ),
      Effect.asSome
    ),
    invalidate: Effect.void,
    retryOnce: true
  }
}

type Attempt<A> = { readonly _tag: "Done"; readonly value: A } | { readonly _tag: "Unauthorized" }

const statusFailure = (status: number, expected: string) =>
  status >= 300 && status < 400
    ? http.failure("redirect", `the backend answered with a redirect (HTTP ${status}), which is not followed`, status)
    : http.failure("status", `the backend answered HTTP ${status} (expected ${expected})`, status)

const interpretRequest = (id: Json.JsonValue, maxBodyBytes: number) => (res: HttpClientResponse.HttpClientResponse) =>
  Effect.gen(function*() {
    if (res.status !== 200) return yield* statusFailure(res.status, "200")
    if (!http.isJson(res)) return yield* http.failure("malformed", "the response is not declared as application/json")
    const body = yield* http.readBody(res, maxBodyBytes, "response")
    const verdict = Either.match(Json.parseBytes(body), {
      onLeft: (): response.Verdict => ({ _tag: "Malformed", detail: "the response body is not UTF-8 JSON" }),
      onRight: (value) => response.classify(value, id)
    })
    return verdict._tag === "Response" ? verdict.value : yield* http.failure("malformed", verdict.detail)
  })

const interpretNotification = (maxBodyBytes: number) => (res: HttpClientResponse.HttpClientResponse) =>
  Effect.gen(function*() {
    if (res.status !== 202 && res.status !== 204) return yield* statusFailure(res.status, "202 or 204")
    const body = yield* http.readBody(res, maxBodyBytes, "notification response")
    if (body.length > 0) return yield* http.failure("malformed", "the notification response has a body")
  })

/**
 * Connects an HTTP backend for the lifetime of the current scope. Connecting sends
 * nothing; URL and authentication problems surface on each call, before anything is sent.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  transport: Registration.HttpTransport,
  authentication: Registration.Authentication | undefined,
  options: Options = {}
): Effect.Effect<
  TransportApi.Endpoint,
  never,
  HttpClient.HttpClient | Credentials.CredentialResolver | Scope.Scope
> =>
  Effect.gen(function*() {
    const closed = yield* Deferred.make<never, TransportApi.TransportError>()
    yield* Effect.addFinalizer(() => Deferred.fail(closed, http.failure("closed", "the HTTP transport was closed")))
    const client = HttpClient.withScope(yield* HttpClient.HttpClient)
    const credentials = yield* Credentials.CredentialResolver
    const maxBodyBytes = options.maxBodyBytes ?? defaults.maxBodyBytes
    const target = http.checkTarget(transport.url, "backend")

    let authorizer: Either.Either<Authorizer, TransportApi.TransportError> = Either.right(anonymous)
    if (authentication?.type === "bearer") {
      authorizer = Either.right(bearer(credentials, authentication))
    } else if (authentication?.type === "oauth" && authentication.flow === "client_credentials") {
      const tokens = yield* oauth.clientCredentials({
        client,
        credentials,
        maxBodyBytes,
        refreshMargin: Duration.decode(options.tokenRefreshMargin ?? defaults.tokenRefreshMargin)
      }, authentication)
      authorizer = Either.right({
        credential: Effect.asSome(tokens.get),
        invalidate: tokens.invalidate,
        retryOnce: true
      })
    } else if (authentication?.type === "oauth") {
      authorizer = Either.left(
        http.failure(
          "unsupported",
          "the OAuth authorization_code_pkce flow needs user interaction, which is unavailable"
        )
      )
    }

    const attempt = <A>(
      url: URL,
      auth: Authorizer,
      body: Uint8Array,
      interpret: (res: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, TransportApi.TransportError>
    ): Effect.Effect<Attempt<A>, TransportApi.TransportError> =>
      Effect.scoped(Effect.gen(function*() {
        const credential = yield* auth.credential
        const base = HttpClientRequest.post(url, { acceptJson: true }).pipe(
          HttpClientRequest.bodyUint8Array(body, "application/json")
        )
        const request = Option.match(credential, {
          onNone: () => base,
          onSome: (token) => HttpClientRequest.setHeader(base, "authorization", `Bearer ${Redacted.value(token)}`)
        })
        const res = yield* client.execute(request).pipe(
          // Only matters when the provided client is the fetch client: never follow redirects.
          Effect.provideService(FetchHttpClient.RequestInit, { redirect: "manual" }),
          Effect.mapError((error) => http.clientFailure(error, "backend"))
        )
        if (res.status === 401) return { _tag: "Unauthorized" } as const
        return { _tag: "Done", value: yield* interpret(res) } as const
      }))

    const exchange = <A>(
      message: Json.JsonObject,
      interpret: (res: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, TransportApi.TransportError>
    ): Effect.Effect<A, TransportApi.TransportError> =>
      Effect.gen(function*() {
        if (yield* Deferred.isDone(closed)) return yield* Deferred.await(closed)
        const url = yield* target
        const auth = yield* authorizer
        const body = new TextEncoder().encode(Json.stringify(message))
        const unauthorized = () => http.failure("unauthorized", "the backend rejected the request (HTTP 401)", 401)
        const first = yield* attempt(url, auth, body, interpret)
        if (first._tag === "Done") return first.value
        if (!auth.retryOnce) return yield* unauthorized()
        yield* auth.invalidate
        const second = yield* attempt(url, auth, body, interpret)
        return second._tag === "Done" ? second.value : yield* unauthorized()
      }).pipe(Effect.raceFirst(Deferred.await(closed)))

    const endpoint: TransportApi.Endpoint = {
      request: Effect.fnUntraced(function*(message) {
        if (message.id === undefined) return yield* Effect.dieMessage("a JSON-RPC request needs an id")
        return yield* exchange(message, interpretRequest(message.id, maxBodyBytes))
      }, Tracing.withSpanWhenTraced("HttpTransport.request")),
      notify: Effect.fnUntraced(function*(message) {
        yield* exchange(message, interpretNotification(maxBodyBytes))
      }, Tracing.withSpanWhenTraced("HttpTransport.notify"))
    }
    return endpoint
  })
