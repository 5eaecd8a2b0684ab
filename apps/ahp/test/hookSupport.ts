/**
 * Running `ahp hook` the way Claude Code and Codex run a command hook: the payload on
 * stdin, the environment, and the host's timeout (the process is killed when it passes, as
 * the host kills a hook that overruns). Every run gets its own home, cache and runtime
 * folders, so no registration, cache entry or bridge socket of the machine is used.
 * `runHook` starts the bundle in a process of its own; `callHook` calls the same entry
 * (`@effect-ahp/hook/Command`) inside the test's process with stand-ins for stdin, stdout, stderr,
 * the environment and the exit, which saves a Node start-up per call.
 */
import * as Command from "@effect-ahp/hook/Command"
import * as Trust from "@effect-ahp/hook/Trust"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { PassThrough } from "node:stream"
import { bundle, collect, intercept, isAlive, logEntries, registration, scriptedStdio, writeFile } from "./support.js"

// What a call loads on demand (the cold path, the stdio transport, the fallback answer) is
// loaded here, before any test starts: a call in process spends its deadline on the call,
// not on the test runner compiling the harness for the first call.
await Promise.all([
  import("@effect-ahp/hook/Cold"),
  import("@effect-ahp/hook/Trouble"),
  import("@effect-ahp/hosts/Hosts"),
  import("@effect-ahp/node/StdioTransport")
])

/** The shell guard as a stdio backend of a fail-closed `tool.before` intercept (`ahp serve shell-guard --stdio`). */
export const guard = registration({
  id: "com.example.guard",
  transport: {
    type: "stdio",
    command: process.execPath,
    args: [bundle, "serve", "shell-guard", "--stdio"],
    lifecycle: "persistent"
  },
  subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-closed" })]
})

/** The words after `node` that run `ahp hook` from the bundle built by the global setup. */
export const hookCommand: ReadonlyArray<string> = [bundle, "hook"]

/** How a hook run ended. */
export interface HookRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  readonly elapsedMs: number
  /** When the first byte of the answer arrived on stdout (milliseconds after the start; runs of their own). */
  readonly answeredMs?: number | undefined
  /** When the process exited (milliseconds after the start; runs of their own). */
  readonly exitedMs?: number | undefined
  /** Whether the host's timeout killed it. */
  readonly killed: boolean
}

/** Options of a hook run. */
export interface HookOptions {
  /** The folder for the run's home, cache and runtime folders (and the working directory). */
  readonly dir: string
  readonly env?: Record<string, string>
  readonly cwd?: string
  /** The host's timeout (default 60 s). */
  readonly timeoutMs?: number
  /** The command words before the arguments (default `node <bundle> hook`). */
  readonly command?: ReadonlyArray<string>
  /**
   * The shell the host runs the command through, as the words before the command line
   * (`["sh", "-c"]` as Claude Code does, `["bash", "-lc"]` as Codex does); default: none.
   */
  readonly shell?: ReadonlyArray<string>
  /** Called with the hook's pid once it has started. */
  readonly onStart?: (pid: number) => void
}

/**
 * A registration in `dir` of one backend that never answers a PreToolUse call (its own
 * timeout: 60 s) under `failurePolicy`: the scripted backend with `behaviour` (`hang`
 * outlives the end of its stdin, `ignore-sigterm` also ignores SIGTERM), logging to the
 * returned `log`.
 */
export const hungRegistration = (
  dir: string,
  failurePolicy: string,
  behaviour: "hang" | "ignore-sigterm" = "hang"
): { readonly registration: string; readonly log: string } => {
  const log = path.join(dir, "backend.log")
  const file = writeFile(
    dir,
    "registration.json",
    registration({
      id: "com.example.hung",
      transport: scriptedStdio(behaviour, log),
      subscriptions: [intercept(["tool.before"], { failurePolicy, timeoutMs: 60_000 })]
    })
  )
  return { registration: file, log }
}

/** The isolated environment of a run in `dir`. */
export const hookEnv = (dir: string, extra: Record<string, string> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [key, value] of Object.entries(process.env)) {
    if (
      value !== undefined && !key.startsWith("AHP_") && key !== "CLAUDE_PROJECT_DIR" && key !== "XDG_RUNTIME_DIR" &&
      key !== "XDG_STATE_HOME"
    ) {
      env[key] = value
    }
  }
  for (const sub of ["home", "cache", "run", "state"]) {
    fs.mkdirSync(path.join(dir, sub), { recursive: true, mode: 0o700 })
  }
  return {
    ...env,
    HOME: path.join(dir, "home"),
    AHP_CACHE_DIR: path.join(dir, "cache"),
    XDG_RUNTIME_DIR: path.join(dir, "run"),
    XDG_STATE_HOME: path.join(dir, "state"),
    NO_COLOR: "1",
    ...extra
  }
}

/**
 * Trusts project registrations for the runs in `dir` (in its private state folder), as
 * `ahp trust FILE` does for a user: each file with its current text.
 */
export const trustIn = (dir: string, ...files: ReadonlyArray<string>): void => {
  const store = Trust.trustFile({ XDG_STATE_HOME: path.join(dir, "state") }, path.join(dir, "home"))
  const trusted: Record<string, string> = { ...Trust.read(store) }
  for (const file of files) trusted[Trust.realPath(file)] = Trust.digest(fs.readFileSync(file, "utf8"))
  const problem = Trust.write(store, trusted)
  if (problem !== undefined) throw new Error(problem)
}

/** A registration whose one stdio backend (the scripted one) answers `effects` to `events`. */
export const effectsBackend = (
  log: string,
  effects: ReadonlyArray<unknown>,
  events: ReadonlyArray<string>,
  extra = {}
) =>
  registration({
    id: "com.example.policy",
    transport: scriptedStdio(`effects=${JSON.stringify(effects)}`, log),
    subscriptions: [intercept(events, extra)]
  })

/** Runs `node <bundle> hook args…` with `payload` on stdin, as a host runs a command hook. */
export const runHook = (
  args: ReadonlyArray<string>,
  payload: string | Uint8Array,
  options: HookOptions
): Effect.Effect<HookRun> =>
  Effect.async<HookRun>((resume) => {
    const started = Date.now()
    const words = [process.execPath, ...(options.command ?? hookCommand), ...args]
    const [file, ...rest] = options.shell === undefined
      ? words
      : [...options.shell, words.map((w) => `'${w.replaceAll("'", `'\\''`)}'`).join(" ")]
    const child = spawn(file!, rest, {
      cwd: options.cwd ?? options.dir,
      env: hookEnv(options.dir, options.env),
      stdio: ["pipe", "pipe", "pipe"]
    })
    if (child.pid !== undefined) options.onStart?.(child.pid)
    let stdout = ""
    let stderr = ""
    let killed = false
    let answeredMs: number | undefined
    let exitedMs: number | undefined
    child.stdout.once("data", () => (answeredMs = Date.now() - started))
    child.on("exit", () => (exitedMs = Date.now() - started))
    const timer = setTimeout(() => {
      killed = true
      child.kill("SIGKILL")
    }, options.timeoutMs ?? 60_000)
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    child.stdin.on("error", () => {})
    child.stdin.end(payload)
    child.on("close", (code) => {
      clearTimeout(timer)
      resume(Effect.succeed({ code, stdout, stderr, elapsedMs: Date.now() - started, answeredMs, exitedMs, killed }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/**
 * Calls `ahp hook args…` inside this process with `payload` on its stdin, in the isolated
 * environment of `options.dir`; the call starts now (its deadline counts from here), or
 * claims to have started at `options.startedAt` (milliseconds since the epoch). There is no
 * host's timeout to kill it: a call that never ends fails the test by its timeout.
 */
export const callHook = (
  args: ReadonlyArray<string>,
  payload: string | Uint8Array,
  options: Omit<HookOptions, "timeoutMs" | "command"> & { readonly startedAt?: number; readonly uid?: number }
): Effect.Effect<HookRun> =>
  Effect.async<HookRun>((resume) => {
    const started = Date.now()
    let stdout = ""
    let stderr = ""
    let ended = false
    const end = (code: number) => {
      if (ended) return
      ended = true
      resume(Effect.succeed({ code, stdout, stderr, elapsedMs: Date.now() - started, killed: false }))
    }
    const env = hookEnv(options.dir, options.env)
    const stdin = new PassThrough()
    stdin.end(payload)
    void Command.main(args, [process.execPath, ...hookCommand], () => import("@effect-ahp/hook/Cold"), {
      stdin: () => stdin,
      stdout: collect((text) => (stdout += text)),
      stderr: collect((text) => (stderr += text)),
      env,
      cwd: options.cwd ?? options.dir,
      home: env.HOME!,
      uid: options.uid,
      startedAt: options.startedAt ?? started,
      exit: end
    }).then(end, (error: unknown) => {
      stderr += `${String(error)}\n`
      end(1)
    })
  })

/** The one JSON object a hook printed (`undefined` for empty stdout). */
export const answerOf = (run: HookRun): any => {
  if (run.stdout === "") return undefined
  const lines = run.stdout.split("\n")
  if (lines.length !== 2 || lines[1] !== "") throw new Error(`expected one JSON line on stdout: ${JSON.stringify(run)}`)
  return JSON.parse(lines[0]!)
}

/** The pids a scripted backend logged as started. */
export const startedPids = (log: string): Array<number> =>
  logEntries(log).filter((e) => e.event === "start").map((e) => e.pid as number)

/** Whether every process a scripted backend logged has ended. */
export const noneAlive = (log: string): boolean => startedPids(log).every((pid) => !isAlive(pid))

/** A Claude Code `PreToolUse` payload for a `Bash` call of `rm -rf /`. */
export const rmRfPayload = JSON.stringify({
  session_id: "s",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "rm -rf /" },
  tool_use_id: "toolu_1"
})
