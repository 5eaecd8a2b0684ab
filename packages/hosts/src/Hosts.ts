/**
 * The adapters by host name.
 *
 * @since 0.1.0
 */
import * as ClaudeCode from "./ClaudeCode.js"
import * as Codex from "./Codex.js"
import type * as Host from "./Host.js"
import type * as HostEvents from "./HostEvents.js"

/**
 * The adapter of a host.
 *
 * @since 0.1.0
 * @category accessors
 */
export const of = (name: HostEvents.HostName): Host.Host => name === "claude-code" ? ClaudeCode.host : Codex.host
