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
 * The decision audit's JSON Lines file sink.
 *
 * @since 0.1.0
 */
export * as AuditFile from "./AuditFile.js"

/**
 * Resolving credential references to redacted secret values.
 *
 * @since 0.1.0
 */
export * as Credentials from "./Credentials.js"

/**
 * Authorization of HTTP endpoints: bearer, OAuth presets, RFC 9728 discovery after a 401.
 *
 * @since 0.1.0
 */
export * as HttpAuth from "./HttpAuth.js"

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
 * The `Hooks` service on Node driven by `Config` alone: the registration from a file or as
 * JSON text, the harness options and the credential references.
 *
 * @since 0.1.0
 */
export * as NodeHooks from "./NodeHooks.js"

/**
 * The `Transports` service for Node, connecting backends by transport type.
 *
 * @since 0.1.0
 */
export * as NodeTransports from "./NodeTransports.js"

/**
 * Interactive OAuth login (authorization code with PKCE), logout and status.
 *
 * @since 0.1.0
 */
export * as OAuthLogin from "./OAuthLogin.js"

/**
 * The stdio binding: persistent and per-event child processes speaking JSON lines.
 *
 * @since 0.1.0
 */
export * as StdioTransport from "./StdioTransport.js"

/**
 * The per-user store of OAuth login tokens.
 *
 * @since 0.1.0
 */
export * as TokenStore from "./TokenStore.js"
