/**
 * Runs `test/fixtures/stdioBackend.ts` as a real child process (`node` on its bundle, built
 * by the global setup) and exposes its stdin, stdout lines, stderr text and exit code to
 * Effect tests.
 */
import { Deferred, Duration, Effect, Queue, type Scope } from "effect"
import * as ChildProcess from "node:child_process"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"

const fixture = inject("stdioBackend")
const packageDir = fileURLToPath(new URL("..", import.meta.url))

export interface BackendProcess {
  /** Writes raw bytes (or text) to the child's stdin. */
  readonly write: (data: string | Uint8Array) => Effect.Effect<void>
  /** Closes the child's stdin (EOF). */
  readonly end: Effect.Effect<void>
  /** The next complete stdout line (without its newline); fails after a timeout. */
  readonly nextLine: Effect.Effect<string, Error>
  /** The exit code once the process has exited and its streams closed; fails after a timeout. */
  readonly exitCode: Effect.Effect<number | null, Error>
  /** Every stdout line received so far that was not taken with `nextLine`. */
  readonly pendingLines: Effect.Effect<ReadonlyArray<string>>
  /** Everything written to stderr so far. */
  readonly stderr: Effect.Effect<string>
}

const timeout = Duration.seconds(30)

export const spawnBackend: Effect.Effect<BackendProcess, never, Scope.Scope> = Effect.gen(function*() {
  const lines = yield* Queue.unbounded<string>()
  const exited = yield* Deferred.make<number | null>()
  const child = yield* Effect.acquireRelease(
    Effect.sync(() =>
      ChildProcess.spawn(process.execPath, [fixture], {
        cwd: packageDir,
        stdio: ["pipe", "pipe", "pipe"]
      })
    ),
    (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
  )
  let stdoutBuffer = ""
  let stderrText = ""
  child.stdout.setEncoding("utf8")
  child.stderr.setEncoding("utf8")
  child.stdout.on("data", (text: string) => {
    stdoutBuffer += text
    let newline = stdoutBuffer.indexOf("\n")
    while (newline !== -1) {
      Queue.unsafeOffer(lines, stdoutBuffer.slice(0, newline))
      stdoutBuffer = stdoutBuffer.slice(newline + 1)
      newline = stdoutBuffer.indexOf("\n")
    }
  })
  child.stderr.on("data", (text: string) => {
    stderrText += text
  })
  child.on("close", (code) => {
    if (stdoutBuffer.length > 0) Queue.unsafeOffer(lines, `<unterminated>${stdoutBuffer}`)
    Deferred.unsafeDone(exited, Effect.succeed(code))
  })
  const failAfter = (what: string) =>
    Effect.timeoutFail({
      duration: timeout,
      onTimeout: () => new Error(`timed out waiting for ${what}; stderr: ${stderrText}`)
    })
  return {
    write: (data) =>
      Effect.async<void>((resume) => {
        child.stdin.write(data, () => resume(Effect.void))
      }),
    end: Effect.async<void>((resume) => {
      child.stdin.end(() => resume(Effect.void))
    }),
    nextLine: Queue.take(lines).pipe(failAfter("a stdout line")),
    exitCode: Deferred.await(exited).pipe(failAfter("the process to exit")),
    pendingLines: Queue.takeAll(lines).pipe(Effect.map((chunk) => [...chunk])),
    stderr: Effect.sync(() => stderrText)
  }
})
