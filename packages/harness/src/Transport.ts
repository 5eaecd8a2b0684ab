/**
 * How the harness reaches backends: a service that connects one registered backend and
 * returns an `Endpoint` for requests and notifications. The harness core knows no
 * platform; `@effect-ahp/node` provides stdio and HTTP, and `layerInProcess` here serves
 * backends written as plain Effect functions (for embedding and tests).
 *
 * Contract for implementations:
 * - `connect` is cheap: it starts no process and opens no socket; problems with a URL, a
 *   credential or a command surface on each call as `TransportError`s.
 * - `start` (optional) starts what the endpoint keeps running — a persistent child process
 *   — ahead of the first call, so starting it does not eat that call's deadline. The
 *   harness calls it once when it is built (`startAll`): a failure is logged there, per
 *   backend, and surfaces again on each call that needs what could not be started.
 * - `request` sends one JSON-RPC request object (it always has an id) and succeeds with
 *   the parsed JSON value of the response whose id equals the request's id (stray,
 *   duplicate and late frames are dropped); the harness validates everything else about
 *   the response.
 * - `notify` sends one notification and succeeds once the binding considers it delivered
 *   (there is no acknowledgement in the protocol): HTTP 202/204 without a body; written
 *   into a persistent child's stdin (not merely queued for it); a per-event child exited
 *   with status 0 after reading it and the end of its stdin. See each binding for details.
 * - Both are interruptible, and a deadline is a promise to the caller: on interruption the
 *   implementation abandons the exchange at once and completes the interruption without
 *   waiting for I/O. Whatever must still happen — killing and reaping a child, aborting a
 *   request — continues in the background in the endpoint's scope, and closing that scope
 *   waits for it, so nothing outlives the endpoint. The harness wraps both in the
 *   subscription deadline (which therefore also covers credential resolution and the
 *   single authentication retry). Calls during or after the close of the connecting
 *   scope fail with `closed`.
 * - Failures are `TransportError`s whose `detail` never contains credentials or backend
 *   output, except a stdio backend's stderr tail (bounded, with every configured secret
 *   redacted), which is what makes a failing child diagnosable.
 *
 * @since 0.1.0
 */
import { Common, Json } from "@effect-ahp/protocol"
import type { JsonRpc, Registration } from "@effect-ahp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { hasProperty } from "effect/Predicate"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"

/**
 * Why a transport exchange failed.
 *
 * @since 0.1.0
 * @category models
 */
export const TransportFailure = Schema.Literal(
  /** The backend process could not be started. */
  "spawn",
  /**
   * The backend process exited (or closed its output) before answering, ended with a
   * failure status, or (per event) did not exit in time after its message.
   */
  "exited",
  /** Reading or writing failed. */
  "io",
  /**
   * The bytes received were not one well-formed JSON-RPC message (bad UTF-8, JSON, framing,
   * nesting deeper than `Json.maxDepth`), or a message could not be written as JSON.
   */
  "malformed",
  /** A line or body exceeded the size cap. */
  "oversized",
  /** The connection was refused, reset or lost. */
  "connection",
  /** The HTTP status was not the binding's success status. */
  "status",
  /** The server answered with a redirect, which is never followed. */
  "redirect",
  /** A credential could not be resolved or acquired; nothing was sent. */
  "credential",
  /** Authentication was rejected. */
  "unauthorized",
  /** The transport was closed. */
  "closed",
  /** The backend's transport or authentication is not supported here. */
  "unsupported",
  /** The enclosing hook-call budget (the host's own deadline) ran out before the exchange ended. */
  "budget"
)

/**
 * @since 0.1.0
 * @category models
 */
export type TransportFailure = typeof TransportFailure.Type

/**
 * The brand of a `TransportError`.
 *
 * @since 0.1.0
 * @category type ids
 */
export const TransportErrorTypeId: unique symbol = Symbol.for("@effect-ahp/harness/TransportError")

/**
 * @since 0.1.0
 * @category type ids
 */
export type TransportErrorTypeId = typeof TransportErrorTypeId

/**
 * A failed exchange with a backend. `detail` is safe to show: no credentials, and no
 * backend output beyond a stdio backend's redacted stderr tail.
 *
 * @since 0.1.0
 * @category errors
 */
export class TransportError extends Schema.TaggedError<TransportError>("@effect-ahp/harness/TransportError")(
  "TransportError",
  {
    reason: TransportFailure,
    detail: Schema.String,
    status: Common.optional(Schema.Number)
  }
) {
  readonly [TransportErrorTypeId]: TransportErrorTypeId = TransportErrorTypeId
  override get message(): string {
    return `${this.reason}: ${this.detail}`
  }
}

/**
 * Whether a value is a `TransportError`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isTransportError = (u: unknown): u is TransportError => hasProperty(u, TransportErrorTypeId)

/**
 * A connected backend.
 *
 * @since 0.1.0
 * @category models
 */
export interface Endpoint {
  /**
   * Sends a request; succeeds with the parsed response carrying the same id. A JSON-RPC
   * error answer comes back with the credentials the endpoint holds masked in its `error`:
   * the harness quotes its message and data in the route's failure.
   */
  readonly request: (message: Json.JsonObject) => Effect.Effect<Json.JsonValue, TransportError>
  /** Sends a notification; succeeds once delivered. */
  readonly notify: (message: Json.JsonObject) => Effect.Effect<void, TransportError>
  /** Starts what the endpoint keeps running (a persistent child) ahead of the first call. */
  readonly start?: Effect.Effect<void, TransportError> | undefined
  /** What the endpoint can tell about its backend for a diagnosis (a stdio child's redacted stderr tail). */
  readonly diagnostics?: Effect.Effect<string | undefined> | undefined
}

/**
 * What the harness tells a transport about the endpoint it connects.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConnectOptions {
  /**
   * The bound of each observation delivery: closing the endpoint gives a persistent
   * observer this long to read what it was sent and exit after the end of its stdin.
   */
  readonly observationTimeoutMs?: number | undefined
}

/**
 * The transport service: connects a backend for the lifetime of the given scope.
 * Connecting should be cheap (start processes in `Endpoint.start` or lazily); closing the
 * scope releases everything the endpoint owns, background work included.
 *
 * @since 0.1.0
 * @category tags
 */
export class Transports extends Context.Tag("@effect-ahp/harness/Transports")<Transports, {
  readonly connect: (
    backend: Registration.Backend,
    options?: ConnectOptions
  ) => Effect.Effect<Endpoint, TransportError, Scope.Scope>
}>() {}

/**
 * Starts every connected endpoint that has a `start`, concurrently, and waits for them. A
 * backend that could not be connected or started is logged (a warning naming the backend
 * and the failure), never a failure of the whole: each call that needs it fails again as
 * a route failure.
 *
 * @since 0.1.0
 * @category constructors
 */
export const startAll = (
  endpoints: ReadonlyMap<string, Either.Either<Endpoint, TransportError>>
): Effect.Effect<void> =>
  Effect.forEach(endpoints, ([backend, connected]) => {
    const started = Either.isLeft(connected) ? Effect.fail(connected.left) : connected.right.start ?? Effect.void
    return Effect.catchAll(started, (error) =>
      Effect.logWarning(`backend ${backend} could not be started: ${error.message}`).pipe(
        Effect.annotateLogs({ backend, reason: error.reason })
      ))
  }, { concurrency: "unbounded", discard: true })

/**
 * Copies a backend's answer through JSON text, so the harness never shares its objects and
 * sees it as it would arrive over the wire: an answer that is not JSON within
 * `Json.maxDepth` is `malformed`, as those bytes would be.
 */
const isolate = (value: Json.JsonValue): Effect.Effect<Json.JsonValue, TransportError> => {
  const copy = Json.copy(value)
  return Either.isRight(copy)
    ? Effect.succeed(copy.right)
    : Effect.fail(new TransportError({ reason: "malformed", detail: `the answer is not JSON: ${copy.left.message}` }))
}

/**
 * The endpoint of an in-process backend. Messages are deep-copied in both directions, so
 * a backend can never mutate harness state (or the reverse): the harness's own messages
 * (always JSON) structurally with `Json.clone`, a backend's answers through JSON text.
 *
 * @since 0.1.0
 * @category constructors
 */
export const inProcessEndpoint = (target: JsonRpc.InProcessBackend<TransportError>): Endpoint => ({
  request: (message) =>
    Effect.flatMap(Effect.sync(() => Json.clone(message)), (copy) => Effect.flatMap(target.request(copy), isolate)),
  notify: (message) => Effect.flatMap(Effect.sync(() => Json.clone(message)), target.notify)
})

/**
 * The failure of connecting a backend registered `in-process` through a transport service
 * (only the host serves those, by id).
 *
 * @since 0.1.0
 * @category constructors
 */
export const notServed = (backend: Registration.Backend): TransportError =>
  new TransportError({ reason: "unsupported", detail: `no in-process backend is served as ${backend.id}` })

/**
 * Serves backends by id from in-process functions (whatever their registered transport),
 * each through `inProcessEndpoint`. A backend id with no function fails with
 * `unsupported`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerInProcess = (
  backends: Readonly<Record<string, JsonRpc.InProcessBackend<TransportError>>>
): Layer.Layer<Transports> =>
  Layer.succeed(
    Transports,
    Transports.of({
      connect: (backend) => {
        const target = Object.prototype.hasOwnProperty.call(backends, backend.id) ? backends[backend.id] : undefined
        return target === undefined ? Effect.fail(notServed(backend)) : Effect.succeed(inProcessEndpoint(target))
      }
    })
  )

/**
 * No transports: for a host whose registrations are all `in-process` (served by id through
 * `Hooks` options), which never connects through `Transports`. Connecting any backend
 * fails with `unsupported`, naming its transport.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNone: Layer.Layer<Transports> = Layer.succeed(
  Transports,
  Transports.of({
    connect: (backend) =>
      Effect.fail(
        new TransportError({
          reason: "unsupported",
          detail: `this host has no transports: ${backend.id} is registered with ${backend.transport.type}`
        })
      )
  })
)
