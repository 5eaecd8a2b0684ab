/**
 * Pieces shared by the HTTP binding and OAuth token acquisition: destination checks,
 * capped body reads and error mapping. Details never contain URLs' secrets, bodies or
 * header values.
 *
 * @internal
 */
import * as TransportApi from "@effect-ahp/harness/Transport"
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

/**
 * Reads a response body, failing with `oversized` (and reading no further) once it
 * exceeds `maxBytes`.
 *
 * @internal
 */
export const readBody = (
  response: HttpClientResponse.HttpClientResponse,
  maxBytes: number,
  what: string
): Effect.Effect<Uint8Array, TransportApi.TransportError> =>
  Effect.suspend(() => {
    const tooLarge = () => failure("oversized", `the ${what} body exceeds the size limit of ${maxBytes} bytes`)
    const declared = Number(response.headers["content-length"] ?? Number.NaN)
    if (declared > maxBytes) return Effect.fail(tooLarge())
    const parts: Array<Uint8Array> = []
    let size = 0
    return response.stream.pipe(
      Stream.mapError((error) => clientFailure(error, `${what} body`)),
      Stream.runForEach((chunk) => {
        size += chunk.length
        if (size > maxBytes) return Effect.fail(tooLarge())
        parts.push(chunk)
        return Effect.void
      }),
      Effect.map(() => {
        const body = new Uint8Array(size)
        let offset = 0
        for (const part of parts) {
          body.set(part, offset)
          offset += part.length
        }
        return body
      })
    )
  })

/**
 * Whether a response declares a JSON media type (or declares none).
 *
 * @internal
 */
export const isJson = (response: HttpClientResponse.HttpClientResponse): boolean => {
  const type = response.headers["content-type"]
  if (type === undefined) return true
  const media = type.split(";")[0]!.trim().toLowerCase()
  return media === "application/json" || media.endsWith("+json")
}
