/**
 * Pieces shared by the HTTP binding and OAuth token acquisition: destination checks,
 * capped body reads and error mapping. Details never contain URLs' secrets, bodies or
 * header values.
 *
 * @internal
 */
import * as Tracing from "@effect-ahp/harness/Tracing"
import * as TransportApi from "@effect-ahp/harness/Transport"
import type * as Headers from "@effect/platform/Headers"
import type * as HttpClientError from "@effect/platform/HttpClientError"
import type * as HttpClientResponse from "@effect/platform/HttpClientResponse"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"

/** @internal */
export const failure = (reason: TransportApi.TransportFailure, detail: string, status?: number) =>
  new TransportApi.TransportError(status === undefined ? { reason, detail } : { reason, detail, status })

const loopbackV4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/

/**
 * Whether a URL host is a loopback address (127.0.0.0/8, ::1, localhost).
 *
 * @internal
 */
export const isLoopback = (hostname: string): boolean =>
  hostname === "localhost" || hostname === "[::1]" || loopbackV4.test(hostname)

/**
 * Parses a destination: `https`, or plain `http` only to a loopback host; no user
 * information in the URL. Anything else is `unsupported`, before anything is sent.
 *
 * @internal
 */
export const checkTarget = (url: string, what: string): Either.Either<URL, TransportApi.TransportError> => {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return Either.left(failure("unsupported", `the ${what} URL is not valid`))
  }
  if (parsed.username !== "" || parsed.password !== "") {
    return Either.left(failure("unsupported", `the ${what} URL must not carry credentials`))
  }
  if (parsed.protocol === "https:") return Either.right(parsed)
  if (parsed.protocol === "http:" && isLoopback(parsed.hostname)) return Either.right(parsed)
  return Either.left(
    failure("unsupported", `the ${what} URL must use https (plain http is only allowed to loopback hosts)`)
  )
}

/**
 * Maps a client failure: a transport failure (refused, reset, DNS, TLS) is `connection`.
 *
 * @internal
 */
export const clientFailure = (error: HttpClientError.HttpClientError, what: string): TransportApi.TransportError => {
  if (error._tag === "ResponseError") return failure("connection", `the connection failed while reading the ${what}`)
  switch (error.reason) {
    case "Transport":
      return failure("connection", `the ${what} could not be reached (connection refused, reset or lost)`)
    case "InvalidUrl":
      return failure("unsupported", `the ${what} URL is not valid`)
    case "Encode":
      return failure("io", `the request to the ${what} could not be encoded`)
  }
}

const contentLength = /^\d+$/

/**
 * Reads a response body, failing with `oversized` once it exceeds `maxBytes`. A body whose
 * declared `Content-Length` is within the limit is read in one piece (the client never
 * reads past the declared length); any other body is streamed and counted. A body that
 * is too large is not read further: its connection is closed.
 *
 * @internal
 */
export const readBody = (
  response: HttpClientResponse.HttpClientResponse,
  headers: Headers.Headers,
  maxBytes: number,
  what: string
): Effect.Effect<Uint8Array, TransportApi.TransportError> =>
  Effect.suspend(() => {
    // Built only on failure: making a `TransportError` runs its schema validation.
    const tooLarge = () => failure("oversized", `the ${what} body exceeds the size limit of ${maxBytes} bytes`)
    const readFailure = (error: HttpClientError.ResponseError) => clientFailure(error, `${what} body`)
    const declared = headers["content-length"]
    if (declared !== undefined && contentLength.test(declared)) {
      return Number(declared) <= maxBytes
        ? Effect.map(Effect.mapError(response.arrayBuffer, readFailure), (buffer) => new Uint8Array(buffer))
        // Ending the stream after its first chunk drops the connection.
        : Effect.zipRight(Effect.ignore(Stream.runDrain(Stream.take(response.stream, 1))), Effect.failSync(tooLarge))
    }
    const parts: Array<Uint8Array> = []
    let size = 0
    return response.stream.pipe(
      Stream.mapError(readFailure),
      Stream.runForEachChunk((chunk) => {
        for (const part of chunk) {
          size += part.length
          if (size > maxBytes) return Effect.failSync(tooLarge)
          parts.push(part)
        }
        return Effect.void
      }),
      Effect.map(() => Buffer.concat(parts, size))
    )
  })

/**
 * Consumes a response body that will not be used (up to `maxBytes`; a larger one is cut
 * off), so the connection can be reused or is closed. Never fails.
 *
 * @internal
 */
export const discardBody = (
  response: HttpClientResponse.HttpClientResponse,
  headers: Headers.Headers,
  maxBytes: number
): Effect.Effect<void> => Effect.ignore(readBody(response, headers, maxBytes, "discarded"))

/**
 * Whether response headers declare a JSON media type (or declare none).
 *
 * @internal
 */
export const isJson = (headers: Headers.Headers): boolean => {
  const type = headers["content-type"]
  if (type === undefined || type === "application/json") return true
  const media = type.split(";")[0]!.trim().toLowerCase()
  return media === "application/json" || media.endsWith("+json")
}

/**
 * Runs a client call without the client's own span while only Effect's built-in tracer
 * is current (it exports nowhere, and the span with its attributes and propagation
 * headers costs about as much as the rest of the exchange); under any other tracer the
 * call is traced as usual, `Authorization` redacted.
 *
 * @internal
 */
export const withClientSpanWhenTraced = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tracerWith((tracer) => Tracing.isBuiltIn(tracer) ? Effect.withTracerEnabled(self, false) : self)
