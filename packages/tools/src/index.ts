/**
 * @since 0.1.0
 */

/**
 * The decision audit of the commands that settle calls: an audit file and the OpenTelemetry export.
 *
 * @since 0.1.0
 */
export * as Audit from "./Audit.js"

/**
 * `ahp conformance`: the official AHP fixtures run through this implementation.
 *
 * @since 0.1.0
 */
export * as Conformance from "./Conformance.js"

/**
 * `ahp dispatch`: one boundary call through the real harness and transports.
 *
 * @since 0.1.0
 */
export * as Dispatch from "./Dispatch.js"

/**
 * The names of the example backends, apart from the examples themselves.
 *
 * @since 0.1.0
 */
export * as Examples from "./Examples.js"

/**
 * `ahp inspect`: one message to one backend, and what came back classified.
 *
 * @since 0.1.0
 */
export * as Inspect from "./Inspect.js"

/**
 * What the commands share: exit codes, strict input files, JSON output, the failure objects.
 *
 * @since 0.1.0
 */
export * as Io from "./Io.js"

/**
 * `ahp test`: policy test cases against the real backends.
 *
 * @since 0.1.0
 */
export * as PolicyTest from "./PolicyTest.js"

/**
 * `ahp replay`: the events of a decision audit file dispatched again.
 *
 * @since 0.1.0
 */
export * as Replay from "./Replay.js"

/**
 * "Did you mean …?": the closest of a set of known words to a mistyped one.
 *
 * @since 0.1.0
 */
export * as Suggest from "./Suggest.js"

/**
 * The OpenTelemetry export of the commands that settle calls, loaded only when asked for.
 *
 * @since 0.1.0
 */
export * as Telemetry from "./Telemetry.js"

/**
 * `ahp validate`: AHP documents checked against the protocol model.
 *
 * @since 0.1.0
 */
export * as Validate from "./Validate.js"

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
