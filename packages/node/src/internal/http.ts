/**
 * Pieces shared by the HTTP binding and OAuth token acquisition: destination checks and
 * single exchanges on an undici dispatcher with capped body reads. The request is sent
 * with its whole body; the response's status and headers come back with its body unread;
 * interrupting an exchange aborts it. Redirects are never followed (the dispatcher is used
 * without redirect handling). Details never contain URLs' secrets, bodies or header values.
 *
 * @internal
 */
import * as TransportApi from "@effect-ahp/harness/Transport"
import type * as Undici from "@effect/platform-node/Undici"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"

/** @internal */
export const failure = (reason: TransportApi.TransportFailure, detail: string, status?: number) =>
  new TransportApi.TransportError(status === undefined ? { reason, detail } : { reason, detail, status })

const loopbackV4 = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/

/** Whether a URL host is a loopback address (127.0.0.0/8, ::1, localhost). */
const isLoopback = (hostname: string): boolean =>
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

/** @internal */
export interface Outgoing {
  readonly url: URL
  readonly method: "GET" | "POST"
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array | undefined
}

/** @internal */
export type Incoming = Undici.Dispatcher.ResponseData

/**
 * Sends `outgoing` and waits for the response's status and headers. A refused, reset or
 * lost connection is `connection`.
 *
 * @internal
 */
export const send = (
  dispatcher: Undici.Dispatcher,
  outgoing: Outgoing,
  what: string
): Effect.Effect<Incoming, TransportApi.TransportError> =>
  Effect.async<Incoming, TransportApi.TransportError>((resume, signal) => {
    dispatcher.request({
      origin: outgoing.url.origin,
      path: outgoing.url.pathname + outgoing.url.search,
      method: outgoing.method,
      headers: outgoing.headers,
      body: outgoing.body ?? null,
      signal
    }).then(
      (incoming) => {
        // A late body error (the connection lost while nobody reads) must not go unhandled.
        incoming.body.on("error", ignore)
        if (signal.aborted) incoming.body.destroy()
        else resume(Effect.succeed(incoming))
      },
      () => resume(Effect.fail(failure("connection", `the ${what} could not be reached (connection refused, reset or lost)`)))
    )
  })

const ignore = () => {}

const contentLength = /^\d+$/

/**
 * Reads a response body, failing with `oversized` once it exceeds `maxBytes` (or at once
 * when its declared `Content-Length` does); a body that is too large is not read further
 * and its connection is closed. Interrupting the read closes the connection too.
 *
 * @internal
 */
export const readBody = (
  incoming: Incoming,
  maxBytes: number,
  what: string
): Effect.Effect<Uint8Array, TransportApi.TransportError> =>
  Effect.async<Uint8Array, TransportApi.TransportError>((resume) => {
    const body = incoming.body
    const tooLarge = () => {
      body.destroy()
      resume(Effect.fail(failure("oversized", `the ${what} body exceeds the size limit of ${maxBytes} bytes`)))
    }
    const declared = incoming.headers["content-length"]
    if (typeof declared === "string" && contentLength.test(declared) && Number(declared) > maxBytes) return tooLarge()
    const parts: Array<Buffer> = []
    let size = 0
    const onData = (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBytes) {
        detach()
        return tooLarge()
      }
      parts.push(chunk)
    }
    const onEnd = () => {
      detach()
      resume(Effect.succeed(parts.length === 1 ? parts[0]! : Buffer.concat(parts, size)))
    }
    const onError = () => {
      detach()
      resume(Effect.fail(failure("connection", `the connection failed while reading the ${what} body`)))
    }
    const detach = () => {
      body.off("data", onData)
      body.off("end", onEnd)
      body.off("error", onError)
    }
    body.on("data", onData)
    body.on("end", onEnd)
    body.on("error", onError)
    return Effect.sync(() => {
      detach()
      body.destroy()
    })
  })

/**
 * Consumes a response body that will not be used (up to `maxBytes`; a larger one is cut
 * off), so the connection can be reused or is closed. Never fails.
 *
 * @internal
 */
export const discardBody = (incoming: Incoming, maxBytes: number): Effect.Effect<void> =>
  Effect.ignore(readBody(incoming, maxBytes, "discarded"))

/** The value of a response header (the first, if repeated). */
const header = (incoming: Incoming, name: string): string | undefined => {
  const value = incoming.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/**
 * Whether a response declares a JSON media type (or declares none).
 *
 * @internal
 */
export const isJson = (incoming: Incoming): boolean => {
  const type = header(incoming, "content-type")
  if (type === undefined || type === "application/json") return true
  const media = type.split(";")[0]!.trim().toLowerCase()
  return media === "application/json" || media.endsWith("+json")
}
