/**
 * The HTTP binding (AHP-HTTP-001): every message is the JSON body of a new `POST` to the
 * backend's `url`, with `Content-Type` and `Accept` set to `application/json`.
 *
 * - A request succeeds only with status 200 and a body that is one JSON-RPC 2.0 response
 *   carrying the request's id (anything else is `malformed`). A notification succeeds only
 *   with 202 or 204 and no body. Any 3xx is `redirect` (redirects are never followed), 401
 *   is `unauthorized`, every other status is `status`; all three carry the status code.
 * - Bodies larger than `maxBodyBytes` are `oversized` and are not read further. The body of
 *   a response that fails the exchange (or of a 401 before the retry) is read and dropped,
 *   up to that limit, so that its kept-alive connection can be reused.
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
 *     invalidated and re-acquired once after a 401. The learned token endpoint must use
 *     `https` (plain `http` only when the issuer itself is a loopback `http` URL) and the
 *     issuer's origin unless `tokenEndpointOrigins` allows its own; otherwise the exchange
 *     fails with `credential` and the client secret is sent nowhere.
 *     `authorization_code_pkce` needs user interaction and fails with `unsupported`.
 *   - no binding: the request is sent without credentials and a 401 is `unauthorized`.
 *     The RFC 9728 protected-resource discovery that could follow such a 401 is not
 *     implemented.
 *
 * Exchanges go through an undici `Dispatcher` (the `Dispatcher` service: by default one
 * keep-alive `Agent` per layer), driven directly rather than through the platform's
 * `HttpClient`, whose per-request machinery measured at about twice the cost of the
 * exchange itself on loopback.
 *
 * Closing the endpoint's scope aborts exchanges in flight (OAuth token requests
 * included); they and later calls fail with `closed`. Credentials never appear in errors,
 * logs or span attributes. Under an installed tracer every request carries the W3C
 * `traceparent` of its span; under Effect's built-in tracer (which exports nowhere) no
 * trace header is sent.
 *
 * @since 0.1.0
 */
import * as Tracing from "@effect-ahp/harness/Tracing"
import * as TransportApi from "@effect-ahp/harness/Transport"
import { Json } from "@effect-ahp/protocol"
import type { Registration } from "@effect-ahp/protocol"
import * as HttpTraceContext from "@effect/platform/HttpTraceContext"
import * as Undici from "undici"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as Credentials from "./Credentials.js"
import * as http from "./internal/http.js"
import * as oauth from "./internal/oauth.js"
import * as response from "./internal/response.js"

/**
 * The undici dispatcher HTTP backends (and OAuth servers) are reached through.
 *
 * @since 0.1.0
 * @category services
 */
export class Dispatcher extends Context.Tag("@effect-ahp/node/HttpTransport/Dispatcher")<
  Dispatcher,
  Undici.Dispatcher
>() {}

/**
 * A keep-alive undici `Agent` for the lifetime of the layer; its connections are closed
 * when the layer is released.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDispatcher: Layer.Layer<Dispatcher> = Layer.scoped(
  Dispatcher,
  Effect.acquireRelease(
    Effect.sync(() => new Undici.Agent()),
    (agent) => Effect.promise(() => agent.destroy())
  )
)

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
  /**
   * Origins (or URLs, of which the origin counts) where an OAuth token endpoint learned
   * from an issuer's metadata may be besides the issuer's own origin. None by default.
   */
  readonly tokenEndpointOrigins?: ReadonlyArray<string> | undefined
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

/**
 * How an exchange obtains its `Authorization` value, and whether a 401 earns one retry.
 *
 * @internal
 */
export interface Authorizer {
  readonly credential: Effect.Effect<Option.Option<Redacted.Redacted<string>>, TransportApi.TransportError>
  readonly invalidate: Effect.Effect<void>
  readonly retryOnce: boolean
}

const anonymous: Authorizer = { credential: Effect.succeedNone, invalidate: Effect.void, retryOnce: false }

const usableToken = /^[\x21-\x7e]+$/

/**
 * The authorizer of a `bearer` binding: the token resolved for every exchange (and again
 * after a 401), refused unless it is printable ASCII without spaces.
 *
 * @internal
 */
export const bearer = (credentials: Credentials.CredentialResolver["Type"], binding: Registration.Bearer): Authorizer => {
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

type Interpret<A> = (incoming: http.Incoming) => Effect.Effect<A, TransportApi.TransportError>

const unauthorizedAttempt: Attempt<never> = { _tag: "Unauthorized" }

const statusFailure = (status: number, expected: string) =>
  status >= 300 && status < 400
    ? http.failure("redirect", `the backend answered with a redirect (HTTP ${status}), which is not followed`, status)
    : http.failure("status", `the backend answered HTTP ${status} (expected ${expected})`, status)

const unauthorized = () => http.failure("unauthorized", "the backend rejected the request (HTTP 401)", 401)

const closedError = http.failure("closed", "the HTTP transport was closed")

const interpretRequest = (id: Json.JsonValue, maxBodyBytes: number): Interpret<Json.JsonValue> => (incoming) => {
  if (incoming.status !== 200) return Effect.fail(statusFailure(incoming.status, "200"))
  if (!http.isJson(incoming)) return Effect.fail(http.failure("malformed", "the response is not declared as application/json"))
  if (incoming.body === undefined) return Effect.fail(http.oversized("response", maxBodyBytes))
  const verdict = Either.match(Json.parseBytes(incoming.body), {
    onLeft: (error): response.Verdict => ({
      _tag: "Malformed",
      detail: error.reason === "depth"
        ? `the response body is JSON nested deeper than ${Json.maxDepth} levels`
        : "the response body is not UTF-8 JSON"
    }),
    onRight: (value) => response.classify(value, id)
  })
  return verdict._tag === "Response" ? Effect.succeed(verdict.value) : Effect.fail(http.failure("malformed", verdict.detail))
}

const interpretNotification = (maxBodyBytes: number): Interpret<void> => (incoming) => {
  if (incoming.status !== 202 && incoming.status !== 204) return Effect.fail(statusFailure(incoming.status, "202 or 204"))
  if (incoming.body === undefined) return Effect.fail(http.oversized("notification response", maxBodyBytes))
  return incoming.body.length > 0 ? Effect.fail(http.failure("malformed", "the notification response has a body")) : Effect.void
}

const jsonHeaders: Readonly<Record<string, string>> = { "content-type": "application/json", accept: "application/json" }

/** The `traceparent` of the current span under an installed tracer; nothing otherwise. */
const traceHeaders: Effect.Effect<Readonly<Record<string, string>>> = Effect.tracerWith((tracer) =>
  Tracing.isBuiltIn(tracer)
    ? Effect.succeed(jsonHeaders)
    : Effect.map(Effect.option(Effect.currentSpan), (span) =>
      Option.isNone(span) ? jsonHeaders : { ...jsonHeaders, ...HttpTraceContext.toHeaders(span.value) })
)

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
  Dispatcher | Credentials.CredentialResolver | Scope.Scope
> =>
  Effect.gen(function*() {
    // Closing the scope aborts the exchanges in flight and fails later ones with `closed`.
    const inFlight = new http.InFlight()
    yield* Effect.addFinalizer(() => Effect.sync(() => inFlight.close(closedError)))
    const dispatcher = yield* Dispatcher
    const credentials = yield* Credentials.CredentialResolver
    const maxBodyBytes = options.maxBodyBytes ?? defaults.maxBodyBytes
    const target = http.checkTarget(transport.url, "backend")

    let authorizer: Either.Either<Authorizer, TransportApi.TransportError> = Either.right(anonymous)
    if (authentication?.type === "bearer") {
      authorizer = Either.right(bearer(credentials, authentication))
    } else if (authentication?.type === "oauth" && authentication.flow === "client_credentials") {
      const tokens = yield* oauth.clientCredentials({
        dispatcher,
        credentials,
        maxBodyBytes,
        refreshMargin: Duration.decode(options.tokenRefreshMargin ?? defaults.tokenRefreshMargin),
        inFlight,
        tokenEndpointOrigins: oauth.originsOf(options.tokenEndpointOrigins ?? [])
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
      body: string,
      auth: Authorizer,
      interpret: Interpret<A>
    ): Effect.Effect<Attempt<A>, TransportApi.TransportError> =>
      Effect.flatMap(Effect.zip(auth.credential, traceHeaders), ([credential, headers]) =>
        http.exchange(dispatcher, {
          url,
          method: "POST",
          headers: Option.isNone(credential)
            ? headers
            : { ...headers, authorization: `Bearer ${Redacted.value(credential.value)}` },
          body
        }, maxBodyBytes, "backend", inFlight).pipe(
          Effect.flatMap((incoming): Effect.Effect<Attempt<A>, TransportApi.TransportError> =>
            incoming.status === 401
              ? Effect.succeed(unauthorizedAttempt)
              : Effect.map(interpret(incoming), (value) => ({ _tag: "Done", value }))
          )
        ))

    const send = <A>(message: Json.JsonObject, interpret: Interpret<A>): Effect.Effect<A, TransportApi.TransportError> =>
      Effect.suspend(() => {
        if (Either.isLeft(target)) return Effect.fail(target.left)
        if (Either.isLeft(authorizer)) return Effect.fail(authorizer.left)
        const auth = authorizer.right
        const url = target.right
        const encoded = Json.encode(message)
        if (Either.isLeft(encoded)) return Effect.fail(response.unencodable(encoded.left))
        const body = encoded.right
        return Effect.flatMap(attempt(url, body, auth, interpret), (first) => {
          if (first._tag === "Done") return Effect.succeed(first.value)
          if (!auth.retryOnce) return Effect.fail(unauthorized())
          return auth.invalidate.pipe(
            Effect.zipRight(attempt(url, body, auth, interpret)),
            Effect.flatMap((second) => second._tag === "Done" ? Effect.succeed(second.value) : Effect.fail(unauthorized()))
          )
        })
      })

    const exchange = <A>(message: Json.JsonObject, interpret: Interpret<A>): Effect.Effect<A, TransportApi.TransportError> =>
      Effect.suspend(() => inFlight.closed === undefined ? send(message, interpret) : Effect.fail(closedError))

    const traceRequest = Tracing.withSpanWhenTraced("HttpTransport.request")
    const traceNotify = Tracing.withSpanWhenTraced("HttpTransport.notify")
    const notification = interpretNotification(maxBodyBytes)
    const endpoint: TransportApi.Endpoint = {
      request: (message) =>
        traceRequest(
          Effect.flatMap(response.requestId(message), (id) => exchange(message, interpretRequest(id, maxBodyBytes)))
        ),
      notify: (message) => traceNotify(exchange(message, notification))
    }
    return endpoint
  })
