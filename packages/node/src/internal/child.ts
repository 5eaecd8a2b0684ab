/**
 * Starting a backend process for the stdio binding: direct exec (no shell) in a process
 * group of its own, a minimal environment, stderr drained with a bounded tail kept for
 * diagnostics, and a bounded finalizer that terminates the whole group (SIGTERM, grace,
 * SIGKILL) whether or not the child itself already exited.
 *
 * The child is driven through `node:child_process` directly rather than the platform's
 * `CommandExecutor`: stdout chunks are handed to a callback as they arrive and stdin is
 * written in place, which removes the stream and sink machinery (a fiber hop and several
 * allocations per chunk) from every exchange.
 *
 * @internal
 */
import * as TransportApi from "@effect-ahp/harness/Transport"
import type { Registration } from "@effect-ahp/protocol"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import { constVoid } from "effect/Function"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import * as ChildProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Readable } from "node:stream"
import * as guardian from "./guardian.js"
import { redact } from "./redact.js"

/** How a child ended: its exit code, or the signal that ended it. @internal */
export interface Status {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
}

/** @internal */
export interface Child {
  /** Queues a line (text is written as UTF-8) for the child's stdin; false once stdin has ended or failed. */
  readonly write: (line: string | Uint8Array) => boolean
  /** Writes a line and completes once the operating system has taken all of it (not merely queued it). */
  readonly writeFlushed: (line: string) => Effect.Effect<void, TransportApi.TransportError>
  /** Ends the child's stdin once everything queued has been written. */
  readonly endInput: () => void
  /** Whether the child's exit has not been observed yet. */
  readonly isRunning: () => boolean
  /** Completes once the child has exited (never fails). */
  readonly exited: Effect.Effect<void>
  /** How the child ended, once it has. */
  readonly status: Effect.Effect<Status>
  /** How the child ended, waiting at most `wait` (none: still running). */
  readonly statusWithin: (wait: Duration.DurationInput) => Effect.Effect<Option.Option<Status>>
  /** The redacted tail of its stderr, quoted, or undefined when it wrote nothing there. */
  readonly stderr: () => string | undefined
  /** `text` followed by the stderr tail: safe for diagnostics. */
  readonly withStderr: (text: string) => string
  /**
   * `withStderr`, once stderr has been read to its end when the child has exited (waiting at
   * most `wait`: what it wrote last may still be on its way, see `streamEnded`); at once
   * while it runs.
   */
  readonly withFinalStderr: (text: string, wait: Duration.DurationInput) => Effect.Effect<string>
  /**
   * How the child ended, waiting at most `wait`, with its stderr tail (once it has exited,
   * read to its end, waiting at most `wait` more); text safe for diagnostics.
   */
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
  /** The directory relative paths of the registration resolve against, when known. */
  readonly directory: string | undefined
  readonly env: Readonly<Record<string, string>>
  readonly killGrace: Duration.Duration
  /** The values to redact from stderr tails (read when a tail is rendered). */
  readonly secrets: () => ReadonlyArray<string>
  /**
   * The graces of the guardian that stops every child's group once this process has ended
   * however it ended (see `guardian.ts`); none: no guardian.
   */
  readonly guardian: guardian.Graces | undefined
}

/** How much of the end of stderr is kept, in bytes. */
const tailBytes = 2048

/** How long stdout may stay open after the child exited (a grandchild holding it) before it is closed. */
const drainAfterExit = Duration.millis(250)

/** How many quiet periods of `drainAfterExit` stdout is given at most after the child exited. */
const drainChecks = 8

/** How long a stopped child's stderr is read on before it is closed, should something still hold it open. */
const stderrDrain = Duration.millis(200)

/** How often the process group is checked while it is being terminated. */
const groupPoll = Duration.millis(10)

/** Where and what to run once the registration's relative paths are resolved. @internal */
export interface Launch {
  readonly command: string
  readonly args: ReadonlyArray<string>
  readonly cwd: string | undefined
}

const launchFailure = (detail: string) => new TransportApi.TransportError({ reason: "spawn", detail })

/** A path as text for a diagnostic: control characters escaped. */
const printable = (text: string) =>
  text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/**
 * The relative-path rule: the child runs in `cwd` resolved against the registration's
 * directory, or in that directory itself when there is no `cwd`; a `command` that is a
 * relative path (it has a `/`) resolves against that working directory, a bare name is
 * looked up in the child's `PATH`; `args` are passed unchanged. When the registration's
 * directory is not known, a relative `cwd` and (without an absolute `cwd`) a relative
 * command path are refused, and the child runs where the harness runs.
 *
 * @internal
 */
export const launchOf = (
  transport: Registration.StdioTransport,
  directory: string | undefined
): Either.Either<Launch, TransportApi.TransportError> => {
  const unknown = "the registration's directory is not known (give the transport the registration's directory)"
  const { args = [], command, cwd } = transport
  if (cwd !== undefined && !path.isAbsolute(cwd) && directory === undefined) {
    return Either.left(launchFailure(`the working directory ${printable(cwd)} is a relative path, but ${unknown}`))
  }
  const workdir = cwd === undefined ? directory : path.resolve(directory ?? "/", cwd)
  if (!command.includes("/") || path.isAbsolute(command)) return Either.right({ command, args, cwd: workdir })
  if (workdir === undefined) {
    return Either.left(launchFailure(`the command ${printable(command)} is a relative path, but ${unknown}`))
  }
  return Either.right({ command: path.resolve(workdir, command), args, cwd: workdir })
}

const spawnFailure = (launch: Launch, error: NodeJS.ErrnoException) => {
  const code = typeof error.code === "string" && /^E[A-Z]+$/.test(error.code) ? error.code : undefined
  const command = printable(launch.command)
  if (code === "ENOENT" && launch.cwd !== undefined && !fs.existsSync(launch.cwd)) {
    return launchFailure(`could not start ${command}: the working directory ${printable(launch.cwd)} does not exist`)
  }
  const why = code === "ENOENT"
    ? launch.command.includes("/") ? "no such file (ENOENT)" : "not found in the child's PATH (ENOENT)"
    : code === "EACCES"
    ? "permission denied (EACCES)"
    : code ?? "refused by Node"
  return launchFailure(`could not start ${command}: ${why}`)
}

/** The last `tailBytes` bytes written to a stream, and how many there were in all. */
class Tail {
  private chunks: Array<Buffer> = []
  private kept = 0
  total = 0

  push(chunk: Buffer): void {
    this.total += chunk.length
    this.chunks.push(chunk)
    this.kept += chunk.length
    while (this.kept - this.chunks[0]!.length >= tailBytes) this.kept -= this.chunks.shift()!.length
  }

  /** The tail, decoded (invalid UTF-8 replaced), redacted and quoted; undefined when empty. */
  render(secrets: ReadonlyArray<string>): string | undefined {
    if (this.total === 0) return undefined
    const bytes = Buffer.concat(this.chunks)
    const kept = bytes.subarray(Math.max(0, bytes.length - tailBytes))
    const cut = kept.length < this.total
    const text = JSON.stringify(redact(kept.toString("utf8"), secrets, cut))
    return cut ? `stderr (last ${kept.length} of ${this.total} bytes): ${text}` : `stderr: ${text}`
  }
}

/** Text for how a child ended. @internal */
export const describeStatus = (status: Option.Option<Status>): string =>
  Option.match(status, {
    onNone: () => "still running",
    onSome: ({ code, signal }) => code === null ? `terminated by ${signal ?? "a signal"}` : `exit code ${code}`
  })

const ignore = () => {}

/** Closes our ends of the child's pipes. */
const closePipes = (handle: ChildProcess.ChildProcess): void => {
  handle.stdin?.destroy()
  handle.stdout?.destroy()
  handle.stderr?.destroy()
}

const running = (handle: ChildProcess.ChildProcess) => handle.exitCode === null && handle.signalCode === null

/** Whether any process is left in the group `pid` leads (a zombie counts until it is reaped). */
const groupExists = (pid: number): boolean => {
  try {
    process.kill(-pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

/** Sends `signal` to the child's process group, or to the child alone if that fails. */
const signalGroup = (handle: ChildProcess.ChildProcess, signal: NodeJS.Signals): void => {
  try {
    process.kill(-handle.pid!, signal)
  } catch {
    if (running(handle)) handle.kill(signal)
  }
}

/**
 * Completes with true once the child has exited and its process group is empty, or with
 * false after `grace`. A plain callback wait (the exit event, and a poll of the group): no
 * fiber is forked, so an interruption of a fiber that runs it uninterruptibly (a closing
 * endpoint interrupting a background termination) cannot cut it short.
 */
const vanished = (handle: ChildProcess.ChildProcess, grace: Duration.Duration): Effect.Effect<boolean> =>
  Effect.async<boolean>((resume) => {
    const pid = handle.pid!
    const until = performance.now() + Duration.toMillis(grace)
    let timer: ReturnType<typeof setTimeout> | undefined
    const check = () => {
      timer = undefined
      if (!running(handle) && !groupExists(pid)) return done(true)
      if (performance.now() >= until) return done(false)
      timer = setTimeout(check, Duration.toMillis(groupPoll))
    }
    const stop = () => {
      if (timer !== undefined) clearTimeout(timer)
      handle.off("exit", check)
    }
    const done = (gone: boolean) => {
      stop()
      resume(Effect.succeed(gone))
    }
    handle.on("exit", check)
    check()
    return Effect.sync(stop)
  })

/**
 * Stops a child and everything left in its process group: SIGTERM to the group, then
 * SIGKILL to the group after `grace` if the child has not exited or the group is not
 * empty by then; completes once both hold (waiting at most `grace` more after SIGKILL), and
 * takes the group off the guardian's list (`unwatch`) once it is gone. A process that left
 * the group (`setsid`) is out of reach. Its pipes are closed at the end,
 * stderr once it has been read to its end (at most `stderrDrain`): a report of how the
 * child ended may still be waiting for its last words (`withFinalStderr`), which closing
 * stderr would throw away unread. Safe to use as a finalizer, and in a background fiber that
 * may be interrupted (see STACK.md §1.5.8 and `vanished`).
 */
const terminate = (
  handle: ChildProcess.ChildProcess,
  grace: Duration.Duration,
  unwatch: () => void
): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (!running(handle) && !groupExists(handle.pid!)) return Effect.sync(unwatch)
    signalGroup(handle, "SIGTERM")
    return Effect.flatMap(vanished(handle, grace), (gone) => {
      if (gone) return Effect.sync(unwatch)
      signalGroup(handle, "SIGKILL")
      return Effect.map(vanished(handle, grace), (gone) => gone && unwatch())
    })
  }).pipe(
    Effect.ensuring(Effect.zipRight(
      handle.stderr === null ? Effect.void : streamEnded(handle.stderr, stderrDrain),
      Effect.sync(() => closePipes(handle))
    ))
  )

/** How late a timer may fire before the process counts as having been starved of CPU meanwhile. */
const starvedAfter = 20

/** How many times a starved wait is extended. */
const catchUps = 5

/** The longest one extension of a starved wait, in milliseconds. */
const maxCatchUp = 100

/**
 * Calls `expire` `millis` from now, after the I/O that came due by then has been handled
 * (never for an infinite `millis`). Node runs expired timers before it polls for I/O, and a
 * child's exit, its last output and that output's end can take a few turns of the event
 * loop (more in a worker thread): in a process starved of CPU past a bare timer, the timer
 * would win over an exit or an end that had already happened, and a report would miss what
 * the child wrote last. So a timer that fired more than `starvedAfter` late is followed by
 * another wait as long as it was late (at least `starvedAfter`, at most `maxCatchUp`; up to
 * `catchUps` times, while they too fire late), and the last one by `setImmediate`, after
 * the poll phase. The extension is as long as the starvation because the rest of the
 * process starved too: a child's exit reaches Node as SIGCHLD, whose handler may have to
 * run on another thread (the main thread, when this is a worker) before the exit can be
 * read. Returns the cancellation.
 */
const afterPendingIo = (
  millis: number,
  expire: () => void,
  options?: { readonly unref?: boolean }
): () => void => {
  if (!Number.isFinite(millis)) return constVoid
  let timer: ReturnType<typeof setTimeout> | undefined
  let immediate: NodeJS.Immediate | undefined
  const arm = (delay: number, left: number) => {
    const due = performance.now() + delay
    timer = setTimeout(() => {
      const late = performance.now() - due
      if (late > starvedAfter && left > 0) return arm(Math.min(late, maxCatchUp), left - 1)
      immediate = setImmediate(expire)
    }, delay)
    if (options?.unref === true) timer.unref()
  }
  arm(millis, catchUps)
  return () => {
    clearTimeout(timer)
    if (immediate !== undefined) clearImmediate(immediate)
  }
}

/** How the child ended, waiting at most `wait` (a callback wait, like `vanished`). */
const statusWithin = (handle: ChildProcess.ChildProcess, wait: Duration.DurationInput) =>
  Effect.async<Option.Option<Status>>((resume) => {
    const now = statusOf(handle)
    if (Option.isSome(now)) return resume(Effect.succeed(now))
    const onExit = () => {
      cancel()
      resume(Effect.succeed(statusOf(handle)))
    }
    const cancel = afterPendingIo(Duration.toMillis(wait), () => {
      handle.off("exit", onExit)
      resume(Effect.succeed(statusOf(handle)))
    })
    handle.once("exit", onExit)
    return Effect.sync(() => {
      cancel()
      handle.off("exit", onExit)
    })
  })

/**
 * Completes once `stream` has ended or closed, or after `wait` and the I/O pending by then
 * (`afterPendingIo`). A child's stderr ends once everything it wrote before exiting has been
 * read: the exit event can come first, so a tail rendered at the exit alone may lack the
 * child's last words. A grandchild holding stderr open is what `wait` bounds.
 */
const streamEnded = (stream: Readable, wait: Duration.DurationInput) =>
  Effect.async<void>((resume) => {
    if (stream.readableEnded || stream.destroyed) return resume(Effect.void)
    const onEnd = () => {
      stop()
      resume(Effect.void)
    }
    const cancel = afterPendingIo(Duration.toMillis(wait), onEnd)
    const stop = () => {
      cancel()
      stream.off("end", onEnd)
      stream.off("close", onEnd)
    }
    stream.once("end", onEnd)
    stream.once("close", onEnd)
    return Effect.sync(stop)
  })

const statusOf = (handle: ChildProcess.ChildProcess): Option.Option<Status> =>
  running(handle) ? Option.none() : Option.some({ code: handle.exitCode, signal: handle.signalCode })

/**
 * Starts the backend in the current scope, handing its stdout to `output`. Closing the
 * scope terminates its process group and reaps the child.
 *
 * @internal
 */
export const spawn = (
  config: ChildConfig,
  output: Output
): Effect.Effect<Child, TransportApi.TransportError, Scope.Scope> =>
  Either.match(launchOf(config.transport, config.directory), {
    onLeft: Effect.fail,
    onRight: (launch) => start(config, launch, output)
  })

const start = (
  config: ChildConfig,
  launch: Launch,
  output: Output
): Effect.Effect<Child, TransportApi.TransportError, Scope.Scope> =>
  // Uninterruptible from spawn until our finalizer is registered, so a started child is
  // always stopped when the scope closes.
  Effect.uninterruptible(Effect.gen(function*() {
    const exit = yield* Deferred.make<Status>()
    // whether stdout is listened to, and brought data since `closeQuietStdout` last looked
    let listening = false
    let readSinceCheck = false
    // A grandchild may hold stdout open after the child is gone: once the child has exited
    // and stdout is listened to, stdout is closed when it has been quiet for `drainAfterExit`
    // (at most `drainChecks` times that, should a grandchild keep writing), looked at after
    // the I/O pending by then (`afterPendingIo`).
    const closeQuietStdout = (stdout: Readable | null, checks: number): void =>
      void afterPendingIo(Duration.toMillis(drainAfterExit), () => {
        if (!readSinceCheck || checks <= 1) return void stdout?.destroy()
        readSinceCheck = false
        closeQuietStdout(stdout, checks - 1)
      }, { unref: true })
    let unwatch = constVoid
    const handle = yield* Effect.async<ChildProcess.ChildProcess, TransportApi.TransportError>((resume) => {
      let started = false
      let handle: ChildProcess.ChildProcess
      // the guardian first, so that only the statements up to `watch` separate the child's
      // spawn from its listing (a kill of this process in between leaves the child unguarded)
      if (config.guardian !== undefined) guardian.prepare(config.guardian)
      try {
        handle = ChildProcess.spawn(launch.command, launch.args, {
          stdio: "pipe",
          env: config.env,
          detached: true,
          ...(launch.cwd === undefined ? {} : { cwd: launch.cwd })
        })
      } catch (error) {
        // Arguments Node refuses outright (a NUL byte in the command, say).
        return resume(Effect.fail(spawnFailure(launch, error as NodeJS.ErrnoException)))
      }
      // listed at once: this process may be killed before the child's start is reported
      if (handle.pid !== undefined && config.guardian !== undefined) {
        unwatch = guardian.watch(handle.pid, config.guardian)
      }
      // Kept for the child's lifetime: a late error (a failed kill) must never be unhandled.
      handle.on("error", (error) => {
        if (started) return
        started = true
        closePipes(handle)
        resume(Effect.fail(spawnFailure(launch, error)))
      })
      handle.once("spawn", () => {
        started = true
        resume(Effect.succeed(handle))
      })
      handle.once("exit", (code, signal) => {
        Deferred.unsafeDone(exit, Exit.succeed({ code, signal }))
        readSinceCheck = false
        if (listening) closeQuietStdout(handle.stdout, drainChecks)
      })
    })
    yield* Effect.addFinalizer(() => terminate(handle, config.killGrace, unwatch))

    const { stderr, stdin, stdout } = handle
    const tail = new Tail()
    let ended = false
    const end = () => {
      if (ended) return
      ended = true
      output.onEnd()
    }
    // stdin keeps an error listener for as long as the child can raise EPIPE.
    stdin!.on("error", ignore)
    stderr!.on("error", ignore)
    stderr!.on("data", (chunk: Buffer) => tail.push(chunk))
    stdout!.on("data", (chunk: Buffer) => {
      readSinceCheck = true
      if (!ended) output.onData(chunk)
    })
    stdout!.on("end", end)
    stdout!.on("error", end)
    stdout!.on("close", end)
    // the child may have answered and exited before this fiber resumed: its output is still
    // in the pipe, read from now on
    listening = true
    if (!running(handle)) closeQuietStdout(stdout, drainChecks)

    const renderStderr = () => tail.render(config.secrets())
    const withStderr = (text: string) => `${text}; ${renderStderr() ?? "nothing on stderr"}`
    const withFinalStderr = (text: string, wait: Duration.DurationInput) =>
      Effect.suspend(() => running(handle) ? Effect.void : streamEnded(stderr!, wait)).pipe(
        Effect.map(() => withStderr(text))
      )
    const notWritten = () =>
      new TransportApi.TransportError({
        reason: "exited",
        detail: withStderr(
          `the message could not be written to the backend process's stdin (${describeStatus(statusOf(handle))})`
        )
      })

    const child: Child = {
      write: (line) => {
        if (stdin!.destroyed || stdin!.writableEnded) return false
        stdin!.write(line)
        return true
      },
      writeFlushed: (line) =>
        Effect.async<void, TransportApi.TransportError>((resume) => {
          if (stdin!.destroyed || stdin!.writableEnded) return resume(Effect.fail(notWritten()))
          stdin!.write(line, (error) => resume(error ? Effect.fail(notWritten()) : Effect.void))
        }),
      endInput: () => {
        if (!stdin!.destroyed && !stdin!.writableEnded) stdin!.end()
      },
      isRunning: () => running(handle),
      exited: Effect.asVoid(Deferred.await(exit)),
      status: Deferred.await(exit),
      statusWithin: (wait) => statusWithin(handle, wait),
      stderr: renderStderr,
      withStderr,
      withFinalStderr,
      describeEnd: (wait) =>
        Effect.flatMap(statusWithin(handle, wait), (ended) => withFinalStderr(describeStatus(ended), wait))
    }
    return child
  }))
