/**
 * @since 0.1.0
 */

/**
 * The names of the example backends, apart from the examples themselves.
 *
 * @since 0.1.0
 */
export * as Examples from "./Examples.js"

/**
 * The audit observer, an example backend: one JSON line per observed event.
 *
 * @since 0.1.0
 */
export * as AuditObserver from "./examples/AuditObserver.js"

/**
 * The prompt annotator, an example policy backend: the workspace policy injected at `turn.start`.
 *
 * @since 0.1.0
 */
export * as PromptAnnotator from "./examples/PromptAnnotator.js"

/**
 * The secret redactor, an example policy backend: tokens and keys masked in tool output.
 *
 * @since 0.1.0
 */
export * as SecretRedactor from "./examples/SecretRedactor.js"

/**
 * The shell-command guard, an example policy backend: destructive commands denied, risky ones asked.
 *
 * @since 0.1.0
 */
export * as ShellGuard from "./examples/ShellGuard.js"

/**
 * A deliberately slow backend, for trying deadlines and failure policies.
 *
 * @since 0.1.0
 */
export * as SlowBackend from "./examples/SlowBackend.js"
