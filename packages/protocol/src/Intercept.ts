/**
 * `hooks/intercept`: the request a harness sends to one subscription and the response
 * that carries the backend's ordered effects.
 *
 * @since 0.1.0
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import * as Capabilities from "./Capabilities.js"
import { Extensions, forbidden, NonEmpty, optional, ProtocolVersion, struct } from "./Common.js"
import * as Event from "./Event.js"
import * as HookEffect from "./HookEffect.js"
import * as arbitraries from "./internal/arbitraries.js"
import * as Json from "./Json.js"
import * as JsonRpc from "./JsonRpc.js"

/**
 * The method name.
 *
 * @since 0.1.0
 * @category constants
 */
export const method = "hooks/intercept" as const

/**
 * Pending permission state: none < allow < ask < deny.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Permission = Schema.Literal("none", "allow", "ask", "deny")

/**
 * @since 0.1.0
 * @category models
 */
export type Permission = typeof Permission.Type

/**
 * A supplied-result candidate (its value may be any JSON, including `null`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Candidate = struct({
  value: Json.Value,
  provenance: optional(Json.AnyObject)
}).annotations({ identifier: "Candidate" })

/**
 * @since 0.1.0
 * @category models
 */
export type Candidate = typeof Candidate.Type

/**
 * The optional incoming decision state of an intercept request.
 *
 * @since 0.1.0
 * @category schemas
 */
export const State = struct({
  permission: Permission,
  candidate: Schema.NullOr(Candidate),
  flow: optional(Schema.Literal("none", "stop", "continue")),
  instructions: optional(Schema.Array(NonEmpty)),
  injections: optional(Schema.Array(Json.Value))
}).annotations({ identifier: "InterceptState" })

/**
 * @since 0.1.0
 * @category models
 */
export type State = typeof State.Type

const paramsFields = {
  protocolVersion: ProtocolVersion,
  event: Event.InterceptableEvent,
  capabilities: Capabilities.Capabilities,
  extensions: optional(Extensions),
  state: optional(State)
}

/**
 * The params of an intercept request (an interface, so that the types built on it name it
 * instead of spelling out every event).
 *
 * @since 0.1.0
 * @category models
 */
export interface Params extends Schema.Struct.Type<typeof paramsFields> {}

/**
 * The params of an intercept request; capabilities must stay within the event's bounds.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Params: Schema.refine<Params, Schema.Struct<typeof paramsFields>> = struct(paramsFields).pipe(
  Schema.filter((params) =>
    Capabilities.boundsProblems(params.event.type, params.capabilities).map((p) => ({
      path: ["capabilities", ...p.path],
      message: p.message
    }))
  )
).annotations({
  identifier: "InterceptParams",
  arbitrary: () => (fc) =>
    Arbitrary.makeLazy(Event.InterceptableEvent)(fc).chain((event) =>
      arbitraries.capabilities(fc, Capabilities.boundsOf(event.type)!).map((capabilities) => ({
        protocolVersion: "draft" as const,
        event,
        capabilities
      }))
    ) as any
})

const requestFields = {
  jsonrpc: Schema.Literal("2.0"),
  id: JsonRpc.Id,
  method: Schema.Literal(method),
  params: Params
}

/**
 * A `hooks/intercept` request (an interface, like `Params`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Request extends Schema.Struct.Type<typeof requestFields> {}

/**
 * A `hooks/intercept` request. Its JSON-RPC id must equal its event's id.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Request: Schema.refine<Request, Schema.Struct<typeof requestFields>> = struct(requestFields).pipe(
  Schema.filter((request) =>
    JsonRpc.sameId(request.id, request.params.event.id) ||
    { path: ["id"], message: "the request id must equal params.event.id" }
  )
).annotations({
  identifier: "InterceptRequest",
  arbitrary: () => (fc) =>
    Arbitrary.makeLazy(Params)(fc).map((params) => ({
      jsonrpc: "2.0" as const,
      id: params.event.id,
      method,
      params
    })) as any
})

const resultFields = {
  protocolVersion: ProtocolVersion,
  extensions: optional(Extensions),
  manifest: forbidden("an intercept result must not carry a discovery manifest")
}

/**
 * The result of an intercept: the ordered effects (empty means no change, never permission).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Result = struct({ ...resultFields, effects: Schema.Array(HookEffect.HookEffect) })
  .annotations({ identifier: "InterceptResult" })

/**
 * @since 0.1.0
 * @category models
 */
export type Result = typeof Result.Type

const response = <R extends Schema.Schema.Any>(result: R, identifier: string) =>
  struct({
    jsonrpc: Schema.Literal("2.0"),
    id: JsonRpc.ResponseId,
    result,
    error: forbidden("a response cannot carry both result and error")
  }).annotations({ identifier })

/**
 * A successful intercept response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Response = response(Result, "InterceptResponse")

/**
 * @since 0.1.0
 * @category models
 */
export type Response = typeof Response.Type

/**
 * An intercept response with exactly one `deny`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DenyResponse = response(
  struct({
    ...resultFields,
    effects: Schema.Tuple(HookEffect.Deny).annotations({
      message: () => "a deny response carries exactly one deny effect"
    })
  }),
  "InterceptDenyResponse"
)

/**
 * An intercept response with no effects.
 *
 * @since 0.1.0
 * @category schemas
 */
export const NoEffectResponse = response(
  struct({
    ...resultFields,
    effects: Schema.Tuple().annotations({ message: () => "a no-effect response carries an empty effects list" })
  }),
  "InterceptNoEffectResponse"
)
