/**
 * @since 0.1.0
 */

/**
 * Random events, capabilities, granted and ungranted effects, hostile responses and
 * registrations for property tests.
 *
 * @since 0.1.0
 */
export * as Arbitraries from "./Arbitraries.js"

/**
 * The boundary table of the interceptable events and the effect types it derives.
 *
 * @since 0.1.0
 */
export * as Boundaries from "./Boundaries.js"

/**
 * Interception capabilities and per-event bounds.
 *
 * @since 0.1.0
 */
export * as Capabilities from "./Capabilities.js"

/**
 * Shared wire pieces: version, identifiers, timestamps, URIs, extensions, session.
 *
 * @since 0.1.0
 */
export * as Common from "./Common.js"

/**
 * Canonical messages and selection-aware parts.
 *
 * @since 0.1.0
 */
export * as Content from "./Content.js"

/**
 * Decoders that report issues (all problems, JSON Pointer paths, never a throw).
 *
 * @since 0.1.0
 */
export * as Decoder from "./Decoder.js"

/**
 * `hooks/capabilities` and the static capability manifest.
 *
 * @since 0.1.0
 */
export * as Discovery from "./Discovery.js"

/**
 * The pinned MCP elicitation payloads carried by `user.elicitation.request` / `.result`.
 *
 * @since 0.1.0
 */
export * as Elicitation from "./Elicitation.js"

/**
 * The 32 catalogue events.
 *
 * @since 0.1.0
 */
export * as Event from "./Event.js"

/**
 * The catalogue's event type names (32 types, 19 interceptable) and their families.
 *
 * @since 0.1.0
 */
export * as EventType from "./EventType.js"

/**
 * The stdio line framing: splitting byte chunks into capped lines, encoding one message per line.
 *
 * @since 0.1.0
 */
export * as Framing from "./Framing.js"

/**
 * The eight effect kinds.
 *
 * @since 0.1.0
 */
export * as HookEffect from "./HookEffect.js"

/**
 * `hooks/intercept` request, state and responses.
 *
 * @since 0.1.0
 */
export * as Intercept from "./Intercept.js"

/**
 * Validation problems with JSON Pointer paths.
 *
 * @since 0.1.0
 */
export * as Issue from "./Issue.js"

/**
 * JSON values without silent precision loss.
 *
 * @since 0.1.0
 */
export * as Json from "./Json.js"

/**
 * The JSON-RPC 2.0 envelope and error codes.
 *
 * @since 0.1.0
 */
export * as JsonRpc from "./JsonRpc.js"

/**
 * `hooks/observe` notifications.
 *
 * @since 0.1.0
 */
export * as Observe from "./Observe.js"

/**
 * The portable registration document.
 *
 * @since 0.1.0
 */
export * as Registration from "./Registration.js"

/**
 * The attachment upload receipt.
 *
 * @since 0.1.0
 */
export * as Upload from "./Upload.js"

/**
 * Wire kinds, kind inference and whole-text validation.
 *
 * @since 0.1.0
 */
export * as Wire from "./Wire.js"
