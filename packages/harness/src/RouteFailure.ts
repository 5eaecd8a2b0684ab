/**
 * The typed record of one failed route: which subscription, in which phase, why, and
 * whether its failure policy produced a synthetic denial. Returned as data in dispatch
 * results, never thrown. Details never hold credentials, nor backend output beyond a stdio
 * backend's stderr tail (bounded, secrets redacted).
 *
 * @since 0.1.0
 */
import { Registration } from "@effect-ahp/protocol"
import { hasProperty } from "effect/Predicate"
import * as Schema from "effect/Schema"
import { RejectionCode } from "./Staging.js"
import { TransportFailure } from "./Transport.js"

/**
 * Where a route failed: preparing its content, talking to the backend, validating the
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
 * Every failure code: transport reasons, `timeout`, preparation and rejection codes.
 *
 * @since 0.1.0
 * @category models
 */
export const Code = Schema.Union(TransportFailure, Schema.Literal("timeout", "attachment-upload-unsupported"), RejectionCode)

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

/**
 * One failed route.
 *
 * @since 0.1.0
 * @category errors
 */
export class RouteFailure extends Schema.TaggedError<RouteFailure>("@effect-ahp/harness/RouteFailure")("RouteFailure", {
  backend: Schema.String,
  /** The subscription's id, else its index within the backend. */
  subscription: Schema.String,
  mode: Schema.Literal("intercept", "observe"),
  phase: Phase,
  code: Code,
  detail: Schema.String,
  /** The failure policy applied (intercept routes). */
  policy: Schema.optionalWith(Registration.FailurePolicy, { exact: true }),
  /** Whether the failure denied the operation (fail-closed). */
  syntheticDenial: Schema.Boolean,
  /** JSON Pointer into the response, for rejections. */
  path: Schema.optionalWith(Schema.String, { exact: true }),
  httpStatus: Schema.optionalWith(Schema.Number, { exact: true }),
  jsonRpcCode: Schema.optionalWith(Schema.Number, { exact: true })
}) {
  readonly [TypeId]: TypeId = TypeId
  override get message(): string {
    return `${this.backend}/${this.subscription}: ${this.phase} ${this.code}: ${this.detail}`
  }
}

/**
 * Whether a value is a `RouteFailure`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isRouteFailure = (u: unknown): u is RouteFailure => hasProperty(u, TypeId)
