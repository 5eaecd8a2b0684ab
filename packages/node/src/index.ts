/**
 * @since 0.1.0
 */

/**
 * File attachment sources on Node.
 *
 * @since 0.1.0
 */
export * as AttachmentFiles from "./AttachmentFiles.js"

/**
 * Resolving credential references to redacted secret values.
 *
 * @since 0.1.0
 */
export * as Credentials from "./Credentials.js"

/**
 * The HTTP binding: POST per message, status rules, bearer and OAuth client credentials.
 *
 * @since 0.1.0
 */
export * as HttpTransport from "./HttpTransport.js"

/**
 * The HTTP attachment upload client: raw octets, checked receipts, independent auth.
 *
 * @since 0.1.0
 */
export * as HttpUpload from "./HttpUpload.js"

/**
 * The `Transports` service for Node, connecting backends by transport type.
 *
 * @since 0.1.0
 */
export * as NodeTransports from "./NodeTransports.js"

/**
 * The stdio binding: persistent and per-event child processes speaking JSON lines.
 *
 * @since 0.1.0
 */
export * as StdioTransport from "./StdioTransport.js"
