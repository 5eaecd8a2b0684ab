/**
 * Classifies one JSON-RPC frame received while a request with a known id is pending.
 * Details never quote the frame: backend output stays out of diagnostics. A JSON-RPC error
 * answer, which the harness quotes, comes out with the connection's secrets masked.
 *
 * @internal
 */
import { TransportError } from "@effect-ahp/harness/Transport"
import { Json, JsonRpc } from "@effect-ahp/protocol"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { maskErrorAnswer } from "./redact.js"

/** @internal */
export type Verdict =
  | { readonly _tag: "Response"; readonly value: Json.JsonValue }
  | {
    readonly _tag: "Unrelated"
    readonly detail: string
    /** The id of a response to another request (absent for anything else). */
    readonly id?: Json.JsonValue | undefined
  }
  | { readonly _tag: "Malformed"; readonly detail: string }

const malformed = (detail: string): Verdict => ({ _tag: "Malformed", detail })

const unrelated = (detail: string, id?: Json.JsonValue): Verdict => ({ _tag: "Unrelated", detail, id })

const has = (object: Json.JsonObject, key: string) => Object.prototype.hasOwnProperty.call(object, key)

/**
 * `Response` when the value is a JSON-RPC 2.0 response whose id equals `id`; `Unrelated`
 * for a request, notification or response to another id; `Malformed` for anything that is
 * not a single JSON-RPC message, or a correlated response with a broken envelope. With no
 * id (nothing pending) every well-formed message is `Unrelated`.
 *
 * @internal
 */
export const classify = (
  value: Json.JsonValue,
  id: Json.JsonValue | undefined,
  secrets?: () => ReadonlyArray<string>
): Verdict => {
  if (Array.isArray(value)) return malformed("received a JSON array (batches are not allowed)")
  if (!Json.isObject(value)) return malformed("received a JSON value that is not an object")
  if (has(value, "method")) return unrelated("received a request or notification instead of a response")
  const result = has(value, "result")
  const error = has(value, "error")
  if (!result && !error) return malformed("received an object that is not a JSON-RPC message")
  if (!JsonRpc.sameId(value.id, id)) {
    return unrelated("received a response with another id", value.id)
  }
  if (value.jsonrpc !== "2.0") return malformed("the response is not a JSON-RPC 2.0 message")
  if (result && error) return malformed("the response carries both result and error")
  return { _tag: "Response", value: error ? maskErrorAnswer(value, secrets) : value }
}

/**
 * Parses bytes as one JSON text (strict UTF-8) and classifies it.
 *
 * @internal
 */
export const classifyBytes = (
  bytes: Uint8Array,
  id: Json.JsonValue | undefined,
  secrets?: () => ReadonlyArray<string>
): Verdict =>
  Either.match(Json.parseBytes(bytes), {
    onLeft: (error) =>
      malformed(
        error.reason === "depth"
          ? `received JSON nested deeper than ${Json.maxDepth} levels`
          : "received bytes that are not UTF-8 JSON"
      ),
    onRight: (value) => classify(value, id, secrets)
  })

/**
 * The failure of a message that cannot be written as JSON (nested deeper than
 * `Json.maxDepth`, or not JSON): nothing is sent.
 *
 * @internal
 */
export const unencodable = (error: Json.JsonEncodeError): TransportError =>
  new TransportError({ reason: "malformed", detail: `the message cannot be written as JSON: ${error.message}` })

/**
 * The id a request will be answered under; a request without one is a defect of the caller
 * (the harness always sets it).
 *
 * @internal
 */
export const requestId = (message: Json.JsonObject): Effect.Effect<Json.JsonValue> =>
  message.id === undefined ? Effect.dieMessage("a JSON-RPC request needs an id") : Effect.succeed(message.id)
