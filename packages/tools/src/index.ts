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
 * `ahp auth`: interactive OAuth logins for a registration's HTTP backends, their status and logout.
 *
 * @since 0.1.0
 */
export * as Auth from "./Auth.js"

/**
 * `ahp bridge` as the command line runs it: the hook package's bridge with the OpenTelemetry export.
 *
 * @since 0.1.0
 */
export * as Bridge from "./Bridge.js"

/**
 * `ahp conformance`: the official AHP fixtures run through this implementation.
 *
 * @since 0.1.0
 */
export * as Conformance from "./Conformance.js"

/**
 * `ahp demo`: a scripted agent session through the example backends, every boundary traced.
 *
 * @since 0.1.0
 */
export * as Demo from "./Demo.js"

/**
 * The demo's part 3: the example backends governing Claude Code and Codex through a real bridge.
 *
 * @since 0.1.0
 */
export * as DemoBridge from "./DemoBridge.js"

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
 * `ahp serve`: an example backend over stdio or HTTP.
 *
 * @since 0.1.0
 */
export * as Serve from "./Serve.js"

/**
 * `ahp serve --audit`: the backend's own record of its calls.
 *
 * @since 0.1.0
 */
export * as ServeAudit from "./ServeAudit.js"

/**
 * Terminal text styles, and when to use them.
 *
 * @since 0.1.0
 */
export * as Style from "./Style.js"

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
 * The readable trace of one boundary call, as `ahp demo` prints it.
 *
 * @since 0.1.0
 */
export * as Trace from "./Trace.js"

/**
 * `ahp trust`: the user's record of the project registrations the command hook may run.
 *
 * @since 0.1.0
 */
export * as TrustRegistrations from "./TrustRegistrations.js"

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
