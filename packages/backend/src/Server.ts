/**
 * The transport-independent core of a backend: turns one incoming JSON-RPC message into
 * the response to send, if any. Stdio, HTTP and in-process serving all go through it.
 *
 * Requests (messages with an `id`, other than `hooks/observe`):
 * - not an object, or an invalid envelope → `-32600` (id `null` when the id itself is
 *   invalid); a JSON array (a batch) is not supported → `-32600`;
 * - an unknown method, or `hooks/capabilities` → `-32601`;
 * - `params.protocolVersion` other than `"draft"` → `-32001` with
 *   `data: {"supported": ["draft"]}`;
 * - an event type the backend has no intercept handler for → `-32002` (checked before the
 *   full validation, so an event type from a newer catalogue is "unsupported", not
 *   "invalid");
 * - a request that fails `Intercept.Request` → `-32602`, `data: {"paths": [...]}` (JSON
 *   Pointers of the problems, never values);
 * - a failing or crashing handler → `-32004` with a generic message (the cause is logged
 *   locally, never sent);
 * - an effect that fails its schema (effects are closed: unknown members are errors) or
 *   that the request did not grant → `-32603`, and none of the effects are sent;
 * - otherwise `{"protocolVersion": "draft", "effects": [...]}`.
 *
 * Notifications (`hooks/observe`, and any message without an `id`) are never answered,
 * not even with an error. An observation with an unsupported version, an invalid event or
 * no matching observer is dropped without running anything.
 *
 * Bytes (`handleBytes`, `reply`):
 * - not UTF-8, or not JSON → `-32700` (id `null`);
 * - nested deeper than `Json.maxDepth` (512) levels → `-32600` (id `null`), refused in one
 *   linear pass before anything is built or run.
 *
 * Nothing inside the server ends it: a defect in its own handling of a request (outside
 * the handlers, whose failures and defects are `-32004`) is answered with `-32603` under
 * the request's id (the cause is logged locally, never sent), and so is a response that
 * cannot be written as JSON (nested too deep). A defect while handling a notification is
 * only logged.
 *
 * @since 0.1.0
 */
import {
  Capabilities,
  Common,
  Decoder,
  HookEffect,
  Intercept,
  Issue,
  Json,
  JsonRpc,
  Observe
} from "@effect-ahp/protocol"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Backend from "./Backend.js"

/**
 * The message handler of one backend.
 *
 * @since 0.1.0
 * @category tags
 */
export class Server extends Context.Tag("@effect-ahp/backend/Server")<Server, {
  /** Handles one decoded JSON message; succeeds with the response to send, if any. Never fails or dies. */
  readonly handle: (message: unknown) => Effect.Effect<Option.Option<Json.JsonObject>>
  /**
   * Parses UTF-8 JSON bytes and handles the message; unreadable bytes get a `-32700`
   * response, bytes nested too deep a `-32600` one.
   */
  readonly handleBytes: (bytes: Uint8Array) => Effect.Effect<Option.Option<Json.JsonObject>>
  /**
   * `handleBytes`, with the response written as compact JSON text (no newline). A response
   * that cannot be written becomes a `-32603` error response, so the text is always sent.
   */
  readonly reply: (bytes: Uint8Array) => Effect.Effect<Option.Option<string>>
}>() {}

/**
 * A JSON-RPC error response as a JSON object.
 *
 * @since 0.1.0
 * @category constructors
 */
export const errorResponse = (
  id: JsonRpc.ResponseId,
  code: number,
  message: string,
  data?: Json.JsonValue
): Json.JsonObject => JsonRpc.errorResponse(id, code, message, data) as Json.JsonObject

/**
 * The `-32700` response for bytes that are not UTF-8 JSON.
 *
 * @since 0.1.0
 * @category constructors
 */
export const parseErrorResponse: Json.JsonObject = errorResponse(null, JsonRpc.ErrorCode.ParseError, "Parse error")

/**
 * The `-32600` response for JSON nested deeper than `Json.maxDepth`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const tooDeepResponse: Json.JsonObject = errorResponse(
  null,
  JsonRpc.ErrorCode.InvalidRequest,
  `Invalid Request: JSON nested deeper than ${Json.maxDepth} levels`
)

/**
 * The `-32603` response for a defect while handling a request, or a response that cannot
 * be written (its cause is logged locally, never sent).
 *
 * @since 0.1.0
 * @category constructors
 */
export const internalErrorResponse = (id: JsonRpc.ResponseId): Json.JsonObject =>
  errorResponse(id, JsonRpc.ErrorCode.InternalError, "Internal error")

/**
 * The `-32600` response for a JSON array (batches are not part of AHP).
 *
 * @since 0.1.0
 * @category constructors
 */
export const batchResponse: Json.JsonObject = errorResponse(
  null,
  JsonRpc.ErrorCode.InvalidRequest,
  "Invalid Request: batches are not supported"
)

const isId = Decoder.lazy(() => Schema.is(JsonRpc.Id))

/** Whether a message is a request to answer (an object with a valid id, not an observation). */
const isRequest = (message: unknown): message is Json.JsonObject & { readonly id: JsonRpc.Id } =>
  Json.isObject(message) && message.method !== Observe.method && isId(message.id)

const decodeRequest = Decoder.lazy(() => Decoder.make(Intercept.Request))
const decodeNotification = Decoder.lazy(() => Decoder.make(Observe.Notification))
const decodeEffect = Decoder.lazy(() => Decoder.make(HookEffect.HookEffect, { onExcessProperty: "error" }))
const encodeEffect = Decoder.lazy(() => Schema.encodeEither(HookEffect.HookEffect))

const some = (response: Json.JsonObject) => Effect.succeed(Option.some(response))

/** The JSON Pointers of a decoding failure's problems (no messages: they may quote values). */
const problemPaths = (
  issues: ReadonlyArray<Issue.Issue>
): Array<string> => [...new Set(issues.map((issue) => issue.path))]

type Rejection = {
  readonly index: number
  readonly reason: string
}

/** Validates, checks grants and encodes every effect; all of them or nothing. */
const checkEffects = (
  effects: ReadonlyArray<unknown>,
  capabilities: Backend.InterceptRequest["capabilities"]
): Either.Either<Array<Json.JsonValue>, Array<Rejection>> => {
  const encoded: Array<Json.JsonValue> = []
  const rejected: Array<Rejection> = []
  effects.forEach((candidate, index) => {
    const decoded = decodeEffect(candidate)
    if (Either.isLeft(decoded)) {
      const paths = problemPaths(decoded.left).map((p) => p === "" ? "/" : p)
      rejected.push({ index, reason: `not a valid effect (problems at ${paths.join(", ")})` })
      return
    }
    const problem = Capabilities.grantProblem(capabilities, decoded.right)?.message
    if (problem !== undefined) {
      rejected.push({ index, reason: problem })
      return
    }
    const output = encodeEffect(decoded.right)
    if (Either.isLeft(output)) {
      rejected.push({ index, reason: "the effect could not be encoded" })
      return
    }
    encoded.push(output.right as Json.JsonValue)
  })
  return rejected.length > 0 ? Either.left(rejected) : Either.right(encoded)
}

/**
 * Builds the message handler over the backend's registry.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<Context.Tag.Service<Server>, never, Backend.Handlers> = Effect.gen(function*() {
  const handlers = yield* Backend.Handlers

  const observe = Effect.fn("Server.observe")(function*(message: Json.JsonObject) {
    const params = message.params
    if (message.method !== Observe.method || message.id !== undefined || !Json.isObject(params)) {
      return yield* Effect.logDebug("ignored a notification that is not a hooks/observe notification")
    }
    if (params.protocolVersion !== Common.protocolVersion) {
      return yield* Effect.logDebug("ignored an observation with an unsupported protocol version")
    }
    const event = params.event
    const eventType = Json.isObject(event) && typeof event.type === "string" ? event.type : undefined
    const observers = eventType === undefined ? [] : handlers.observers(eventType)
    if (observers.length === 0) return yield* Effect.logDebug("ignored an observation no handler subscribes to")
    const decoded = decodeNotification(message)
    if (Either.isLeft(decoded)) {
      return yield* Effect.logWarning("ignored an invalid observation").pipe(
        Effect.annotateLogs({ eventType, paths: problemPaths(decoded.left) })
      )
    }
    yield* Effect.forEach(observers, (observer) =>
      Effect.exit(observer.run(decoded.right.params.event)).pipe(
        Effect.flatMap((exit) =>
          Exit.isFailure(exit)
            ? Effect.logError("observe handler failed", exit.cause).pipe(Effect.annotateLogs({ eventType }))
            : Effect.void
        )
      ), { discard: true })
  })

  const intercept = Effect.fn("Server.intercept")(function*(message: Json.JsonObject, id: JsonRpc.Id) {
    const params = message.params
    if (Json.isObject(params)) {
      const version = params.protocolVersion
      if (typeof version === "string" && version !== Common.protocolVersion) {
        return errorResponse(id, JsonRpc.ErrorCode.UnsupportedProtocolVersion, "Unsupported protocol version", {
          supported: [Common.protocolVersion]
        })
      }
      const event = params.event
      const eventType = Json.isObject(event) && typeof event.type === "string" ? event.type : undefined
      if (eventType !== undefined && handlers.intercepts(eventType).length === 0) {
        return errorResponse(id, JsonRpc.ErrorCode.UnsupportedEvent, "Unsupported event")
      }
    }
    const decoded = decodeRequest(message)
    if (Either.isLeft(decoded)) {
      return errorResponse(id, JsonRpc.ErrorCode.InvalidParams, "Invalid params", { paths: problemPaths(decoded.left) })
    }
    const request: Backend.InterceptRequest = { ...decoded.right.params, id: decoded.right.id }
    const eventType = request.event.type
    const outcome = yield* Effect.exit(
      Effect.forEach(handlers.intercepts(eventType), (handler) => handler.run(request))
    )
    if (Exit.isFailure(outcome)) {
      yield* Effect.logError("intercept handler failed", outcome.cause).pipe(Effect.annotateLogs({ eventType }))
      return errorResponse(id, JsonRpc.ErrorCode.BackendInternalError, "Backend internal error")
    }
    const checked = checkEffects(outcome.value.flat(), request.capabilities)
    if (Either.isLeft(checked)) {
      yield* Effect.logError("refused to send effects the request does not allow").pipe(
        Effect.annotateLogs({ eventType, rejected: checked.left })
      )
      return errorResponse(id, JsonRpc.ErrorCode.InternalError, "Internal error", { rejected: checked.left })
    }
    return {
      jsonrpc: "2.0",
      id: message.id as Json.JsonValue,
      result: { protocolVersion: Common.protocolVersion, effects: checked.right }
    } satisfies Json.JsonObject
  })

  const dispatch = Effect.fnUntraced(function*(message: unknown) {
    if (!Json.isObject(message)) {
      return Option.some(
        Array.isArray(message)
          ? batchResponse
          : errorResponse(null, JsonRpc.ErrorCode.InvalidRequest, "Invalid Request: a message must be an object")
      )
    }
    if (message.id === undefined || message.method === Observe.method) {
      yield* observe(message)
      return Option.none()
    }
    if (!isId(message.id)) {
      return Option.some(errorResponse(null, JsonRpc.ErrorCode.InvalidRequest, "Invalid Request: invalid id"))
    }
    const id = message.id
    if (message.jsonrpc !== "2.0" || typeof message.method !== "string" || message.method === "") {
      return Option.some(errorResponse(id, JsonRpc.ErrorCode.InvalidRequest, "Invalid Request"))
    }
    if (message.method !== Intercept.method) {
      return Option.some(errorResponse(id, JsonRpc.ErrorCode.MethodNotFound, "Method not found"))
    }
    return Option.some(yield* intercept(message, id))
  })

  const handle = Effect.fn("Server.handle")(function*(message: unknown) {
    return yield* dispatch(message).pipe(
      Effect.catchAllCause((cause) =>
        Cause.isInterruptedOnly(cause)
          ? Effect.failCause(cause)
          : Effect.as(
            Effect.logError("handling a message failed", cause),
            isRequest(message) ? Option.some(internalErrorResponse(message.id)) : Option.none()
          )
      )
    )
  })

  const handleBytes = (bytes: Uint8Array) =>
    Either.match(Json.parseBytes(bytes), {
      onLeft: (error) => some(error.reason === "depth" ? tooDeepResponse : parseErrorResponse),
      onRight: handle
    })

  const reply = (bytes: Uint8Array) =>
    Effect.flatMap(
      handleBytes(bytes),
      Option.match({
        onNone: () => Effect.succeedNone,
        onSome: (response) =>
          Either.match(Json.encode(response), {
            onRight: Effect.succeedSome,
            onLeft: (error) =>
              Effect.as(
                Effect.logError("a response could not be written as JSON").pipe(
                  Effect.annotateLogs({ reason: error.reason })
                ),
                Option.some(Json.stringify(internalErrorResponse(isId(response.id) ? response.id : null)))
              )
          })
      })
    )

  return Server.of({ handle, handleBytes, reply })
})

/**
 * The message handler of the backend in context.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Server, never, Backend.Handlers> = Layer.effect(Server, make)

/**
 * The message handler of a backend layer (for example `Backend.make(guard, audit)`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerBackend = <E, R>(backend: Layer.Layer<Backend.Handlers, E, R>): Layer.Layer<Server, E, R> =>
  Layer.provide(layer, backend)
