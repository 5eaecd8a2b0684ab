/**
 * `ahp hook …`: the command hook's entry, written for start-up time. It loads no
 * command-line library, no Effect and no transport until it knows it needs them:
 *
 * 1. reads the payload from stdin (at most `maxPayloadBytes`, strict UTF-8; Codex's legacy
 *    `notify` program gets it as its last argument) and the event name in it — also when
 *    the payload is too large, not UTF-8 or cannot be parsed (`internal/payloadEvent.ts`),
 *    so that a fail-closed policy for that event denies it;
 * 2. answers "no opinion" at once for a host event with no AHP counterpart;
 * 3. finds the registration (see `Locate`) and, when the cache knows it compiles and routes
 *    nothing for this event, answers "no opinion" without loading the harness; a project
 *    registration that is present but not used (untrusted, changed, not the user's alone)
 *    is reported on every answer as a `systemMessage` for the user;
 * 4. otherwise forwards the call to a running `ahp bridge` (see `Forward`), and when there
 *    is none, dispatches it itself (`Cold`, loaded only now, by the caller's `LoadCold`).
 *
 * The answer is due before the host's timeout for the event (`--timeout`, else the host's
 * default), and so is the exit: both hosts wait for the hook process to exit, not for its
 * answer, and discard an answer whose process they had to kill. The call's deadline is that
 * timeout less a `margin`, counted from the start of the call: when the host started the
 * process, shell included, where that can be read (`internal/invocation.ts`), else when Node
 * started. Every exchange with a backend ends by then. Once the answer is written (and the
 * audit record, when asked for), the hook exits without waiting for its backend processes:
 * the guardian of the stdio transport stops what is left of them after the hook's exit (see
 * `Cold`). A watchdog answers on its own, and exits at once, if the answer is still missing
 * half a margin after the deadline (a denial when the call fails closed: as the cached
 * compiled registration says, else as the registration's text shows,
 * `Policy.failClosedIntentOfText`).
 * The exit code is always 0 for a hook call (2 for a usage error). What the hook reads and
 * writes (stdin, stdout, stderr, the environment, the working and home directories, the
 * start time, the exit) is its `Process`: this process, or a stand-in that runs the same
 * code inside another program.
 *
 * @since 0.1.0
 */
import * as HostEvents from "@effect-ahp/hosts/HostEvents"
import * as os from "node:os"
import { performance } from "node:perf_hooks"
import type { Readable, Writable } from "node:stream"
import * as Args from "./Args.js"
import * as Cache from "./Cache.js"
import type * as Cold from "./Cold.js"
import * as Forward from "./Forward.js"
import * as Invocation from "./internal/invocation.js"
import * as PayloadEvent from "./internal/payloadEvent.js"
import * as Locate from "./Locate.js"

/**
 * The largest payload read from stdin (bytes).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxPayloadBytes = 16 * 1024 * 1024

/**
 * The time kept between the call's deadline and the host's timeout, for writing the answer
 * and exiting, and for what the hook cannot see of the host's own start of the process where
 * it cannot read it (see `internal/invocation.ts`): a fifth of the timeout, at least 1 s (a
 * third of a timeout under 3 s) and at most 5 s.
 *
 * @since 0.1.0
 * @category constants
 */
export const margin = (timeoutMs: number): number =>
  Math.min(5_000, Math.max(timeoutMs / 5, Math.min(1_000, timeoutMs / 3)))

/**
 * How long a backend process is given to exit once its stdin has ended (after the hook's
 * exit), before it is sent SIGTERM: half the margin, at least 100 ms and at most 2 s.
 *
 * @since 0.1.0
 * @category constants
 */
export const exitGrace = (timeoutMs: number): number => Math.min(2_000, Math.max(100, margin(timeoutMs) / 2))

/**
 * What a hook call reads from and writes to: its process (`nodeProcess`), or a stand-in.
 *
 * @since 0.1.0
 * @category models
 */
export interface Process {
  /** The payload's stream, opened only when the payload is not an argument. */
  readonly stdin: () => Readable
  readonly stdout: Writable
  readonly stderr: Writable
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  readonly home: string
  /** The user whose registrations may be used (default: this process's; a stand-in may differ). */
  readonly uid?: number | undefined
  /** When the process started (milliseconds since the epoch). */
  readonly startedAt: number
  /**
   * When the host started the call, given the host's timeout (milliseconds since the
   * epoch): the deadline counts from then. Default: `startedAt`.
   */
  readonly callStartedAt?: ((timeoutMs: number) => number) | undefined
  /** Ends the call with an exit code (the watchdog's way out once it has answered). */
  readonly exit: (code: number) => void
}

/**
 * This process: its stdin, stdout, stderr, environment and directories; the call started
 * when the process did.
 *
 * @since 0.1.0
 * @category constructors
 */
export const nodeProcess = (): Process => ({
  stdin: () => process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd(),
  home: os.homedir(),
  startedAt: performance.timeOrigin,
  callStartedAt: (timeoutMs) => Invocation.started(performance.timeOrigin, timeoutMs),
  exit: (code) => process.exit(code)
})

type Payload = Cold.Request["payload"]

/** The payload, and the text the event name is looked for in when the payload cannot be parsed. */
interface Read {
  readonly payload: Payload
  readonly head: string
}

/** The head of an unusable payload that is scanned for its event name (bytes). */
const headLength = 64 * 1024

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * Reads the payload until stdin ends, it exceeds `max` bytes, or the call's deadline for the
 * event its head names so far (`deadlineFor`) passes: a stdin left open is answered in time,
 * as the payload so far.
 */
const readStdin = (stdin: Readable, max: number, deadlineFor: (head: string) => number): Promise<Read> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    let headBytes = Buffer.alloc(0)
    let deadline: number | undefined
    let timer: ReturnType<typeof setTimeout> | undefined
    const head = () => headBytes.toString("utf8")
    const done = (read: Read) => {
      clearTimeout(timer)
      resolve(read)
    }
    const unreadable = (problem: string) => {
      stdin.destroy()
      done({ payload: { _tag: "Unreadable", problem }, head: head() })
    }
    const arm = () => {
      const next = deadlineFor(head())
      if (next === deadline) return
      deadline = next
      clearTimeout(timer)
      timer = setTimeout(
        () => unreadable("the hook payload did not end (stdin stayed open) before the call's deadline"),
        Math.max(0, next - Date.now())
      )
    }
    arm()
    stdin.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (headBytes.length < headLength) {
        headBytes = Buffer.concat([headBytes, chunk.subarray(0, headLength - headBytes.length)])
        arm()
      }
      if (size > max) unreadable(`the hook payload exceeds ${max} bytes`)
      else chunks.push(chunk)
    })
    stdin.on("end", () => {
      try {
        const text = utf8.decode(Buffer.concat(chunks))
        done({ payload: { _tag: "Text", text }, head: text })
      } catch {
        done({ payload: { _tag: "Unreadable", problem: "the hook payload is not valid UTF-8" }, head: head() })
      }
    })
    stdin.on(
      "error",
      () =>
        done({ payload: { _tag: "Unreadable", problem: "the hook payload could not be read from stdin" }, head: "" })
    )
  })

const fields = (read: Read): { readonly name: string | undefined; readonly cwd: string | undefined } => {
  if (read.payload._tag === "Text") {
    try {
      const value: unknown = JSON.parse(read.payload.text)
      const cwd = typeof value === "object" && value !== null ? (value as Record<string, unknown>).cwd : undefined
      return { name: HostEvents.nameOf(value), cwd: typeof cwd === "string" ? cwd : undefined }
    } catch {
      // not JSON: reported by the full path, for the event its head names
    }
  }
  return { name: PayloadEvent.nameOfText(read.head), cwd: undefined }
}

/**
 * Adds a message for the user to a host's JSON answer (`systemMessage`, after any message
 * already there); an answer that is not a JSON object keeps its stdout and gets the message
 * on stderr.
 *
 * @since 0.1.0
 * @category answers
 */
export const withNotice = (
  stdout: string,
  stderr: string,
  notice: string
): { readonly stdout: string; readonly stderr: string } => {
  const message = `ahp: ${notice}`
  let value: unknown = {}
  try {
    if (stdout.trim() !== "") value = JSON.parse(stdout)
  } catch {
    value = undefined
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    return { stdout, stderr: `${stderr}${message}\n` }
  }
  const record = value as Record<string, unknown>
  const existing = record.systemMessage
  const systemMessage = typeof existing === "string" && existing !== "" ? `${existing}\n${message}` : message
  return { stdout: `${JSON.stringify({ ...record, systemMessage })}\n`, stderr }
}

const emit = (io: Process, stdout: string, stderr: string): Promise<void> =>
  new Promise((resolve) => {
    if (stderr !== "") io.stderr.write(stderr)
    if (stdout === "") resolve()
    else io.stdout.write(stdout, () => resolve())
  })

/**
 * Loads the cold path (`Cold.ts`: the harness, the hosts' mapping, the transports), which a
 * call needs when the cache does not settle it and no bridge answers.
 *
 * @since 0.1.0
 * @category models
 */
export type LoadCold = () => Promise<typeof Cold>

/**
 * Answers one hook call; resolves once the answer is written.
 *
 * @since 0.1.0
 * @category running
 */
export const hook = async (args: Args.Run, loadCold: LoadCold, io: Process = nodeProcess()): Promise<void> => {
  const env = io.env
  const eventNamed = (name: string | undefined) => name === undefined ? undefined : HostEvents.find(args.host, name)
  const timeoutOf = (event: HostEvents.HostEvent | undefined) =>
    args.timeoutSeconds !== undefined ? args.timeoutSeconds * 1000 : event?.timeoutMs ?? 600_000
  const deadlineOf = (timeoutMs: number) =>
    (io.callStartedAt?.(timeoutMs) ?? io.startedAt) + timeoutMs - margin(timeoutMs)
  const read: Read = args.payload !== undefined
    ? { payload: { _tag: "Text", text: args.payload }, head: args.payload }
    : await readStdin(
      io.stdin(),
      maxPayloadBytes,
      (head) => deadlineOf(timeoutOf(eventNamed(PayloadEvent.nameOfText(head))))
    )
  const payload = read.payload
  const { cwd, name } = fields(read)
  const event = eventNamed(name)
  const timeoutMs = timeoutOf(event)
  const deadline = deadlineOf(timeoutMs)
  if (event !== undefined && event.type === undefined) return emit(io, HostEvents.silence[args.host], "")
  const registration = Locate.registration({
    flag: args.registration,
    env,
    cwd: io.cwd,
    payloadCwd: cwd,
    home: io.home,
    uid: io.uid
  })
  const notice = registration._tag === "Found" ? registration.notice : undefined
  const say = (stdout: string, stderr: string): Promise<void> => {
    if (notice === undefined) return emit(io, stdout, stderr)
    const noticed = withNotice(stdout, stderr, notice)
    return emit(io, noticed.stdout, noticed.stderr)
  }
  const cacheDir = Locate.cacheDir(env, io.home)
  const cacheKey = registration._tag === "Found" ? Cache.key(args.host, registration.text) : undefined
  const summary = cacheKey === undefined ? undefined : Cache.read(cacheDir, cacheKey)
  if (summary !== undefined && event !== undefined && summary[event.name] === undefined) {
    return say(HostEvents.silence[args.host], "")
  }
  let written: Promise<void> | undefined
  const answer = (stdout: string, stderr: string) => (written ??= say(stdout, stderr))
  let running: Cold.Running | undefined
  // Answers alone and exits at once: the backends are the guardian's (see `Cold`).
  const watchdog = setTimeout(() => {
    void Promise.all([import("@effect-ahp/hosts/Hosts"), import("./Trouble.js"), import("./Policy.js")]).then((
      [Hosts, Trouble, Policy]
    ) => {
      // fail-closed as compiled, when the cache has the registration; else as its text shows
      const failClosed = args.failClosed || (event !== undefined && (summary !== undefined
        ? summary[event.name]?.failClosed === true
        : registration._tag === "Found" && event.type !== undefined &&
          Policy.failClosedIntentOfText(registration.text, event.type)))
      const fallback = Trouble.answer(Hosts.of(args.host), event, "no answer within the host's timeout", failClosed)
      return answer(fallback.stdout, fallback.stderr)
    }).then(() => {
      void running?.stop()
      io.exit(0)
    })
  }, Math.max(0, deadline + margin(timeoutMs) / 2 - Date.now()))
  try {
    if (args.bridge && args.audit === undefined && registration._tag === "Found" && payload._tag === "Text") {
      const forwarded = await Forward.forward(Locate.socketPath(registration.file, env), args.host, {
        payload: payload.text,
        registrationSha256: Locate.sha256(registration.text),
        deadline,
        failClosed: args.failClosed,
        verbose: args.verbose,
        source: args.source
      })
      if (forwarded !== undefined) return await answer(forwarded.stdout, forwarded.stderr)
    }
    const Run = await loadCold()
    running = Run.run({
      host: args.host,
      exitGraceMs: exitGrace(timeoutMs),
      payload,
      event,
      registration,
      deadline,
      failClosed: args.failClosed,
      verbose: args.verbose,
      source: args.source,
      audit: { file: args.audit, content: args.auditContent },
      onAnswer: (result) => {
        const trace = result.trace.map((line) => `ahp: ${line}\n`).join("")
        void answer(result.answer.stdout, result.answer.stderr + trace)
        if (result.summary !== undefined && cacheKey !== undefined) Cache.write(cacheDir, cacheKey, result.summary)
      }
    })
    // the backends are not waited for: they are stopped in the background, or by the guardian
    await running.settled
    await written
  } finally {
    clearTimeout(watchdog)
  }
}

/**
 * Runs `ahp hook` with the arguments after `hook`; `command` holds the words that run `ahp
 * hook` (for `install`, which edits the settings of this process's user and directory),
 * `loadCold` loads the cold path. Resolves with the exit code.
 *
 * @since 0.1.0
 * @category running
 */
export const main = async (
  argv: ReadonlyArray<string>,
  command: ReadonlyArray<string>,
  loadCold: LoadCold,
  io: Process = nodeProcess()
): Promise<number> => {
  const args = Args.parse(argv, io.env)
  switch (args._tag) {
    case "Help":
      await emit(io, Args.usage, "")
      return 0
    case "Invalid":
      await emit(io, "", `ahp hook: ${args.message}\n\n${Args.usage}`)
      return 2
    case "Install":
    case "Uninstall": {
      const Install = await import("./Install.js")
      return Install.main(args, command, io)
    }
    case "Doctor": {
      const Install = await import("./Install.js")
      return Install.doctor(args, io)
    }
    case "Run":
      await hook(args, loadCold, io)
      return 0
  }
}
