/**
 * Running the bundled command line in tests: `runCli` spawns `node <bundle> …` and
 * collects its exit code and output; `startCli` keeps the process for signal tests. Also
 * the scripted misbehaving backend of the repository (`test/support/scripted-backend.mjs`)
 * as stdio transports and as an HTTP server, temporary folders, and small builders of
 * registrations and events.
 */
import { Deferred, Duration, Effect, Schedule, type Scope } from "effect"
import { type ChildProcess, spawn } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { Writable } from "node:stream"
import { fileURLToPath } from "node:url"
import { inject } from "vitest"
import { scriptedHttpServer } from "../../../test/support/e2e.js"
import { scaled } from "../../../test/support/load.js"

export { isAlive } from "../../../test/support/e2e.js"

/** The bundle built by the global setup. */
export const bundle: string = inject("bundle")

/** The repository root. */
export const root = fileURLToPath(new URL("../../../", import.meta.url))

/** The scripted backend shared by the repository's suites. */
export const scripted = path.join(root, "test", "support", "scripted-backend.mjs")

/** What a finished command printed, and how it ended. */
export interface Run {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stdout: string
  readonly stderr: string
}

/** A running command. */
export interface Running {
  readonly child: ChildProcess
  readonly done: Effect.Effect<Run>
  readonly stdout: () => string
  readonly stderr: () => string
}

/** How to run the command line: where, with which extra environment, what on stdin. */
export interface CliOptions {
  readonly cwd?: string
  readonly env?: Record<string, string>
  /** Replaces `<bundle>` (e.g. `apps/ahp/bin/ahp.mjs`). */
  readonly command?: ReadonlyArray<string>
  /** Written to stdin, which is then closed; stdin is empty without it. */
  readonly input?: string
}

/** Starts `node <bundle> args…`; the process is killed with the scope if still running. */
export const startCli = (
  args: ReadonlyArray<string>,
  options: CliOptions = {}
): Effect.Effect<Running, never, Scope.Scope> =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<Run>()
    const child = yield* Effect.acquireRelease(
      Effect.sync(() =>
        spawn(process.execPath, [...(options.command ?? [bundle]), ...args], {
          cwd: options.cwd ?? root,
          env: { ...process.env, NO_COLOR: "1", ...options.env },
          stdio: [options.input === undefined ? "ignore" : "pipe", "pipe", "pipe"]
        })
      ),
      (child) => Effect.sync(() => child.exitCode === null && child.signalCode === null && child.kill("SIGKILL"))
    )
    let stdout = ""
    let stderr = ""
    child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    if (options.input !== undefined) child.stdin!.end(options.input)
    child.on("close", (code, signal) => Deferred.unsafeDone(done, Effect.succeed({ code, signal, stdout, stderr })))
    return { child, done: Deferred.await(done), stdout: () => stdout, stderr: () => stderr }
  })

/** Runs `node <bundle> args…` to the end. */
export const runCli = (args: ReadonlyArray<string>, options: CliOptions = {}): Effect.Effect<Run> =>
  Effect.scoped(Effect.flatMap(startCli(args, options), (running) => running.done))

/** A stream that appends what is written to it. */
export const collect = (append: (text: string) => void): Writable =>
  new Writable({
    write(chunk: Buffer | string, _encoding, done) {
      append(String(chunk))
      done()
    }
  })

/** The one JSON object a command printed on stdout. */
export const output = (run: Run): any => {
  const lines = run.stdout.split("\n").filter((line) => line !== "")
  if (lines.length !== 1) throw new Error(`expected one line of JSON on stdout, got ${JSON.stringify(run)}`)
  return JSON.parse(lines[0]!)
}

/** A temporary folder removed with the scope. */
export const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "ahp-cli-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true, maxRetries: 5, retryDelay: 100 }))
)

/** Writes a JSON (or raw text) file and returns its path. */
export const writeFile = (dir: string, name: string, content: unknown): string => {
  const file = path.join(dir, name)
  fs.writeFileSync(file, typeof content === "string" ? content : JSON.stringify(content))
  return file
}

/** The entries of a scripted backend's `--log` file (empty while absent). */
export const logEntries = (file: string): Array<any> =>
  fs.existsSync(file)
    ? fs.readFileSync(file, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))
    : []

/** Polls until `check` holds (every 25 ms, up to 20 s). */
export const eventually = <A>(check: () => A | undefined): Effect.Effect<A, Error> =>
  Effect.suspend(() => {
    const value = check()
    return value === undefined || value === false ? Effect.fail(new Error("not yet")) : Effect.succeed(value)
  }).pipe(
    Effect.retry(Schedule.spaced(Duration.millis(25)).pipe(Schedule.upTo(Duration.millis(scaled(20_000)))))
  )

/** A stdio transport running the scripted backend with a behaviour and a log file. */
export const scriptedStdio = (
  behaviour: string,
  log: string,
  lifecycle: "persistent" | "per_event" = "persistent",
  extra: ReadonlyArray<string> = []
) => ({
  type: "stdio",
  command: process.execPath,
  args: [scripted, "stdio", behaviour, "--log", log, ...extra],
  lifecycle
})

/**
 * Starts the scripted backend as an HTTP server on 127.0.0.1 in this process
 * (`scriptedHttpServer`) and returns its URL (stopped with the scope).
 */
export const scriptedHttp = (dir: string, name: string, behaviour: string, extra: ReadonlyArray<string> = []) =>
  Effect.gen(function*() {
    const log = path.join(dir, `${name}.log`)
    const origin = yield* scriptedHttpServer([behaviour, "--log", log, ...extra])
    return { url: `${origin}/`, log }
  })

/** An intercept subscription. */
export const intercept = (events: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => ({
  mode: "intercept",
  events,
  timeoutMs: 20_000,
  failurePolicy: "fail-open",
  content: { default: "body" },
  ...extra
})

/** An observe subscription. */
export const observe = (events: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => ({
  mode: "observe",
  events,
  content: { default: "body" },
  ...extra
})

/** A registration document. */
export const registration = (...hooks: ReadonlyArray<Record<string, unknown>>) => ({ protocolVersion: "draft", hooks })

/** A valid registration: one stdio backend guarding tool.before (its command never runs). */
export const guardRegistration = registration({
  id: "com.example.guard",
  transport: { type: "stdio", command: "guard", lifecycle: "persistent" },
  subscriptions: [{
    mode: "intercept",
    events: ["tool.before"],
    timeoutMs: 1000,
    failurePolicy: "fail-closed",
    content: { default: "body" }
  }]
})

/** A `tool.before` boundary input for a shell command. */
export const toolBefore = (command: string, extra: Record<string, unknown> = {}) => ({
  type: "tool.before",
  session: { id: "sess-1" },
  tool: { name: "bash", input: { command }, origin: "native" },
  call: { id: "call-1" },
  path: "main",
  ...extra
})
