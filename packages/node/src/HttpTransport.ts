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
 * - Authentication follows the backend's explicit binding, or discovery without one, through
 *   an `HttpAuth` authorizer (see there): the first attempt carries what the authorizer
 *   gives (for `bearer` a token resolved for every dispatch: missing or empty is
 *   `credential`, nothing sent, never an anonymous fallback); after a 401 its challenge
 *   yields the credential for exactly one retry of the identical body (a rotated bearer
 *   token, a new OAuth token, or one found by RFC 9728 discovery when there is no binding)
 *   or fails the call; a second 401 is `unauthorized`.

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
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import type * as Undici from "undici"
import * as Credentials from "./Credentials.js"
import * as HttpAuth from "./HttpAuth.js"
import * as http from "./internal/http.js"
import * as response from "./internal/response.js"
import * as TokenStore from "./TokenStore.js"

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
 * when the layer is released. Only undici's `Agent` module is loaded, and only when the
 * layer is built: the package's index also loads undici's fetch, WebSocket, cookie and mock
 * modules and, through them, Node's own copy of undici (about 70–85 ms against 21–25 ms for
 * the `Agent` module alone, measured with `require` in a fresh Node 20), which a process
 * that never builds the HTTP binding (validating, serving a backend over stdio) does not
 * pay at all.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerDispatcher: Layer.Layer<Dispatcher> = Layer.scoped(
  Dispatcher,
  Effect.acquireRelease(
    // `default` is the module's `module.exports` (CommonJS), the class, in Node and in bundles alike
    Effect.promise(() => import("undici/lib/dispatcher/agent.js")).pipe(
      Effect.map((agent): Undici.Dispatcher => new agent.default())
    ),
    (agent) => Effect.promise(() => agent.destroy())
  )
)

/**
 * Tuning for the HTTP binding. Every field is optional; see `defaults`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends HttpAuth.Options {
  /** Largest accepted response body, in bytes. */
  readonly maxBodyBytes?: number | undefined
}

/**
 * The default options: 8 MiB bodies (and `HttpAuth.defaults`).
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  ...HttpAuth.defaults,
  maxBodyBytes: 8 * 1024 * 1024
} as const

/** Reads an incoming response: synchronous, so reading it is not a step of its own. */
/** Reads a response; `secrets` are what a JSON-RPC error answer must not quote (the credential sent included). */
type Interpret<A> = (
  incoming: http.Incoming,
  secrets: () => ReadonlyArray<string>
) => Either.Either<A, TransportApi.TransportError>

const statusFailure = (status: number, expected: string) =>
  status >= 300 && status < 400
    ? http.failure("redirect", `the backend answered with a redirect (HTTP ${status}), which is not followed`, status)
    : http.failure("status", `the backend answered HTTP ${status} (expected ${expected})`, status)

const unauthorized = () => http.failure("unauthorized", "the backend rejected the request (HTTP 401)", 401)

const closedError = http.failure("closed", "the HTTP transport was closed")

const interpretRequest = (id: Json.JsonValue, maxBodyBytes: number): Interpret<Json.JsonValue> =>
(
  incoming,
  secrets
) => {
  if (incoming.status !== 200) return Either.left(statusFailure(incoming.status, "200"))
  if (!http.isJson(incoming)) {
    return Either.left(http.failure("malformed", "the response is not declared as application/json"))
  }
  if (incoming.body === undefined) return Either.left(http.oversized("response", maxBodyBytes))
  const verdict = Either.match(Json.parseBytes(incoming.body), {
    onLeft: (error): response.Verdict => ({
      _tag: "Malformed",
      detail: error.reason === "depth"
        ? `the response body is JSON nested deeper than ${Json.maxDepth} levels`
        : "the response body is not UTF-8 JSON"
    }),
    onRight: (value) => response.classify(value, id, secrets)
  })
  return verdict._tag === "Response"
    ? Either.right(verdict.value)
    : Either.left(http.failure("malformed", verdict.detail))
}

const interpretNotification = (maxBodyBytes: number): Interpret<void> => (incoming) => {
  if (incoming.status !== 202 && incoming.status !== 204) {
    return Either.left(statusFailure(incoming.status, "202 or 204"))
  }
  if (incoming.body === undefined) return Either.left(http.oversized("notification response", maxBodyBytes))
  return incoming.body.length > 0
    ? Either.left(http.failure("malformed", "the notification response has a body"))
    : Either.void
}

const jsonHeaders: Readonly<Record<string, string>> = { "content-type": "application/json", accept: "application/json" }

/** The W3C trace context headers of the event's `org.w3c.trace_context` extension, if any. */
const eventTraceHeaders = (body: Json.JsonObject): Readonly<Record<string, string>> => {
  const context = Tracing.traceContextOfMessage(body)
  if (context === undefined) return jsonHeaders
  return context.tracestate === undefined
    ? { ...jsonHeaders, traceparent: context.traceparent }
    : { ...jsonHeaders, traceparent: context.traceparent, tracestate: context.tracestate }
}

/**
 * The `traceparent` of the current span under an installed tracer, or else the trace
 * context the event carries, if any (untraced, `eventTraceHeaders` at once).
 */
const traceHeaders = (body: Json.JsonObject): Effect.Effect<Readonly<Record<string, string>>> =>
  Effect.map(
    Effect.option(Effect.currentSpan),
    (span) =>
      Option.isNone(span) ? eventTraceHeaders(body) : { ...jsonHeaders, ...HttpTraceContext.toHeaders(span.value) }
  )

/**
 * What `connect` knows about the backend besides its transport.
 *
 * @since 0.1.0
 * @category models
 */
export interface Connection {
  /** The backend's id, named in errors (e.g. the login command); `backend` by default. */
  readonly backend?: string | undefined
  /** Values masked in a JSON-RPC error answer, besides the credential sent (read only for one). */
  readonly secrets?: (() => ReadonlyArray<string>) | undefined
}

/**
 * The `HttpAuth` service from the dispatcher, the credential resolver and (when there is
 * one) the `TokenStore` in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerAuth = (
  options: HttpAuth.Options = {}
): Layer.Layer<HttpAuth.HttpAuth, never, Dispatcher | Credentials.CredentialResolver> =>
  Layer.effect(HttpAuth.HttpAuth, makeAuth(options))

/**
 * Builds an `HttpAuth` from the dispatcher, the credential resolver and (when there is
 * one) the `TokenStore` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeAuth = (
  options: HttpAuth.Options = {}
): Effect.Effect<HttpAuth.HttpAuth["Type"], never, Dispatcher | Credentials.CredentialResolver> =>
  Effect.gen(function*() {
    const dispatcher = yield* Dispatcher
    const credentials = yield* Credentials.CredentialResolver
    const store = yield* Effect.serviceOption(TokenStore.TokenStore)
    return yield* HttpAuth.make({ dispatcher, credentials, store }, options)
  })

/**
 * Connects an HTTP backend for the lifetime of the current scope. Connecting sends
 * nothing; URL and authentication problems surface on each call, before anything is sent.
 * Authorization goes through the `HttpAuth` in context (so its token cache is shared with
 * every endpoint using it), or through one of the endpoint's own built from `options`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  transport: Registration.HttpTransport,
  authentication: Registration.Authentication | undefined,
  options: Options = {},
  connection: Connection = {}
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
    const maxBodyBytes = options.maxBodyBytes ?? defaults.maxBodyBytes
    const target = http.checkTarget(transport.url, "backend")
    const shared = yield* Effect.serviceOption(HttpAuth.HttpAuth)
    const auth = Option.isSome(shared) ? shared.value : yield* makeAuth(options)
    const authorizer = Either.map(target, (url) =>
      auth.authorizer({ url, authentication, backend: connection.backend ?? "backend", purpose: "event" }, inFlight))

    const secretsWith = (credential: Option.Option<Redacted.Redacted<string>>) => () => [
      ...(connection.secrets?.() ?? []),
      ...(Option.isSome(credential) ? [Redacted.value(credential.value)] : [])
    ]

    /**
     * One POST of `body` with `credential`; its response is read by `answer` in the same
     * step (a 401 included).
     */
    const attempt = <A>(
      url: URL,
      message: Json.JsonObject,
      body: string,
      credential: Option.Option<Redacted.Redacted<string>>,
      traced: boolean,
      answer: (incoming: http.Incoming) => Effect.Effect<A, TransportApi.TransportError>
    ): Effect.Effect<A, TransportApi.TransportError> => {
      const post = (headers: Readonly<Record<string, string>>) =>
        Effect.flatMap(
          http.exchange(
            dispatcher,
            {
              url,
              method: "POST",
              headers: Option.isNone(credential)
                ? headers
                : { ...headers, authorization: `Bearer ${Redacted.value(credential.value)}` },
              body
            },
            maxBodyBytes,
            "backend",
            inFlight
          ),
          answer
        )
      // Untraced, the headers are known at once: no step to read the current span.
      return traced ? Effect.flatMap(traceHeaders(message), post) : post(eventTraceHeaders(message))
    }

    /** The exchange (a closed endpoint fails it at once), under an installed tracer when `traced`. */
    const send = <A>(
      message: Json.JsonObject,
      interpret: Interpret<A>,
      traced: boolean
    ): Effect.Effect<A, TransportApi.TransportError> => {
      if (inFlight.closed !== undefined) {
        return Effect.fail(closedError)
      }
      if (Either.isLeft(target)) {
        return Effect.fail(target.left)
      }
      if (Either.isLeft(authorizer)) {
        return Effect.fail(authorizer.left)
      }
      const auth = authorizer.right
      const url = target.right
      const encoded = Json.encode(message)
      if (Either.isLeft(encoded)) {
        return Effect.fail(response.unencodable(encoded.left))
      }
      const body = encoded.right
      // After a 401, one retry with the challenge's credential; a second 401 ends the call.
      const retry = (credential: Redacted.Redacted<string>) =>
        attempt(url, message, body, Option.some(credential), traced, (incoming) =>
          incoming.status === 401
            ? Effect.fail(unauthorized())
            : interpret(incoming, secretsWith(Option.some(credential))))
      const attempts = (credential: Option.Option<Redacted.Redacted<string>>) =>
        attempt(url, message, body, credential, traced, (incoming) =>
          incoming.status === 401
            ? Effect.flatMap(
              auth.challenge({ wwwAuthenticate: incoming.headers["www-authenticate"], credential }),
              retry
            )
            : interpret(incoming, secretsWith(credential)))
      // A credential known at once (none, without a binding) costs no steps of its own.
      const now = auth.credentialNow?.()
      return now !== undefined ? attempts(now) : Effect.flatMap(auth.credential, attempts)
    }

    /** The exchange in its span `name` under an installed tracer (the tracer read once). */
    const exchange = <A>(
      name: string,
      message: Json.JsonObject,
      interpret: Interpret<A>
    ): Effect.Effect<A, TransportApi.TransportError> =>
      Effect.tracerWith((tracer) =>
        Tracing.isBuiltIn(tracer)
          ? send(message, interpret, false)
          : Effect.withSpan(
            Effect.suspend(() =>
              send(message, interpret, true)
            ),
            name,
            { captureStackTrace: false }
          )
      )

    const notification = interpretNotification(maxBodyBytes)
    const endpoint: TransportApi.Endpoint = {
      request: (message) =>
        message.id === undefined
          ? response.requestId(message)
          : exchange("HttpTransport.request", message, interpretRequest(message.id, maxBodyBytes)),
      notify: (message) => exchange("HttpTransport.notify", message, notification)
    }
    return endpoint
  })
