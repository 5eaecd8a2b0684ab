/**
 * Helpers for the end-to-end suites: the scripted backend's command lines and logs,
 * registrations, a Hooks layer over the real Node transports built in a scope the test
 * closes itself, pid and fiber leak checks.
 */
import { Hooks } from "@effect-ahp/harness"
import type { RouteFailure, Transport } from "@effect-ahp/harness"
import { Credentials, HttpTransport, NodeTransports } from "@effect-ahp/node"
import { Json } from "@effect-ahp/protocol"
import { Context, Data, Duration, Effect, Exit, Layer, Option, Schedule, Scope, Supervisor } from "effect"
import type { Fiber } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import type { InProcessServer } from "./inProcessHttp.mjs"
import { scaled } from "./load.js"
import * as ScriptedBackend from "./scripted-backend.mjs"

/** The scripted, misbehaving backend. */
export const script = fileURLToPath(new URL("./scripted-backend.mjs", import.meta.url))

/** A fresh temporary directory under `os.tmpdir()`, removed with the scope. */
export const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "ahp-e2e-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** One line of the scripted backend's `--log`. */
export interface LogEntry {
  readonly event: string
  readonly pid: number
  readonly message?: Json.JsonObject
  readonly body?: string
  readonly path?: string
  readonly authorization?: ReadonlyArray<string>
  readonly [key: string]: unknown
}

/** The log's complete lines (a line still being written, without its newline, is left out). */
export const readLog = (file: string): Effect.Effect<Array<LogEntry>> =>
  Effect.sync(() =>
    fs.existsSync(file)
      ? fs.readFileSync(file, "utf8").split("\n").slice(0, -1).filter((l) => l !== "").map((l) =>
        JSON.parse(l) as LogEntry
      )
      : []
  )

class NotYet extends Data.TaggedError("NotYet") {}

/**
 * How the waits below poll: after 10 ms, then at growing intervals of at most 50 ms, for at
 * most 20 s scaled by the load factor (`load.ts`), read when the wait is made. A long wait (a
 * kill grace to sit out) then reads its subject a few times a second instead of a hundred.
 */
const polling = () =>
  Schedule.exponential("10 millis", 1.5).pipe(
    Schedule.union(Schedule.spaced("50 millis")),
    Schedule.upTo(Duration.millis(scaled(20_000)))
  )

/**
 * Polls until `check` holds (see `polling`: at most ~20 s, scaled); dies otherwise, with what
 * `detail` tells of the state it gave up in (which processes were left, say).
 */
export const waitUntil = (what: string, check: () => boolean, detail?: () => string): Effect.Effect<void> =>
  Effect.suspend(() => check() ? Effect.void : Effect.fail(new NotYet())).pipe(
    Effect.retry({ schedule: polling() }),
    Effect.orDieWith(() => new Error(`gave up waiting for ${what}${detail === undefined ? "" : `: ${detail()}`}`))
  )

/** Polls until `check` succeeds with `true` (see `polling`: at most ~20 s, scaled); dies otherwise. */
export const waitUntilEffect = (what: string, check: Effect.Effect<boolean>): Effect.Effect<void> =>
  Effect.flatMap(check, (ok) => ok ? Effect.void : Effect.fail(new NotYet())).pipe(
    Effect.retry({ schedule: polling() }),
    Effect.orDieWith(() => new Error(`gave up waiting for ${what}`))
  )

/** Waits until the log has an entry matching `predicate`. */
export const waitForLog = (file: string, predicate: (entry: LogEntry) => boolean): Effect.Effect<LogEntry> =>
  readLog(file).pipe(
    Effect.flatMap((entries) =>
      Option.match(Option.fromNullable(entries.find(predicate)), {
        onNone: () => Effect.fail(new NotYet()),
        onSome: Effect.succeed
      })
    ),
    Effect.retry({ schedule: polling() }),
    Effect.orDieWith(() => new Error(`gave up waiting for a log entry in ${file}`))
  )

/** The pids of every process that logged a start line, in order. */
export const startedPids = (file: string): Effect.Effect<Array<number>> =>
  Effect.map(readLog(file), (entries) => entries.filter((e) => e.event === "start").map((e) => e.pid))

/**
 * Whether a process with this pid exists (`process.kill(pid, 0)` does not throw ESRCH). Throws
 * when `pid` is not a process id (a pid read from a log before the process wrote it), so that a
 * wait on it fails at once instead of passing or waiting in vain.
 */
export const isAlive = (pid: number): boolean => {
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new Error(`isAlive: ${String(pid)} is not a process id`)
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== "ESRCH"
  }
}

/** The pids among `pids` that still exist. */
export const alive = (pids: ReadonlyArray<number>): Array<number> => pids.filter(isAlive)

/** The event id inside a logged JSON-RPC message, if any. */
export const eventIdOf = (entry: LogEntry): string | undefined => {
  const params = entry.message?.params
  const event = params !== undefined && Json.isObject(params) ? params.event : undefined
  return event !== undefined && Json.isObject(event) && typeof event.id === "string" ? event.id : undefined
}

/** The JSON-RPC messages a stdio scripted backend received, with the receiving pid. */
export const stdioMessages = (file: string) =>
  Effect.map(readLog(file), (entries) =>
    entries.filter((e) => e.event === "message").map((e) => ({
      pid: e.pid,
      method: String(e.message?.method),
      eventId: String(eventIdOf(e))
    })))

/** The POSTs an HTTP scripted backend received (redirect-target hits included), body parsed. */
export const httpMessages = (file: string) =>
  Effect.map(readLog(file), (entries) =>
    entries.filter((e) => e.event === "request").map((e) => {
      let parsed: any = undefined
      try {
        parsed = JSON.parse(e.body ?? "")
      } catch {
        // not JSON
      }
      return {
        path: e.path,
        body: e.body ?? "",
        authorization: e.authorization ?? [],
        method: String(parsed?.method),
        eventId: String(parsed?.params?.event?.id)
      }
    }))

/** The stdio backend with hostile process behaviour (see the script's header). */
export const hostileScript = fileURLToPath(new URL("./hostile-stdio.mjs", import.meta.url))

/** A stdio transport running the hostile backend. */
export const hostileStdio = (lifecycle: "persistent" | "per_event", ...args: Array<string>) => ({
  type: "stdio",
  command: process.execPath,
  args: [hostileScript, ...args],
  lifecycle
})

/** A stdio transport running the scripted backend. */
export const scriptedStdio = (lifecycle: "persistent" | "per_event", ...args: Array<string>) => ({
  type: "stdio",
  command: process.execPath,
  args: [script, "stdio", ...args],
  lifecycle
})

/**
 * A test HTTP server started in this process for the lifetime of the scope: its origin. The
 * test servers' behaviours never block (a late answer is a timer), so the test's event loop
 * serves them, with no thread or process to start (a worker thread's start-up cost about
 * 90 ms of CPU); closing the scope drops their open connections.
 */
export const serverInProcess = (start: () => Promise<InProcessServer>): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(Effect.promise(start), (server) => Effect.promise(() => server.close())).pipe(
    Effect.map((server) => `http://127.0.0.1:${server.port}`)
  )

/** The scripted backend's HTTP mode in this process (`serverInProcess`): `args` as on its command line after `http <port-file>`. */
export const scriptedHttpServer = (args: ReadonlyArray<string>): Effect.Effect<string, never, Scope.Scope> =>
  serverInProcess(() => ScriptedBackend.startHttp(args))

/** Starts the scripted backend in HTTP mode for the lifetime of the scope (`scriptedHttpServer`), logging to `<dir>/<name>.log`. */
export const scriptedHttp = (dir: string, name: string, ...args: Array<string>) =>
  Effect.gen(function*() {
    const log = path.join(dir, `${name}.log`)
    const origin = yield* scriptedHttpServer([...args, "--log", log])
    return { url: `${origin}/hooks`, origin, log }
  })

/**
 * Route failures as plain records (chai cannot render Effect errors in a diff), keeping
 * what the assertions compare.
 */
export const failures = (errors: ReadonlyArray<RouteFailure.RouteFailure>) =>
  errors.map((e) => ({
    backend: e.backend,
    mode: e.mode,
    phase: e.phase,
    code: e.code,
    policy: e.policy,
    syntheticDenial: e.syntheticDenial,
    httpStatus: e.httpStatus,
    detail: e.detail
  }))

/** A tool.before input with a fixed id. */
export const toolBefore = (id: string, command = "ls") => ({
  id,
  session: { id: "sess_e2e" },
  tool: { name: "Bash", kind: "shell", input: { command }, origin: "native" as const },
  call: { id: `call_${id}` },
  path: "native"
})

/** An intercept subscription at tool.before. */
export const intercept = (failurePolicy: "fail-open" | "fail-closed", timeoutMs: number, extra: object = {}) => ({
  mode: "intercept",
  events: ["tool.before"],
  timeoutMs,
  failurePolicy,
  content: { default: "body" },
  ...extra
})

/** An observe subscription. */
export const observe = (events: ReadonlyArray<string>, extra: object = {}) => ({
  mode: "observe",
  events,
  content: { default: "body" },
  ...extra
})

/** One backend of a registration document. */
export interface BackendEntry {
  readonly id: string
  readonly transport: unknown
  readonly authentication?: unknown
  readonly subscriptions: ReadonlyArray<unknown>
}

/** A registration document. */
export const registration = (hooks: ReadonlyArray<BackendEntry>) => ({ protocolVersion: "draft", hooks })

/** A credential store the test can change between dispatches. */
export const credentialStore = (initial: Record<string, string> = {}) => {
  const values = new Map(Object.entries(initial))
  return {
    set: (name: string, value: string) => Effect.sync(() => void values.set(name, value)),
    remove: (name: string) => Effect.sync(() => void values.delete(name)),
    layer: Credentials.layer((reference) => Effect.sync(() => values.get(reference.name)))
  }
}

/** The real Node transports (processes, undici) with the given resolver. */
export const nodeTransports = (
  options: NodeTransports.Options,
  credentials: Layer.Layer<Credentials.CredentialResolver> = Credentials.layerTest({})
): Layer.Layer<Transport.Transports> =>
  NodeTransports.layer(options).pipe(
    Layer.provide(Layer.merge(HttpTransport.layerDispatcher, credentials))
  )

/**
 * Builds the Hooks service over `transports` in a new scope; `close` releases it (the
 * scope is also closed with the enclosing one, if the test fails first).
 */
export const openHooks = (
  reg: unknown,
  transports: Layer.Layer<Transport.Transports>,
  options?: Hooks.ServingOptions
) =>
  Effect.gen(function*() {
    const scope = yield* Effect.acquireRelease(Scope.make(), (scope, exit) => Scope.close(scope, exit))
    const context = yield* Layer.buildWithScope(Hooks.layerUnknown(reg, options).pipe(Layer.provide(transports)), scope)
      .pipe(
        Effect.orDie
      )
    return { hooks: Context.get(context, Hooks.Hooks), close: Scope.close(scope, Exit.void) }
  })

/**
 * Runs `self` under a tracking supervisor: every fiber forked inside it is recorded, and
 * `live` lists those still running once it has returned.
 */
export const tracked = <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const supervisor = yield* Supervisor.track
    const started = Date.now()
    const result = yield* Effect.supervised(self, supervisor)
    const elapsed = Date.now() - started
    const fibers: Array<Fiber.RuntimeFiber<any, any>> = yield* supervisor.value
    return { result, elapsed, live: fibers.map((f) => f.id().id), fibers }
  })

/** The ids of the fibers among `fibers` that have not ended. */
export const running = (fibers: ReadonlyArray<Fiber.RuntimeFiber<any, any>>) =>
  Effect.map(
    Effect.filter(fibers, (f) => Effect.map(f.poll, Option.isNone)),
    (left) => left.map((f) => f.id().id)
  )
