/**
 * A reference HTTP transport on `@effect/platform`'s `HttpClient` (over undici): the
 * contract's yardstick for `HttpTransport`, which drives an undici dispatcher directly. It
 * implements the binding plainly — one `POST` per message, status and content type checked,
 * the body read up to a bound, the JSON-RPC answer classified (a JSON-RPC error answer with
 * the token masked) — with no authorization other than a fixed bearer token.
 */
import * as TransportApi from "@effect-ahp/harness/Transport"
import { Json } from "@effect-ahp/protocol"
import type { Registration } from "@effect-ahp/protocol"
import * as HttpClient from "@effect/platform/HttpClient"
import * as HttpClientRequest from "@effect/platform/HttpClientRequest"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import { Chunk, Effect, Either, Fiber, FiberSet, Option, Ref, Stream } from "effect"
import type { Scope } from "effect"
import * as response from "../../src/internal/response.js"

/** What the reference is told besides the transport. */
export interface Options {
  readonly maxBodyBytes: number
  readonly bearer?: string | undefined
}

const failure = (reason: TransportApi.TransportFailure, detail: string, status?: number) =>
  new TransportApi.TransportError({ reason, detail, ...(status === undefined ? {} : { status }) })

const loopback = new Set(["127.0.0.1", "localhost", "[::1]"])

/** The body, or `oversized` once it passes `limit` bytes (the rest is not read). */
const boundedBody = (incoming: HttpClientResponse.HttpClientResponse, limit: number) =>
  incoming.stream.pipe(
    Stream.mapError(() => failure("connection", "the response body could not be read")),
    Stream.runFoldEffect(Chunk.empty<Uint8Array>(), (parts, part) => {
      const size = Chunk.reduce(parts, part.length, (n, p) => n + p.length)
      return size > limit
        ? Effect.fail(failure("oversized", `the response is larger than ${limit} bytes`))
        : Effect.succeed(Chunk.append(parts, part))
    }),
    Effect.map((parts) => Buffer.concat(Chunk.toArray(parts)))
  )

const statusFailure = (status: number) =>
  status >= 300 && status < 400
    ? failure("redirect", `redirect (HTTP ${status})`, status)
    : status === 401
    ? failure("unauthorized", "HTTP 401", 401)
    : failure("status", `HTTP ${status}`, status)

const isJson = (incoming: HttpClientResponse.HttpClientResponse) =>
  /^application\/json(\s*;|$)/i.test(incoming.headers["content-type"] ?? "")

/** Connects the backend for the lifetime of the current scope, through the `HttpClient` in context. */
export const connect = (
  transport: Registration.HttpTransport,
  options: Options
): Effect.Effect<TransportApi.Endpoint, never, HttpClient.HttpClient | Scope.Scope> =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const inFlight = yield* FiberSet.make<unknown, TransportApi.TransportError>()
    const closed = yield* Ref.make(false)
    yield* Effect.addFinalizer(() => Ref.set(closed, true))
    const secrets = options.bearer === undefined ? [] : [options.bearer]
    const url = Option.getOrUndefined(Option.liftThrowable(() => new URL(transport.url))())
    const supported = url !== undefined &&
      (url.protocol === "https:" || (url.protocol === "http:" && loopback.has(url.hostname)))
    const send = (message: Json.JsonObject) =>
      HttpClientRequest.post(transport.url).pipe(
        HttpClientRequest.bodyText(Json.stringify(message), "application/json"),
        HttpClientRequest.setHeader("accept", "application/json"),
        options.bearer === undefined ? (r) => r : HttpClientRequest.bearerToken(options.bearer),
        client.execute,
        Effect.mapError(() => failure("connection", "the request failed"))
      )
    const exchange = <A>(
      message: Json.JsonObject,
      read: (incoming: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, TransportApi.TransportError>
    ): Effect.Effect<A, TransportApi.TransportError> =>
      Effect.gen(function*() {
        if (!supported) return yield* failure("unsupported", "https is required except to loopback")
        if (yield* Ref.get(closed)) return yield* failure("closed", "the transport was closed")
        const fiber = yield* FiberSet.run(inFlight, Effect.scoped(Effect.flatMap(send(message), read)))
        return yield* Effect.catchAllCause(
          Effect.onInterrupt(Effect.flatten(fiber.await), () => Fiber.interrupt(fiber)),
          (cause) =>
            Effect.flatMap(
              Ref.get(closed),
              (isClosed) =>
                isClosed ? Effect.fail(failure("closed", "the transport was closed")) : Effect.failCause(cause)
            )
        ) as Effect.Effect<A, TransportApi.TransportError>
      })
    return {
      request: (message) =>
        exchange(message, (incoming) =>
          Effect.gen(function*() {
            if (incoming.status !== 200) return yield* statusFailure(incoming.status)
            if (!isJson(incoming)) return yield* failure("malformed", "not application/json")
            const body = yield* boundedBody(incoming, options.maxBodyBytes)
            const parsed = Json.parseBytes(body)
            if (Either.isLeft(parsed)) return yield* failure("malformed", "not UTF-8 JSON")
            const verdict = response.classify(parsed.right, message["id"] ?? null, () => secrets)
            return verdict._tag === "Response" ? verdict.value : yield* failure("malformed", verdict.detail)
          })),
      notify: (message) =>
        exchange(message, (incoming) =>
          Effect.gen(function*() {
            if (incoming.status !== 202 && incoming.status !== 204) return yield* statusFailure(incoming.status)
            const body = yield* boundedBody(incoming, options.maxBodyBytes)
            if (body.length > 0) return yield* failure("malformed", "the notification response has a body")
          }))
    }
  })
