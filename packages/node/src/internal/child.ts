/**
 * Starting a backend process for the stdio binding: direct exec (no shell), a minimal
 * environment, stdin fed from a stream, stderr drained and only counted, and a bounded
 * SIGTERM → grace → SIGKILL finalizer that waits until the process has been reaped.
 *
 * @internal
 */
import type { Registration } from "@effect-ahp/protocol"
import * as TransportApi from "@effect-ahp/harness/Transport"
import * as Command from "@effect/platform/Command"
import type * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as PlatformError from "@effect/platform/Error"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"

/** @internal */
export interface Child {
  readonly process: CommandExecutor.Process
  /** Bytes the child has written to stderr so far (the text itself is discarded). */
  readonly stderrBytes: () => number
}

/** @internal */
export interface ChildConfig {
  readonly transport: Registration.StdioTransport
  readonly env: Readonly<Record<string, string>>
  readonly killGrace: Duration.Duration
}

const spawnFailure = (error: PlatformError.PlatformError) =>
  new TransportApi.TransportError({
    reason: "spawn",
    detail: error._tag === "SystemError"
      ? `the backend process could not be started (${error.reason})`
      : "the backend process could not be started"
  })

/**
 * Stops a process: SIGTERM to its process group, then SIGKILL after `grace`; completes
 * once the process has exited. Safe to use as a finalizer (see STACK.md §1.5.8).
 *
 * @internal
 */
export const terminate = (process: CommandExecutor.Process, grace: Duration.Duration): Effect.Effect<void> =>
  Effect.flatMap(Effect.orElseSucceed(process.isRunning, () => false), (running) =>
    running
      ? process.kill("SIGTERM").pipe(
        Effect.interruptible,
        Effect.timeout(grace),
        Effect.catchAll(() => process.kill("SIGKILL")),
        Effect.ignore
      )
      : Effect.void)

/**
 * Starts the backend in the current scope. `input` is written to its stdin, which is
 * closed when `input` ends. Closing the scope terminates and reaps the process.
 *
 * @internal
 */
export const spawn = (
  config: ChildConfig,
  input: Stream.Stream<Uint8Array>
): Effect.Effect<Child, TransportApi.TransportError, Scope.Scope | CommandExecutor.CommandExecutor> => {
  const { args, command, cwd } = config.transport
  const base = Command.make(command, ...(args ?? [])).pipe(Command.env(config.env, { extendEnv: false }))
  const prepared = cwd === undefined ? base : Command.workingDirectory(base, cwd)
  // Uninterruptible from spawn until our finalizer is registered, so a SIGTERM-ignoring
  // child can never be left to the platform finalizer alone (which waits without bound).
  return Effect.uninterruptible(Effect.gen(function*() {
    const proc = yield* Command.start(prepared).pipe(Effect.mapError(spawnFailure))
    let stderr = 0
    // The writer and the stderr drain are stopped only after the process is gone
    // (finalizers run in reverse order): stdin keeps an error listener while the child can
    // still raise EPIPE, and stderr never fills up while the child handles SIGTERM.
    yield* Effect.forkScoped(Effect.interruptible(Effect.ignore(Stream.run(input, proc.stdin))))
    yield* Effect.forkScoped(Effect.interruptible(Effect.ignore(
      Stream.runForEach(proc.stderr, (chunk) => Effect.sync(() => void (stderr += chunk.length)))
    )))
    yield* Effect.addFinalizer(() => terminate(proc, config.killGrace))
    return { process: proc, stderrBytes: () => stderr }
  }))
}

/**
 * A safe description of how a child ended, waiting at most `wait` for its exit status.
 *
 * @internal
 */
export const describeEnd = (child: Child, wait: Duration.DurationInput): Effect.Effect<string> =>
  child.process.exitCode.pipe(
    Effect.map((code) => `exit code ${code}`),
    Effect.orElseSucceed(() => "terminated by a signal"),
    Effect.interruptible,
    Effect.timeoutOption(wait),
    Effect.map(Option.getOrElse(() => "still running")),
    Effect.map((status) => `${status}, ${child.stderrBytes()} bytes on stderr`)
  )
