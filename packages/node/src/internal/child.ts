/**
 * Starting a backend process for the stdio binding: direct exec (no shell) in its own
 * process group, a minimal environment, stderr drained and only counted, and a bounded
 * SIGTERM → grace → SIGKILL finalizer that waits until the process has been reaped.
 *
 * The child is driven through `node:child_process` directly rather than the platform's
 * `CommandExecutor`: stdout chunks are handed to a callback as they arrive and stdin is
 * written in place, which removes the stream and sink machinery (a fiber hop and several
 * allocations per chunk) from every exchange — measured at about 60 µs per round trip.
 *
 * @internal
 */
import type { Registration } from "@effect-ahp/protocol"
import * as TransportApi from "@effect-ahp/harness/Transport"
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"

/** @internal */
export interface Child {
  /** Queues a line (text is written as UTF-8) for the child's stdin; false once stdin has ended or failed. */
  readonly write: (line: string | Uint8Array) => boolean
  /** Ends the child's stdin once everything queued has been written. */
  readonly endInput: () => void
  /** Whether the child's exit has not been observed yet. */
  readonly isRunning: () => boolean
  /** Completes once the child has exited (never fails). */
  readonly exited: Effect.Effect<void>
  /** How the child ended, waiting at most `wait`; text safe for diagnostics. */
  readonly describeEnd: (wait: Duration.DurationInput) => Effect.Effect<string>
}

/** What the caller does with the child's stdout. Called outside any fiber. */
export interface Output {
  /** A chunk of stdout, in order. */
  readonly onData: (bytes: Uint8Array) => void
  /** stdout reached its end (or failed); called once, after the last `onData`. */
  readonly onEnd: () => void
}

/** @internal */
export interface ChildConfig {
  readonly transport: Registration.StdioTransport
  readonly env: Readonly<Record<string, string>>
  readonly killGrace: Duration.Duration
}

const spawnFailure = (error: NodeJS.ErrnoException) =>
  new TransportApi.TransportError({
    reason: "spawn",
    detail: typeof error.code === "string" && /^E[A-Z]+$/.test(error.code)
      ? `the backend process could not be started (${error.code})`
      : "the backend process could not be started"
  })

const ignore = () => {}

/** Closes our ends of the child's pipes. */
const closePipes = (handle: ChildProcess.ChildProcess): void => {
  handle.stdin?.destroy()
  handle.stdout?.destroy()
  handle.stderr?.destroy()
}

/** Sends `signal` to the child's process group, or to the child alone if that fails. */
const signalGroup = (handle: ChildProcess.ChildProcess, signal: NodeJS.Signals): void => {
  try {
    process.kill(-handle.pid!, signal)
  } catch {
    handle.kill(signal)
  }
}

/**
 * Stops a child: SIGTERM to its process group, then SIGKILL after `grace`; completes once
 * the child has exited. A child that has already exited gets a SIGTERM to whatever is left
 * of its group. Safe to use as a finalizer (see STACK.md §1.5.8).
 */
const terminate = (
  handle: ChildProcess.ChildProcess,
  exit: Deferred.Deferred<number | null>,
  grace: Duration.Duration
): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (handle.exitCode !== null || handle.signalCode !== null) {
      try {
        process.kill(-handle.pid!, "SIGTERM")
      } catch {
        // The group is already empty.
      }
      return Effect.void
    }
    signalGroup(handle, "SIGTERM")
    return Deferred.await(exit).pipe(
      Effect.interruptible,
      Effect.timeout(grace),
      Effect.catchAll(() => Effect.zipRight(Effect.sync(() => signalGroup(handle, "SIGKILL")), Deferred.await(exit))),
      Effect.asVoid
    )
  }).pipe(
    Effect.ensuring(Effect.sync(() => closePipes(handle)))
  )

/**
 * Starts the backend in the current scope, handing its stdout to `output`. Closing the
 * scope terminates and reaps the process.
 *
 * @internal
 */
export const spawn = (config: ChildConfig, output: Output): Effect.Effect<Child, TransportApi.TransportError, Scope.Scope> => {
  const { args, command, cwd } = config.transport
  // Uninterruptible from spawn until our finalizer is registered, so a started child is
  // always stopped when the scope closes.
  return Effect.uninterruptible(Effect.gen(function*() {
    // The exit code, or null when a signal ended the child.
    const exit = yield* Deferred.make<number | null>()
    const handle = yield* Effect.async<ChildProcess.ChildProcess, TransportApi.TransportError>((resume) => {
      let started = false
      let handle: ChildProcess.ChildProcess
      try {
        handle = ChildProcess.spawn(command, args ?? [], {
          stdio: "pipe",
          env: config.env,
          detached: true,
          ...(cwd === undefined ? {} : { cwd })
        })
      } catch (error) {
        // Arguments Node refuses outright (a NUL byte in the command, say).
        return resume(Effect.fail(spawnFailure(error as NodeJS.ErrnoException)))
      }
      // Kept for the child's lifetime: a late error (a failed kill) must never be unhandled.
      handle.on("error", (error) => {
        if (started) return
        started = true
        closePipes(handle)
        resume(Effect.fail(spawnFailure(error)))
      })
      handle.once("spawn", () => {
        started = true
        resume(Effect.succeed(handle))
      })
      handle.once("exit", (code) => Deferred.unsafeDone(exit, Exit.succeed(code)))
    })
    yield* Effect.addFinalizer(() => terminate(handle, exit, config.killGrace))

    const { stderr, stdin, stdout } = handle
    let stderrBytes = 0
    let ended = false
    const end = () => {
      if (ended) return
      ended = true
      output.onEnd()
    }
    // stdin keeps an error listener for as long as the child can raise EPIPE.
    stdin!.on("error", ignore)
    stderr!.on("error", ignore)
    stderr!.on("data", (chunk: Buffer) => void (stderrBytes += chunk.length))
    stdout!.on("data", (chunk: Buffer) => {
      if (!ended) output.onData(chunk)
    })
    stdout!.on("end", end)
    stdout!.on("error", end)
    stdout!.on("close", end)

    const exited = Effect.asVoid(Deferred.await(exit))
    const child: Child = {
      write: (line) => {
        if (stdin!.destroyed || stdin!.writableEnded) return false
        stdin!.write(line)
        return true
      },
      endInput: () => {
        if (!stdin!.destroyed && !stdin!.writableEnded) stdin!.end()
      },
      isRunning: () => handle.exitCode === null && handle.signalCode === null,
      exited,
      describeEnd: (wait) =>
        Deferred.await(exit).pipe(
          Effect.map((code) => code === null ? "terminated by a signal" : `exit code ${code}`),
          Effect.interruptible,
          Effect.timeoutOption(wait),
          Effect.map(Option.getOrElse(() => "still running")),
          Effect.map((status) => `${status}, ${stderrBytes} bytes on stderr`)
        )
    }
    return child
  }))
}
