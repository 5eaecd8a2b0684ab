/**
 * How the harness reaches backends: a service that connects one registered backend and
 * returns an `Endpoint` for requests and notifications. The harness core knows no
 * platform; `@effect-ahp/node` provides stdio and HTTP, and `layerInProcess` here serves
 * backends written as plain Effect functions (for embedding and tests).
 *
 * Contract for implementations:
 * - `connect` is cheap and lazy: it starts no process and opens no socket; problems with a
 *   URL, a credential or a command surface on each call as `TransportError`s.
 * - `request` sends one JSON-RPC request object (it always has an id) and succeeds with
 *   the parsed JSON value of the response whose id equals the request's id (stray,
 *   duplicate and late frames are dropped); the harness validates everything else about
 *   the response.
 * - `notify` sends one notification and succeeds once the binding considers it delivered:
 *   HTTP 202/204 without a body; queued in order for a persistent child's stdin; a
 *   per-event child has exited or was stopped.
 * - Both are interruptible: the harness wraps them in the subscription deadline (which
 *   therefore also covers credential resolution and the single authentication retry),
 *   and on interruption the implementation retires the exchange's I/O (killing and
 *   reaping a child it owns) before the interruption completes. Calls during or after
 *   the close of the connecting scope fail with `closed`.
 * - Failures are `TransportError`s whose `detail` never contains credentials or backend
 *   output.
 *
 * @since 0.1.0
 */
import { Json } from "@effect-ahp/protocol"
import type { Registration } from "@effect-ahp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
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
  /** The backend process exited (or closed its output) before answering. */
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
  "unsupported"
)

/**
 * @since 0.1.0
 * @category models
 */
export type TransportFailure = typeof TransportFailure.Type

/**
 * A failed exchange with a backend. `detail` is safe to show: no credentials, no backend
 * output.
 *
 * @since 0.1.0
 * @category errors
 */
export class TransportError extends Schema.TaggedError<TransportError>("@effect-ahp/harness/TransportError")(
  "TransportError",
  {
    reason: TransportFailure,
    detail: Schema.String,
    status: Schema.optionalWith(Schema.Number, { exact: true })
  }
) {
  override get message(): string {
    return `${this.reason}: ${this.detail}`
  }
}

/**
 * A connected backend.
 *
 * @since 0.1.0
 * @category models
 */
export interface Endpoint {
  /** Sends a request; succeeds with the parsed response carrying the same id. */
  readonly request: (message: Json.JsonObject) => Effect.Effect<Json.JsonValue, TransportError>
  /** Sends a notification; succeeds once delivered. */
  readonly notify: (message: Json.JsonObject) => Effect.Effect<void, TransportError>
}

/**
 * The transport service: connects a backend for the lifetime of the given scope.
 * Connecting should be cheap (start processes lazily); closing the scope releases
 * everything the endpoint owns.
 *
 * @since 0.1.0
 * @category tags
 */
export class Transports extends Context.Tag("@effect-ahp/harness/Transports")<Transports, {
  readonly connect: (backend: Registration.Backend) => Effect.Effect<Endpoint, TransportError, Scope.Scope>
}>() {}

/**
 * A backend written as plain Effect functions over JSON values: `request` answers a
 * JSON-RPC request object with a response object; `notify` receives a notification.
 *
 * @since 0.1.0
 * @category models
 */
export interface InProcessBackend {
  readonly request: (message: Json.JsonObject) => Effect.Effect<Json.JsonValue, TransportError>
  readonly notify: (message: Json.JsonObject) => Effect.Effect<void, TransportError>
}

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
 * Serves backends by id from in-process functions. Messages are deep-copied in both
 * directions, so a backend can never mutate harness state (or the reverse): the harness's
 * own messages (always JSON) structurally with `Json.clone`, a backend's answers through
 * JSON text. A backend id with no function fails with `unsupported`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerInProcess = (backends: Readonly<Record<string, InProcessBackend>>): Layer.Layer<Transports> =>
  Layer.succeed(
    Transports,
    Transports.of({
      connect: (backend) => {
        const target = Object.prototype.hasOwnProperty.call(backends, backend.id) ? backends[backend.id] : undefined
        if (target === undefined) {
          return Effect.fail(
            new TransportError({ reason: "unsupported", detail: `no in-process backend is registered as ${backend.id}` })
          )
        }
        return Effect.succeed({
          request: (message) =>
            Effect.flatMap(Effect.sync(() => Json.clone(message)), (copy) => Effect.flatMap(target.request(copy), isolate)),
          notify: (message) => Effect.flatMap(Effect.sync(() => Json.clone(message)), target.notify)
        })
      }
    })
  )
