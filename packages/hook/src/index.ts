/**
 * @since 0.1.0
 */

/**
 * The command hook's argument grammar: `ahp hook <host> [options]`, `install`, `uninstall`, `doctor`.
 *
 * @since 0.1.0
 */
export * as Args from "./Args.js"

/**
 * The decision audit sinks: an audit file and an OpenTelemetry export the program supplies.
 *
 * @since 0.1.0
 */
export * as AuditSinks from "./AuditSinks.js"

/**
 * The bridge: a registration's backends kept warm, serving the command hook's forwarding and Claude Code's `http` hook.
 *
 * @since 0.1.0
 */
export * as Bridge from "./Bridge.js"

/**
 * Who may call a bridge: no web page, a secret over TCP.
 *
 * @since 0.1.0
 */
export * as BridgeAccess from "./BridgeAccess.js"

/**
 * One-line descriptions of events, effects and capabilities for people.
 *
 * @since 0.1.0
 */
export * as Brief from "./Brief.js"

/**
 * The per-event budget: every exchange of a hook call ends before the host's timeout.
 *
 * @since 0.1.0
 */
export * as Budget from "./Budget.js"

/**
 * The compiled-registration cache of the command hook.
 *
 * @since 0.1.0
 */
export * as Cache from "./Cache.js"

/**
 * The command hook's cold path: the call dispatched in this process.
 *
 * @since 0.1.0
 */
export * as Cold from "./Cold.js"

/**
 * The command hook's entry: arguments, payload, registration, then the bridge or the cold path.
 *
 * @since 0.1.0
 */
export * as Command from "./Command.js"

/**
 * Forwarding a command hook call to a running bridge.
 *
 * @since 0.1.0
 */
export * as Forward from "./Forward.js"

/**
 * The hook's readable trace of one call.
 *
 * @since 0.1.0
 */
export * as HookTrace from "./HookTrace.js"

/**
 * Installing, uninstalling and checking the hook in Claude Code's and Codex's settings.
 *
 * @since 0.1.0
 */
export * as Install from "./Install.js"

/**
 * The bounds of what is read.
 *
 * @since 0.1.0
 */
export * as Limits from "./Limits.js"

/**
 * Locating the registration a hook call uses, and the bridge's socket.
 *
 * @since 0.1.0
 */
export * as Locate from "./Locate.js"

/**
 * The host policy: the decision of one hook call, and what to answer when the policy cannot be evaluated.
 *
 * @since 0.1.0
 */
export * as Policy from "./Policy.js"

/**
 * A recording decorator of the harness's transports.
 *
 * @since 0.1.0
 */
export * as Recorder from "./Recorder.js"

/**
 * The per-route lines of one boundary call's trace.
 *
 * @since 0.1.0
 */
export * as RouteTrace from "./RouteTrace.js"

/**
 * Untrusted text made safe for a terminal.
 *
 * @since 0.1.0
 */
export * as Terminal from "./Terminal.js"

/**
 * The answer when the policy cannot be evaluated.
 *
 * @since 0.1.0
 */
export * as Trouble from "./Trouble.js"

/**
 * The user's record of the project registrations the hook may run.
 *
 * @since 0.1.0
 */
export * as Trust from "./Trust.js"

/**
 * Strict UTF-8 decoding of what is read.
 *
 * @since 0.1.0
 */
export * as Utf8 from "./Utf8.js"
