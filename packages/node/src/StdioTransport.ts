/**
 * The stdio binding (AHP-STDIO-001): the backend's `command` is executed directly with its
 * `args` (never through a shell), in a process group of its own, with a minimal
 * environment; each message is one compact JSON object plus `"\n"` on its stdin, and each
 * stdout line must be one JSON-RPC message in strict UTF-8 (see `Framing` in
 * `@effect-ahp/protocol`). stderr is drained and never parsed; its last 2 KiB are kept, and
 * a failure caused by the child (it ended, exited with a failure status, wrote a bad line)
 * carries that tail in its `detail`, with every configured secret redacted: the values of
 * the environment entries passed to the child beyond `PATH` and `HOME`, and the
 * `secrets` of the connection.
 *
 * Paths: the child runs in `cwd` resolved against the registration's
 * directory (`Options.directory`), or in that directory when there is no `cwd`; a relative
 * command path (one with a `/`) resolves against that working directory and a bare command
 * name is looked up in the child's `PATH`; `args` are passed unchanged, so relative ones
 * are relative to the working directory. Without a known directory, a relative `cwd` or
 * command path fails with `spawn`, and the child runs where the harness runs.
 *
 * Environment (see `childEnvironment`): `PATH` and `HOME` from the harness (when set),
 * then `Options.env`, then the registration's `StdioEnvironment` extension
 * (`"org.effect-ahp.env": {"inherit": [names], "set": {name: value}}`); nothing else of
 * the harness's environment reaches the child.
 *
 * Process groups: every child leads a process group of its own. After a deadline, after
 * every `per_event` exchange and when the endpoint closes, the whole group is terminated —
 * SIGTERM, then SIGKILL after `killGrace` if anything is left — whether or not the child
 * itself has already exited, so grandchildren that ignore SIGTERM are stopped too. A
 * process that leaves the group (`setsid`, `setpgid`) is out of reach. With `guardian`, a
 * watchdog process stops the groups this process leaves behind when it ends without closing
 * the endpoint (it exits at once, or it is killed): after the end of their stdin, each group
 * gets `exitGrace`, then SIGTERM, then SIGKILL after `killGrace`.
 *
 * Deadlines are absolute: an interrupted exchange returns at once, and stopping and
 * reaping its child continue in the background in the endpoint's scope (closing the scope
 * waits for them).
 *
 * - `persistent`: one child per endpoint, started by `Endpoint.start` (the harness calls it
 *   when it is built) or by the first message. Requests are serialised (at most one
 *   outstanding) and matched by id; stale, duplicate, unrelated and unsolicited frames are
 *   dropped. A malformed or oversized line fails the pending request; `maxMalformedLines`
 *   bad lines in a row get the child retired. A child that exits is replaced on the next
 *   message. A request abandoned at its deadline retires the child (the next message
 *   starts a fresh one) — unless the child is still starting up: it has not answered yet
 *   and is younger than `startupTimeout`. Such a child is kept and takes the next request
 *   at once; the late answer to the abandoned request is told apart by its id and dropped.
 *   Only a request with that same id (another subscription of the backend in the same
 *   call) waits for the late answer before it is written. A notification is
 *   `delivered` once its whole line has been written into the child's stdin (taken by the
 *   operating system, not merely queued): the binding has no acknowledgement, and a
 *   running child reads what is in its stdin unless it ends first. With `oneShot` a
 *   notification is followed by the end of the child's stdin and is `delivered` only once
 *   the child has read everything and exited with status 0.
 * - `per_event`: one child per message. The message is written and stdin closed; a request
 *   succeeds with the first correlated response line once the child has also exited with
 *   status 0 within `exitGrace` (a nonzero exit, a signal, or no exit within the grace is
 *   an `exited` failure, the answer notwithstanding). A notification is `delivered` once
 *   the child has exited with status 0 within `notificationGrace`.
 *
 * Closing the endpoint's scope stops admitting messages (later calls, and a request still
 * waiting for its answer, fail with `closed`). A persistent child then receives every
 * message already queued, followed by the end of its stdin, and gets `exitGrace` to exit
 * on its own — or the harness's observation timeout, when it was sent observations it has
 * not yet shown it read (by answering a later request); a child stopped with such
 * observations is logged. Every child still running after that has its group terminated.
 *
 * @since 0.1.0
 */
import type * as TransportApi from "@effect-ahp/harness/Transport"
import { Registration } from "@effect-ahp/protocol"
import * as Duration from "effect/Duration"
import type * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import * as path from "node:path"
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
  /** Time between SIGTERM and SIGKILL when a child's process group is terminated. */
  readonly killGrace?: Duration.DurationInput | undefined
  /**
   * How long a child may take to exit on its own: a `per_event` child after it has replied,
   * a persistent one after the end of its stdin when the endpoint closes.
   */
  readonly exitGrace?: Duration.DurationInput | undefined
  /** How long a `per_event` child may run after receiving a notification before it is stopped. */
  readonly notificationGrace?: Duration.DurationInput | undefined
  /** Consecutive malformed or oversized lines after which a persistent child is retired. */
  readonly maxMalformedLines?: number | undefined
  /**
   * How long a persistent child counts as starting up: until it first answers, and at most
   * this long after it started, a deadline does not retire it.
   */
  readonly startupTimeout?: Duration.DurationInput | undefined
  /** Extra environment variables for every child, on top of `PATH` and `HOME`. */
  readonly env?: Readonly<Record<string, string>> | undefined
  /**
   * The directory the registration's relative paths resolve against: the directory of the
   * registration file. Without it, relative command paths and a relative `cwd` are refused.
   */
  readonly directory?: string | undefined
  /**
   * The harness makes a single call and then closes (the `ahp` commands, a hook process run
   * once per host event): a notification to a persistent child is followed by the end of
   * its stdin, and is `delivered` only once the child has read everything and exited with
   * status 0. A later message would start a fresh child.
   */
  readonly oneShot?: boolean | undefined
  /**
   * Stop every child's process group once this process has ended, however it ended (an exit
   * that does not wait for the endpoint to close, a SIGKILL): a guardian process (`/bin/sh`,
   * one per process or worker thread, started with the first child; none on Windows) gives
   * each group still running `exitGrace` after the end of its stdin, then SIGTERM, then
   * SIGKILL after `killGrace` (the graces of the connection that started it).
   */
  readonly guardian?: boolean | undefined
}

/**
 * What the transport service tells the stdio binding about one connection.
 *
 * @since 0.1.0
 * @category models
 */
export interface Connection extends TransportApi.ConnectOptions {
  /** The backend's id, named in log lines. */
  readonly backend?: string | undefined
  /** More values to redact from stderr tails, read when a tail is rendered. */
  readonly secrets?: (() => ReadonlyArray<string>) | undefined
}

/**
 * The default options: 8 MiB lines, 1 s kill grace, 1 s exit grace, 5 s for a
 * notification (and for a closing persistent child to read its observations, when the
 * harness does not say), 3 malformed lines, 10 s of start-up.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  maxLineBytes: 8 * 1024 * 1024,
  killGrace: Duration.seconds(1),
  exitGrace: Duration.seconds(1),
  notificationGrace: Duration.seconds(5),
  maxMalformedLines: 3,
  startupTimeout: Duration.seconds(10)
} as const

/**
 * The environment a child receives: `PATH` and `HOME` from this process (when set), then
 * `extra`, then the registration's extension: the variables it names in `inherit` (those
 * set in this process) and its `set` values. Nothing else of the harness's environment is
 * passed on.
 *
 * @since 0.1.0
 * @category constructors
 */
export const childEnvironment = (
  extra: Readonly<Record<string, string>> = {},
  extension?: Registration.StdioEnvironment | undefined
): Record<string, string> => {
  const env: Record<string, string> = {}
  const copy = (name: string) => {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  copy("PATH")
  copy("HOME")
  Object.assign(env, extra)
  extension?.inherit?.forEach(copy)
  return Object.assign(env, extension?.set)
}

/**
 * The directory of a registration file (made absolute), for `Options.directory`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const directoryOf = (registrationFile: string): string => path.dirname(path.resolve(registrationFile))

/** The values of every entry passed beyond the harness's own `PATH` and `HOME`. */
const passedValues = (env: Readonly<Record<string, string>>): ReadonlyArray<string> =>
  Object.entries(env).filter(([name, value]) => !((name === "PATH" || name === "HOME") && process.env[name] === value))
    .map(([, value]) => value)

/**
 * Connects a stdio backend for the lifetime of the current scope. Connecting starts
 * nothing: a persistent child is started by `Endpoint.start` or by the first message.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  transport: Registration.StdioTransport,
  options: Options = {},
  connection: Connection = {}
): Effect.Effect<TransportApi.Endpoint, never, Scope.Scope> => {
  const env = childEnvironment(options.env, transport[Registration.environmentKey])
  const passed = passedValues(env)
  const more = connection.secrets
  const killGrace = Duration.decode(options.killGrace ?? defaults.killGrace)
  const exitGrace = Duration.decode(options.exitGrace ?? defaults.exitGrace)
  const config: stdio.Config = {
    transport,
    directory: options.directory,
    env,
    secrets: more === undefined ? () => passed : () => [...passed, ...more()],
    backend: connection.backend,
    killGrace,
    exitGrace,
    guardian: options.guardian === true
      ? { exitMs: Duration.toMillis(exitGrace), killMs: Duration.toMillis(killGrace) }
      : undefined,
    notificationGrace: Duration.decode(options.notificationGrace ?? defaults.notificationGrace),
    observationGrace: connection.observationTimeoutMs === undefined
      ? defaults.notificationGrace
      : Duration.millis(connection.observationTimeoutMs),
    maxLineBytes: options.maxLineBytes ?? defaults.maxLineBytes,
    maxMalformedLines: options.maxMalformedLines ?? defaults.maxMalformedLines,
    startupTimeout: Duration.decode(options.startupTimeout ?? defaults.startupTimeout),
    oneShot: options.oneShot === true
  }
  return transport.lifecycle === "persistent" ? persistent.connect(config) : perEvent.connect(config)
}
