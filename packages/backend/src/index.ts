/**
 * @since 0.1.0
 */

/**
 * Receiving attachment uploads and reading attachment bytes by reference.
 *
 * @since 0.1.0
 */
export * as Attachments from "./Attachments.js"

/**
 * Backends as handler layers: `intercept`, `observe`, `make`.
 *
 * @since 0.1.0
 */
export * as Backend from "./Backend.js"

/**
 * Serving a backend over HTTP.
 *
 * @since 0.1.0
 */
export * as Http from "./Http.js"

/**
 * Serving a backend in-process, as plain Effect functions over JSON.
 *
 * @since 0.1.0
 */
export * as InProcess from "./InProcess.js"

/**
 * The transport-independent message handler: JSON-RPC in, response out.
 *
 * @since 0.1.0
 */
export * as Server from "./Server.js"

/**
 * Serving a backend over stdio (JSON lines).
 *
 * @since 0.1.0
 */
export * as Stdio from "./Stdio.js"
