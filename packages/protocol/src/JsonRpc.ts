/**
 * The JSON-RPC 2.0 envelope AHP uses: requests, notifications, success and error
 * responses (no batches), and the reserved error codes.
 *
 * @since 0.1.0
 */
import type * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { forbidden, Int, NonEmpty, optional, struct } from "./Common.js"
import * as Json from "./Json.js"

/**
 * A request id: a non-empty string or an integer (integers beyond 2^53 are kept exactly).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Id = Schema.Union(NonEmpty, Int).annotations({
  identifier: "JsonRpcId",
  message: () => "must be a non-empty string or an integer"
})

/**
 * @since 0.1.0
 * @category models
 */
export type Id = typeof Id.Type

/**
 * A response id: a request id, or `null` when the request could not be read.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ResponseId = Schema.Union(Id, Schema.Null)

/**
 * @since 0.1.0
 * @category models
 */
export type ResponseId = typeof ResponseId.Type

/**
 * Whether two ids are the same id (exact, including large integers).
 *
 * @since 0.1.0
 * @category equality
 */
export const sameId = (a: unknown, b: unknown): boolean => a !== undefined && Json.equals(a, b)

const version = Schema.Literal("2.0").annotations({ message: () => "must be \"2.0\"" })

/**
 * A JSON-RPC request.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Request = struct({ jsonrpc: version, id: Id, method: NonEmpty, params: Json.AnyObject })
  .annotations({ identifier: "JsonRpcRequest" })

/**
 * A JSON-RPC notification (no id; never answered).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Notification = struct({
  jsonrpc: version,
  method: NonEmpty,
  params: Json.AnyObject,
  id: forbidden("a notification has no id")
}).annotations({ identifier: "JsonRpcNotification" })

/**
 * A successful JSON-RPC response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SuccessResponse = struct({
  jsonrpc: version,
  id: ResponseId,
  result: Json.AnyObject,
  error: forbidden("a response cannot carry both result and error")
}).annotations({ identifier: "JsonRpcSuccessResponse" })

/**
 * The error object of an error response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorObject = struct({
  code: Int,
  message: Schema.String,
  data: optional(Json.Value)
}).annotations({ identifier: "JsonRpcError" })

/**
 * A JSON-RPC error response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ErrorResponse = struct({
  jsonrpc: version,
  id: ResponseId,
  error: ErrorObject,
  result: forbidden("a response cannot carry both result and error")
}).annotations({ identifier: "JsonRpcErrorResponse" })

/**
 * @since 0.1.0
 * @category models
 */
export type ErrorResponse = typeof ErrorResponse.Type

/**
 * Any JSON-RPC message.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Message = Schema.Union(Request, Notification, SuccessResponse, ErrorResponse)
  .annotations({ identifier: "JsonRpcMessage" })

/**
 * Standard JSON-RPC and AHP-reserved error codes.
 *
 * @since 0.1.0
 * @category constants
 */
export const ErrorCode = {
  ParseError: -32700,
  InvalidRequest: -32600,
  MethodNotFound: -32601,
  InvalidParams: -32602,
  InternalError: -32603,
  UnsupportedProtocolVersion: -32001,
  UnsupportedEvent: -32002,
  BackendUnavailable: -32003,
  BackendInternalError: -32004
} as const

/**
 * Builds an error response.
 *
 * @since 0.1.0
 * @category constructors
 */
export const errorResponse = (
  id: ResponseId,
  code: number,
  message: string,
  data?: Json.JsonValue
): typeof ErrorResponse.Encoded => ({
  jsonrpc: "2.0",
  id: id as typeof ErrorResponse.Encoded["id"],
  error: data === undefined ? { code, message } : { code, message, data }
})

/**
 * A backend callable in the same process: a pair of Effect functions over JSON-RPC
 * messages as plain JSON values. `request` answers a request with its response (a success
 * or an error response; `null` for a message that is not answered); `notify` receives a
 * notification. The harness serves one by id (`Transport.layerInProcess`, `Hooks`
 * options), with `E` its transport error; a backend layer becomes one with
 * `InProcess.fromLayer` and never fails (`E = never`).
 *
 * @since 0.1.0
 * @category models
 */
export interface InProcessBackend<E = never> {
  readonly request: (message: Json.JsonObject) => Effect.Effect<Json.JsonValue, E>
  readonly notify: (message: Json.JsonObject) => Effect.Effect<void, E>
}
