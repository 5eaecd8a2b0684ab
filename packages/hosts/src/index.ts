/**
 * @since 0.1.0
 */

/**
 * The Claude Code adapter.
 *
 * @since 0.1.0
 */
export * as ClaudeCode from "./ClaudeCode.js"

/**
 * The Codex CLI adapter.
 *
 * @since 0.1.0
 */
export * as Codex from "./Codex.js"

/**
 * What every host adapter provides: mapping, grant, rendering.
 *
 * @since 0.1.0
 */
export * as Host from "./Host.js"

/**
 * The hook events of each host as plain data.
 *
 * @since 0.1.0
 */
export * as HostEvents from "./HostEvents.js"

/**
 * The adapters by host name.
 *
 * @since 0.1.0
 */
export * as Hosts from "./Hosts.js"
