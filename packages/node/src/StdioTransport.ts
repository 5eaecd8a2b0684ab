/**
 * The stdio binding (AHP-STDIO-001): the backend's `command` is executed directly with its
 * `args` (never through a shell) and a minimal environment; each message is one compact
 * JSON object plus `"\n"` on its stdin, and each stdout line must be one JSON-RPC message
 * in strict UTF-8 (see `Framing` in `@effect-ahp/protocol`). stderr is drained and never
 * parsed; only its size is reported.
 *
 * - `persistent`: one child per endpoint, started lazily by the first message (so startup
 *   counts against the caller's deadline). Requests are serialised (at most one
 *   outstanding) and matched by id; stale, duplicate, unrelated and unsolicited frames are
 *   dropped. A malformed or oversized line fails the pending request; `maxMalformedLines`
 *   bad lines in a row get the child killed. A child that exits is replaced on the next
 *   message. Interrupting a pending request (deadline, cancellation) kills and reaps the
 *   child before the interruption completes; the next message starts a fresh one. A
 *   notification succeeds once it is queued for the child's stdin (in order with requests).
 * - `per_event`: one child per message. The message is written and stdin closed; a request
 *   succeeds with the first correlated response line (the exit status does not matter),
 *   then the child gets `exitGrace` to exit before it is killed. A notification waits at
 *   most `notificationGrace` for the exit (the status never matters). Either way the child
 *   is reaped before the call returns.
 *
 * Closing the endpoint's scope stops admitting messages (later calls, and a request still
 * waiting for its answer, fail with `closed`). A persistent child then receives every
 * message already queued, followed by the end of its stdin, and gets `exitGrace` to exit
 * on its own. Every child still running after that is stopped: SIGTERM, then SIGKILL
 * after `killGrace` (so children that ignore SIGTERM are stopped too), and reaped.
 *
 * @since 0.1.0
 */
import type { Registration } from "@effect-ahp/protocol"
import type * as TransportApi from "@effect-ahp/harness/Transport"
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as perEvent from "./internal/perEvent.js"
import * as persistent from "./internal/persistent.js"
import type * as stdio from "./internal/stdio.js"

/**
 * Tuning for the stdio binding. Every field is optional; see `defaults`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Longest accepted stdout line, in bytes; a longer line fails with `oversized`. */
  readonly maxLineBytes?: number | undefined
  /** Time between SIGTERM and SIGKILL when a child is stopped. */
  readonly killGrace?: Duration.DurationInput | undefined
  /**
   * How long a child may take to exit on its own: a `per_event` child after it has replied,
   * a persistent one after the end of its stdin when the endpoint closes.
   */
  readonly exitGrace?: Duration.DurationInput | undefined
  /** How long a `per_event` child may run after receiving a notification before it is stopped. */
  readonly notificationGrace?: Duration.DurationInput | undefined
  /** Consecutive malformed or oversized lines after which a persistent child is killed. */
  readonly maxMalformedLines?: number | undefined
  /** Extra environment variables for every child, on top of `PATH` and `HOME`. */
  readonly env?: Readonly<Record<string, string>> | undefined
}

/**
 * The default options: 8 MiB lines, 1 s kill grace, 500 ms exit grace, 5 s for a
 * notification, 3 malformed lines.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  maxLineBytes: 8 * 1024 * 1024,
  killGrace: Duration.seconds(1),
  exitGrace: Duration.millis(500),
  notificationGrace: Duration.seconds(5),
  maxMalformedLines: 3
} as const

/**
 * The environment a child receives: `PATH` and `HOME` from this process (when set), plus
 * `extra`. Nothing else of the harness's environment is passed on.
 *
 * @since 0.1.0
 * @category constructors
 */
export const childEnvironment = (extra: Readonly<Record<string, string>> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const name of ["PATH", "HOME"]) {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  return { ...env, ...extra }
}

/**
 * Connects a stdio backend for the lifetime of the current scope. Connecting starts
 * nothing: children are started by the messages that need them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  transport: Registration.StdioTransport,
  options: Options = {}
): Effect.Effect<TransportApi.Endpoint, never, Scope.Scope> => {
  const config: stdio.Config = {
    transport,
    env: childEnvironment(options.env),
    killGrace: Duration.decode(options.killGrace ?? defaults.killGrace),
    exitGrace: Duration.decode(options.exitGrace ?? defaults.exitGrace),
    notificationGrace: Duration.decode(options.notificationGrace ?? defaults.notificationGrace),
    maxLineBytes: options.maxLineBytes ?? defaults.maxLineBytes,
    maxMalformedLines: options.maxMalformedLines ?? defaults.maxMalformedLines
  }
  return transport.lifecycle === "persistent" ? persistent.connect(config) : perEvent.connect(config)
}
