/**
 * Pieces shared by the HTTP binding and OAuth token acquisition: destination checks and
 * single exchanges on an undici dispatcher, each returning the whole response with its body
 * capped. Redirects are never followed (the dispatcher is used without redirect handling).
 * Details never contain URLs' secrets, bodies or header values.
 *
 * @internal
 */
import * as TransportApi from "@effect-ahp/harness/Transport"
import { Registration } from "@effect-ahp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Undici from "undici"

/** @internal */
export const failure = (reason: TransportApi.TransportFailure, detail: string, status?: number) =>
  new TransportApi.TransportError(status === undefined ? { reason, detail } : { reason, detail, status })

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
  if (parsed.protocol === "http:" && Registration.isLoopbackHost(parsed.hostname)) return Either.right(parsed)
  return Either.left(
    failure("unsupported", `the ${what} URL must use https (plain http is only allowed to loopback hosts)`)
  )
}

/**
 * A destination as a failure may show it: scheme, host, port and path, never its query or
 * fragment (which may carry a secret; credentials are refused before anything is sent).
 *
 * @internal
 */
export const shownUrl = (url: URL): string => `${url.origin}${url.pathname}`.slice(0, 200)

const systemCode = /^[A-Z][A-Z0-9_]{1,39}$/

/**
 * The error code of a failed connection, as the system (`ECONNREFUSED`, `ENOTFOUND`,
 * `ETIMEDOUT`…) or undici (`UND_ERR_CONNECT_TIMEOUT`, `UND_ERR_SOCKET`…) named it, or a
 * general description when it carries none. Only the code: the error's text is not shown.
 */
const errorCode = (error: unknown): string => {
  const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined
  return typeof code === "string" && systemCode.test(code) ? code : "connection refused, reset or lost"
}

/** @internal */
export interface Outgoing {
  readonly url: URL
  readonly method: "GET" | "POST"
  readonly headers: Readonly<Record<string, string>>
  readonly body?: string | Uint8Array | undefined
}

/** @internal */
export interface Incoming {
  readonly status: number
  readonly headers: Readonly<Record<string, string | Array<string> | undefined>>
  /** The whole body, or undefined when it exceeded the size limit (and was not read further). */
  readonly body: Uint8Array | undefined
}

const contentLength = /^\d+$/

/**
 * Collects one response for `exchange`. A finished receiver can stay reachable for a while
 * (long enough to be promoted to V8's old generation), so everything heavy —
 * the fiber's `resume`, undici's controller (which holds the request and its body), the
 * headers and body parts — is dropped as soon as the exchange is over.
 */
class Receiver implements Undici.Dispatcher.DispatchHandler {
  private controller: Undici.Dispatcher.DispatchController | undefined = undefined
  private cancelled = false
  private status = 0
  private headers: Incoming["headers"] = {}
  private parts: Array<Buffer> = []
  private size = 0

  constructor(
    private resume: ((result: Effect.Effect<Incoming, TransportApi.TransportError>) => void) | undefined,
    private readonly maxBytes: number,
    private readonly what: string,
    private readonly url: URL,
    private readonly inFlight: InFlight | undefined
  ) {}

  onRequestStart(controller: Undici.Dispatcher.DispatchController): void {
    this.controller = controller
    if (this.cancelled) controller.abort(new Error("the exchange was stopped"))
  }

  onResponseStart(_: Undici.Dispatcher.DispatchController, statusCode: number, headers: Incoming["headers"]): void {
    if (statusCode < 200) return
    this.status = statusCode
    this.headers = headers
    this.parts = []
    this.size = 0
    const declared = headers["content-length"]
    if (typeof declared === "string" && contentLength.test(declared) && Number(declared) > this.maxBytes) this.cutOff()
  }

  onResponseData(_: Undici.Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.resume === undefined) return
    this.size += chunk.length
    if (this.size > this.maxBytes) return this.cutOff()
    this.parts.push(chunk)
  }

  onResponseEnd(): void {
    const body = this.parts.length === 1 ? this.parts[0]! : Buffer.concat(this.parts, this.size)
    this.finish(Effect.succeed({ status: this.status, headers: this.headers, body }))
  }

  onResponseError(_: Undici.Dispatcher.DispatchController, error: Error): void {
    const where = shownUrl(this.url)
    const code = errorCode(error)
    this.finish(Effect.fail(
      this.status === 0
        ? failure("connection", `the ${this.what} at ${where} could not be reached (${code})`)
        : failure(
          "connection",
          `the connection to the ${this.what} at ${where} failed while reading its body (${code})`
        )
    ))
  }

  /** The exchange was interrupted: abort it (now, or as soon as it starts). */
  cancel(): void {
    if (this.resume === undefined) return
    this.cancelled = true
    this.end(undefined, "the exchange was stopped")
  }

  /** The endpoint was closed: abort the exchange (now, or as soon as it starts) and fail it with `error`. */
  abort(error: TransportApi.TransportError): void {
    this.cancelled = true
    this.end(Effect.fail(error), "the exchange was stopped")
  }

  /** The body is over the limit: answer without it and close the connection. */
  private cutOff(): void {
    this.end(
      Effect.succeed({ status: this.status, headers: this.headers, body: undefined }),
      "the response body is over the limit"
    )
  }

  /**
   * Ends the exchange — answering `result`, or nobody when the caller is gone — and then
   * aborts undici's request, whose error callback so finds nothing left to answer.
   */
  private end(result: Effect.Effect<Incoming, TransportApi.TransportError> | undefined, reason: string): void {
    const controller = this.controller
    if (result === undefined) this.release()
    else this.finish(result)
    controller?.abort(new Error(reason))
  }

  private finish(result: Effect.Effect<Incoming, TransportApi.TransportError>): void {
    const resume = this.resume
    if (resume === undefined) return
    this.release()
    resume(result)
  }

  /** Drops everything the finished exchange held (its controller holds undici's request). */
  private release(): void {
    this.inFlight?.delete(this)
    this.resume = undefined
    this.controller = undefined
    this.headers = {}
    this.parts = []
  }
}

/**
 * The exchanges in flight on one endpoint. Closing it aborts them, each failing with the
 * given error, and fails every later exchange with it at once — without a fiber per
 * exchange to interrupt.
 *
 * @internal
 */
export class InFlight {
  private readonly receivers = new Set<Receiver>()
  private closedWith: TransportApi.TransportError | undefined = undefined

  /** The error exchanges fail with once closed. */
  get closed(): TransportApi.TransportError | undefined {
    return this.closedWith
  }

  close(error: TransportApi.TransportError): void {
    this.closedWith = error
    const receivers = [...this.receivers]
    this.receivers.clear()
    for (const receiver of receivers) receiver.abort(error)
  }

  /** @internal */
  add(receiver: Receiver): void {
    this.receivers.add(receiver)
  }

  /** @internal */
  delete(receiver: Receiver): void {
    this.receivers.delete(receiver)
  }
}

/**
 * Sends `outgoing` and reads the whole response, its body up to `maxBytes`: a body that
 * is (or is declared) larger is not read further and its connection is closed. A refused,
 * reset or lost connection is `connection`. Interrupting the exchange aborts it (its
 * connection is closed). Informational (1xx) responses are skipped. With `inFlight`, the
 * exchange is registered there until it ends, and fails at once if that is closed.
 *
 * Driven through the dispatcher's handler interface: no promise, stream or abort signal
 * per exchange.
 *
 * @internal
 */
export const exchange = (
  dispatcher: Undici.Dispatcher,
  outgoing: Outgoing,
  maxBytes: number,
  what: string,
  inFlight?: InFlight
): Effect.Effect<Incoming, TransportApi.TransportError> =>
  Effect.async<Incoming, TransportApi.TransportError>((resume) => {
    const closed = inFlight?.closed
    if (closed !== undefined) return resume(Effect.fail(closed))
    const receiver = new Receiver(resume, maxBytes, what, outgoing.url, inFlight)
    inFlight?.add(receiver)
    dispatcher.dispatch({
      origin: outgoing.url.origin,
      path: outgoing.url.pathname + outgoing.url.search,
      method: outgoing.method,
      headers: outgoing.headers,
      body: outgoing.body ?? null
    }, receiver)
    return Effect.sync(() => receiver.cancel())
  })

/**
 * The `oversized` failure for a body larger than `maxBytes`.
 *
 * @internal
 */
export const oversized = (what: string, maxBytes: number) =>
  failure("oversized", `the ${what} body exceeds the size limit of ${maxBytes} bytes`)

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
