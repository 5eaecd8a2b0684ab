/**
 * `hooks/capabilities`: discovery of a harness's static capability manifest, independent
 * of any session.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Capabilities from "./Capabilities.js"
import { closed, FieldGap, forbidden, NonEmpty, NonNegativeInt, optional, ProtocolVersion, struct } from "./Common.js"
import * as EventType from "./EventType.js"
import * as JsonRpc from "./JsonRpc.js"

/**
 * The method name.
 *
 * @since 0.1.0
 * @category constants
 */
export const method = "hooks/capabilities" as const

const uniqueArray = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Array(item).pipe(
    Schema.filter((items) => new Set(items).size === items.length || "must not contain duplicates")
  )

/**
 * Delivery modes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Mode = Schema.Literal("intercept", "observe")

/**
 * One covered event: its modes and, when interceptable, its capabilities.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ManifestEvent = struct({
  event: EventType.EventType,
  modes: uniqueArray(Mode).pipe(Schema.minItems(1)),
  capabilities: optional(Capabilities.Capabilities)
}).pipe(
  Schema.filter((entry) => {
    const intercept = entry.modes.includes("intercept")
    if (intercept && !EventType.isInterceptable(entry.event)) {
      return { path: ["modes"], message: `${entry.event} is observation-only and cannot list intercept` }
    }
    if (intercept && entry.capabilities === undefined) {
      return { path: ["capabilities"], message: "is required when intercept is listed" }
    }
    if (!intercept && entry.capabilities !== undefined && entry.capabilities.effects.length > 0) {
      return { path: ["capabilities", "effects"], message: "an observation-only entry must not claim effects" }
    }
    if (intercept && entry.capabilities !== undefined) {
      return Capabilities.boundsProblems(entry.event, entry.capabilities).map((p) => ({
        path: ["capabilities", ...p.path],
        message: p.message
      }))
    }
    return undefined
  })
).annotations({ identifier: "ManifestEvent" })

/**
 * @since 0.1.0
 * @category models
 */
export type ManifestEvent = typeof ManifestEvent.Type

/**
 * Known limits (an unknown limit is absent and explained in `gaps`; absence never means
 * unlimited).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Limits = struct({
  maxUploadBytes: optional(NonNegativeInt),
  maxContinuations: optional(NonNegativeInt),
  minTimeoutMs: optional(NonNegativeInt),
  maxTimeoutMs: optional(NonNegativeInt)
})

/**
 * Managed policy support.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ManagedPolicy = struct({
  scopes: uniqueArray(Schema.Literal("user", "project", "managed")),
  disableable: Schema.Boolean
}).pipe(
  Schema.filter((p) =>
    !p.scopes.includes("managed") || !p.disableable ||
    { path: ["disableable"], message: "must be false when managed scope is supported" }
  )
)

/**
 * The static capability manifest of a harness.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Manifest = struct({
  events: Schema.Array(ManifestEvent),
  gaps: Schema.Array(FieldGap),
  transports: uniqueArray(Schema.Literal("http", "stdio", "in_process")),
  authentication: uniqueArray(Schema.Literal("bearer", "oauth")),
  toolPaths: uniqueArray(NonEmpty),
  contentCategories: uniqueArray(NonEmpty),
  limits: Limits,
  managedPolicy: ManagedPolicy,
  correlationIdentityFields: uniqueArray(NonEmpty),
  identity: forbidden("a manifest must not contain an identity block")
}).annotations({ identifier: "Manifest" })

/**
 * @since 0.1.0
 * @category models
 */
export type Manifest = typeof Manifest.Type

/**
 * A `hooks/capabilities` request.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Request = struct({
  jsonrpc: Schema.Literal("2.0"),
  id: JsonRpc.Id,
  method: Schema.Literal(method),
  params: struct({ protocolVersion: ProtocolVersion }).annotations({ ...closed })
}).annotations({ identifier: "CapabilitiesRequest" })

/**
 * A `hooks/capabilities` response.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Response = struct({
  jsonrpc: Schema.Literal("2.0"),
  id: JsonRpc.ResponseId,
  result: struct({
    protocolVersion: ProtocolVersion,
    manifest: Manifest,
    effects: forbidden("a discovery result must not carry effects")
  }),
  error: forbidden("a response cannot carry both result and error")
}).annotations({ identifier: "CapabilitiesResponse" })

/**
 * @since 0.1.0
 * @category models
 */
export type Response = typeof Response.Type
