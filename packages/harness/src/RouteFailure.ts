/**
 * The typed record of one failed route: which subscription, in which phase, why, and
 * whether its failure policy produced a synthetic denial. Returned as data in dispatch
 * results, never thrown. Details never hold credentials, nor backend output beyond a stdio
 * backend's stderr tail and a JSON-RPC error's message and data (bounded, escaped, the
 * transport's secrets masked).
 *
 * @since 0.1.0
 */
import { Common, Registration } from "@effect-ahp/protocol"
import { hasProperty } from "effect/Predicate"
import * as Schema from "effect/Schema"
import { AttachmentFailure } from "./Attachment.js"
import { RejectionCode } from "./Staging.js"
import { TransportFailure } from "./Transport.js"
import { UploadFailure } from "./Uploads.js"

/**
 * Where a route failed: preparing its content (attachment snapshots and uploads), talking to the backend, validating the
 * response envelope, or staging its effects.
 *
 * @since 0.1.0
 * @category models
 */
export const Phase = Schema.Literal("prepare", "transport", "protocol", "staging")

/**
 * @since 0.1.0
 * @category models
 */
export type Phase = typeof Phase.Type

/**
 * Every failure code: transport reasons, `timeout`, preparation (attachment and upload)
 * and rejection codes.
 *
 * @since 0.1.0
 * @category models
 */
export const Code = Schema.Union(
  TransportFailure,
  Schema.Literal("timeout"),
  AttachmentFailure,
  UploadFailure,
  RejectionCode
)

/**
 * @since 0.1.0
 * @category models
 */
export type Code = typeof Code.Type

/**
 * The brand of a `RouteFailure`.
 *
 * @since 0.1.0
 * @category type ids
 */
export const TypeId: unique symbol = Symbol.for("@effect-ahp/harness/RouteFailure")

/**
 * @since 0.1.0
 * @category type ids
 */
export type TypeId = typeof TypeId

const fields = {
  backend: Schema.String,
  /** The subscription's id, else its index within the backend. */
  subscription: Schema.String,
  mode: Schema.Literal("intercept", "observe"),
  phase: Phase,
  code: Code,
  /** Whether the failure denied the operation (fail-closed). */
  syntheticDenial: Schema.Boolean,
  /** The failure policy applied (intercept routes). */
  policy: Common.optional(Registration.FailurePolicy),
  detail: Schema.String,
  /** JSON Pointer into the response, for rejections. */
  path: Common.optional(Schema.String),
  httpStatus: Common.optional(Schema.Number),
  jsonRpcCode: Common.optional(Schema.Number)
}

const Json = Schema.Struct(fields)

/**
 * One failed route.
 *
 * @since 0.1.0
 * @category errors
 */
export class RouteFailure
  extends Schema.TaggedError<RouteFailure>("@effect-ahp/harness/RouteFailure")("RouteFailure", fields)
{
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.backend}/${this.subscription}: ${this.phase} ${this.code}: ${this.detail}`
  }
}

/**
 * A failed route whose encoding is its documented JSON form (as `ahp dispatch` prints it:
 * no tag, absent optional members omitted).
 *
 * @since 0.1.0
 * @category schemas
 */
export const FromJson: Schema.Schema<RouteFailure, typeof Json.Encoded> = Schema.transform(
  Json,
  Schema.typeSchema(RouteFailure),
  {
    strict: true,
    decode: (json) => new RouteFailure(json),
    // The JSON form's members, in its order (the tag is not one of them).
    encode: (failure) => failure
  }
)

/**
 * Whether a value is a `RouteFailure`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isRouteFailure = (u: unknown): u is RouteFailure => hasProperty(u, TypeId)
