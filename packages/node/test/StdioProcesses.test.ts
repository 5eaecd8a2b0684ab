/**
 * The stdio transport against hostile processes: process groups with grandchildren that
 * ignore SIGTERM, exit statuses, stderr tails and redaction, the relative-path and
 * environment rules, start-up, and what `delivered` means. Every test that spawns checks
 * with `ps` that nothing carrying its log path is left.
 */
import { StdioTransport } from "@effect-ahp/node"
import type { Json, Registration } from "@effect-ahp/protocol"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { scaled } from "../../../test/support/load.js"
import { processesWith } from "../../../test/support/processes.mjs"
import {
  hostile,
  hostileScript,
  isAlive,
  notification,
  okResponse,
  readLog,
  reasonOf,
  request,
  startedPids,
  stdio,
  tempFile,
  waitForLog,
  waitUntil,
  withDeadline
} from "./utils.js"

/** Per test: these spawn several processes each, on a machine that may be loaded. */
const timeout = 30_000

const detailOf = <A, R>(self: Effect.Effect<A, { readonly detail?: string; readonly _tag: string }, R>) =>
  Effect.map(Effect.flip(self), (e) => e.detail ?? e._tag)

/** A scope the test closes with `close`, which then checks with `ps` that no process carrying `marker` is left. */
const closable = (marker: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))
    const close = Effect.gen(function*() {
      yield* Scope.close(scope, Exit.void).pipe(withDeadline(10_000), Effect.orDie)
      assert.deepStrictEqual(processesWith(marker), [], "no process of this test is left")
    })
    return { scope, close }
  })

/** Connects `transport` (given a fresh log file) in a `closable` scope marked by the log's path. */
const open = (
  transport: (log: string) => Registration.StdioTransport,
  options: StdioTransport.Options = {},
  connection: StdioTransport.Connection = {}
) =>
  Effect.gen(function*() {
    const log = yield* tempFile("hostile.log")
    const { close, scope } = yield* closable(log)
    const endpoint = yield* StdioTransport.connect(transport(log), { killGrace: "300 millis", ...options }, connection)
      .pipe(Scope.extend(scope))
    return { endpoint, log, close }
  })

const grandchildren = (log: string) =>
  Effect.map(readLog(log), (entries) => entries.filter((e) => e.event === "grandchild").map((e) => e.pid as number))

const messages = (log: string) =>
  Effect.map(
    readLog(log),
    (entries) => entries.filter((e) => e.event === "message").map((e) => e.message as Json.JsonObject)
  )

describe("stdio process groups", () => {
  it.scopedLive(
    "persistent: a deadline stops the child's grandchild that ignores SIGTERM; the call does not wait",
    () =>
      Effect.gen(function*() {
        const { close, endpoint, log } = yield* open(
          (log) => hostile("persistent", "--grandchild", "quiet", "--answer", "none", "--log", log),
          { killGrace: "2500 millis", startupTimeout: "0 millis" }
        )
        yield* endpoint.start!
        const { pid } = yield* waitForLog(log, (e) => e.event === "grandchild")
        const started = Date.now()
        assert.strictEqual(yield* reasonOf(endpoint.request(request(1)).pipe(withDeadline(200))), "Deadline")
        assert.isBelow(Date.now() - started, 200 + 1200, "the deadline does not wait for the kill grace")
        yield* waitUntil("the grandchild to be stopped", () => !isAlive(pid))
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive(
    "persistent: closing stops the grandchild too, after the child itself exited on its own",
    () =>
      Effect.gen(function*() {
        const { close, endpoint, log } = yield* open((log) =>
          hostile("persistent", "--grandchild", "hold", "--log", log)
        )
        assert.deepStrictEqual(yield* endpoint.request(request(1)), okResponse(1))
        assert.strictEqual((yield* grandchildren(log)).length, 1)
        yield* close
        assert.isTrue(
          (yield* readLog(log)).some((e) => e.event === "eof"),
          "the child itself exited at the end of its stdin"
        )
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive(
    "per_event: every exchange stops its grandchild; none leaks, one per event",
    () =>
      Effect.gen(function*() {
        const { close, endpoint, log } = yield* open((log) =>
          hostile("per_event", "--grandchild", "quiet", "--log", log)
        )
        for (const id of [1, 2, 3, 4]) assert.deepStrictEqual(yield* endpoint.request(request(id)), okResponse(id))
        yield* endpoint.notify(notification())
        const pids = yield* grandchildren(log)
        assert.strictEqual(pids.length, 5)
        yield* waitUntil("every grandchild to be stopped", () => pids.every((pid) => !isAlive(pid)))
        assert.deepStrictEqual(processesWith(log), [], "nothing left before the endpoint closes")
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive(
    "a grandchild holding stdout holds up neither an answer nor the failure of a child that exited",
    () =>
      Effect.gen(function*() {
        const answering = yield* open((log) => hostile("per_event", "--grandchild", "hold", "--log", log))
        assert.deepStrictEqual(
          yield* answering.endpoint.request(request(1)).pipe(withDeadline(scaled(5000))),
          okResponse(1)
        )
        yield* answering.close
        for (const lifecycle of ["per_event", "persistent"] as const) {
          const exiting = yield* open((log) =>
            hostile(lifecycle, "--grandchild", "hold", "--stderr-exit", "bye", "--log", log)
          )
          assert.strictEqual(
            yield* reasonOf(exiting.endpoint.request(request(1)).pipe(withDeadline(scaled(3000)))),
            "exited",
            lifecycle
          )
          yield* exiting.close
        }
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )
})

/**
 * A backend that, on its first message, starts a grandchild running `body` with `options`
 * (its `stdio`: the backend's stdout or stderr inherited; `detached`: in a process group of
 * its own) and exits with `code` as soon as the grandchild reports over IPC that it runs, so
 * the grandchild's start-up is no part of what happens after the exit.
 */
const exitsLeavingGrandchild = (body: string, options: string, code: number) => `
import { spawn } from "node:child_process"
process.stdin.once("data", () => {
  const grandchild = spawn(process.execPath, ["-e", ${
  JSON.stringify(`process.send("running", () => { process.disconnect(); ${body} })`)
}], ${options})
  grandchild.once("message", () => process.exit(${code}))
})
`

/** Writes `source` to a file and connects to it as a backend (per-event unless `lifecycle` says otherwise). */
const openScript = (
  name: string,
  source: string,
  options: StdioTransport.Options = {},
  lifecycle: "per_event" | "persistent" = "per_event"
) =>
  Effect.gen(function*() {
    const file = yield* tempFile(name)
    fs.writeFileSync(file, source)
    return yield* open(() => ({ type: "stdio", command: process.execPath, args: [file], lifecycle }), options)
  })

/**
 * The backend leaves its answer to a grandchild holding its stdout, which writes a
 * notification every 50 ms, twelve times, then the answer to request 1: about 650 ms after
 * the exit, more than two quiet periods, with each line well inside one.
 */
const answerAfterExit = exitsLeavingGrandchild(
  `let n = 0
  const timer = setInterval(() => {
    if (n++ < 12) return process.stdout.write('{"jsonrpc":"2.0","method":"note"}\\n')
    clearInterval(timer)
    process.stdout.write('{"jsonrpc":"2.0","id":1,"result":{"protocolVersion":"draft","effects":[]}}\\n')
  }, 50)`,
  `{ stdio: ["ignore", "inherit", "ignore", "ipc"] }`,
  0
)

describe("stdio output after the child's exit", () => {
  it.scopedLive(
    "stdout is read on while it keeps bringing lines (a grandchild's answer 650 ms after the exit still counts)",
    () =>
      Effect.gen(function*() {
        const { close, endpoint } = yield* openScript("answer-after-exit.mjs", answerAfterExit)
        assert.deepStrictEqual(yield* endpoint.request(request(1)).pipe(withDeadline(5000)), okResponse(1))
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )
})

/**
 * The backend exits without answering while a grandchild still holds its stderr and writes
 * there 150 ms after the exit: what the exit report names as the backend's stderr is what
 * was written before stderr reached its end, not what had been read at the exit.
 */
const lastWordsAfterExit = exitsLeavingGrandchild(
  `setTimeout(() => process.stderr.write("fatal: last words after the exit"), 150)`,
  `{ stdio: ["ignore", "ignore", "inherit", "ipc"] }`,
  3
)

/**
 * The same from a grandchild that left the backend's process group, 50 ms after the exit:
 * the harness stops a persistent backend that ended while it reports the end, and the
 * group is empty at once, so stopping it must not close stderr before stderr has ended.
 */
const lastWordsFromOutsideTheGroup = exitsLeavingGrandchild(
  `setTimeout(() => process.stderr.write("fatal: last words after the exit"), 50)`,
  `{ stdio: ["ignore", "ignore", "inherit", "ipc"], detached: true }`,
  3
)

/** Asks the backend of `source` once: the failure must be the report of its exit with the grandchild's last words. */
const reportsLastWords = (...script: Parameters<typeof openScript>) =>
  Effect.gen(function*() {
    const { close, endpoint } = yield* openScript(...script)
    const error = yield* Effect.flip(endpoint.request(request(1)))
    assert.strictEqual(error.reason, "exited")
    assert.match(error.detail, /ended before answering \(exit code 3; stderr: "fatal: last words after the exit"\)/)
    yield* close
  }).pipe(Effect.provide(NodeContext.layer))

describe("stdio exit status", () => {
  it.scopedLive(
    "per_event: the exit report carries what the backend's stderr brought until it ended",
    () => reportsLastWords("last-words.mjs", lastWordsAfterExit, { exitGrace: "5 seconds" }),
    timeout
  )

  it.scopedLive(
    "persistent: the exit report carries what stderr brought until it ended, though the child is stopped meanwhile",
    () => reportsLastWords("last-words-outside.mjs", lastWordsFromOutsideTheGroup, {}, "persistent"),
    timeout
  )

  it.scopedLive("per_event: an answer followed by a nonzero exit is an exited failure", () =>
    Effect.gen(function*() {
      const { close, endpoint } = yield* open((log) =>
        hostile("per_event", "--answer", "allow", "--exit", "1", "--log", log)
      )
      const error = yield* Effect.flip(endpoint.request(request(1)))
      assert.strictEqual(error.reason, "exited")
      assert.match(error.detail, /answered, but ended with exit code 1/)
      yield* close
    }).pipe(Effect.provide(NodeContext.layer)), timeout)

  it.scopedLive(
    "per_event: an answer without an exit within the grace is an exited failure",
    () =>
      Effect.gen(function*() {
        const { close, endpoint, log } = yield* open((log) => stdio("per_event", "ok", "--linger", "--log", log), {
          exitGrace: "300 millis"
        })
        const error = yield* Effect.flip(endpoint.request(request(1)))
        assert.strictEqual(error.reason, "exited")
        assert.match(error.detail, /answered, but did not exit within 300 ms/)
        const [pid] = yield* startedPids(log)
        yield* waitUntil("the lingering child to be stopped", () => !isAlive(pid!))
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive("per_event: a notification is delivered on exit 0 only", () =>
    Effect.gen(function*() {
      const ok = yield* open((log) => hostile("per_event", "--log", log))
      yield* ok.endpoint.notify(notification({ n: 1 }))
      assert.deepStrictEqual((yield* messages(ok.log)).map((m) => m.params), [{ n: 1 }])
      yield* ok.close
      const failing = yield* open((log) => hostile("per_event", "--eof-exit", "4", "--log", log))
      const error = yield* Effect.flip(failing.endpoint.notify(notification()))
      assert.strictEqual(error.reason, "exited")
      assert.match(error.detail, /ended with exit code 4/)
      yield* failing.close
    }).pipe(Effect.provide(NodeContext.layer)), timeout)
})

describe("stdio diagnostics", () => {
  const secret = "s3cr3t-token-value"

  it.scopedLive(
    "a failure carries the stderr tail with configured secrets redacted (both lifecycles)",
    () =>
      Effect.gen(function*() {
        for (const lifecycle of ["persistent", "per_event"] as const) {
          const { close, endpoint } = yield* open(
            (log) => ({
              ...hostile(
                lifecycle,
                "--stderr-exit",
                `fatal: cannot load schema (token ${secret}, ref ref-value-9)`,
                "--log",
                log
              ),
              "org.effect-ahp.env": { set: { POLICY_TOKEN: secret } }
            }),
            {},
            { secrets: () => ["ref-value-9"] }
          )
          const detail = yield* detailOf(endpoint.request(request(1)))
          assert.include(detail, "fatal: cannot load schema", lifecycle)
          assert.include(detail, "exit code 1", lifecycle)
          assert.notInclude(detail, secret, lifecycle)
          assert.notInclude(detail, "ref-value-9", lifecycle)
          assert.include(detail, "(token [redacted], ref [redacted])", lifecycle)
          const diagnostics = yield* endpoint.diagnostics!
          assert.include(diagnostics, "fatal: cannot load schema")
          assert.notInclude(diagnostics, secret)
          yield* close
        }
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive("the tail is bounded, and a secret cut by its start is still redacted", () =>
    Effect.gen(function*() {
      // The last 2048 bytes start 6 bytes into the secret.
      const text = `${secret}${"x".repeat(2048 - (secret.length - 6) - 7)}the end`
      const { close, endpoint } = yield* open((log) => ({
        ...hostile("per_event", "--stderr-exit", text, "--log", log),
        "org.effect-ahp.env": { set: { POLICY_TOKEN: secret } }
      }))
      const detail = yield* detailOf(endpoint.request(request(1)))
      assert.match(detail, /stderr \(last 2048 of \d+ bytes\): "\[redacted\]x+the end"/)
      assert.notInclude(detail, secret.slice(-6))
      yield* close
    }).pipe(Effect.provide(NodeContext.layer)), timeout)

  it.scopedLive("a command that cannot be started is named", () =>
    Effect.gen(function*() {
      const missing = yield* StdioTransport.connect({
        type: "stdio",
        command: "/nonexistent/ahp-backend",
        lifecycle: "persistent"
      })
      assert.strictEqual(
        yield* detailOf(missing.request(request(1))),
        "could not start /nonexistent/ahp-backend: no such file (ENOENT)"
      )
      const nul = yield* StdioTransport.connect({ type: "stdio", command: "/bin/ahp\u0000x", lifecycle: "persistent" })
      assert.strictEqual(yield* detailOf(nul.request(request(1))), "could not start /bin/ahp\\u0000x: refused by Node")
      const bare = yield* StdioTransport.connect({
        type: "stdio",
        command: "ahp-no-such-backend",
        lifecycle: "per_event"
      })
      assert.strictEqual(
        yield* detailOf(bare.request(request(1))),
        "could not start ahp-no-such-backend: not found in the child's PATH (ENOENT)"
      )
    }), timeout)
})

describe("stdio paths and environment", () => {
  /** A folder with an executable copy of the hostile backend at `bin/backend.mjs` and a folder `work`. */
  const folder = Effect.map(tempFile("registration.json"), (file) => {
    const dir = path.dirname(file)
    fs.mkdirSync(path.join(dir, "bin"))
    fs.mkdirSync(path.join(dir, "work"))
    const copy = path.join(dir, "bin", "backend.mjs")
    fs.writeFileSync(copy, `#!${process.execPath}\n${fs.readFileSync(hostileScript, "utf8").replace(/^#!.*\n/, "")}`)
    fs.chmodSync(copy, 0o755)
    return dir
  })

  const envOf = (log: string) =>
    Effect.map(waitForLog(log, (e) => e.event === "env"), (e) =>
      e as unknown as {
        readonly env: Record<string, string>
        readonly cwd: string
      })

  it.scopedLive(
    "relative paths resolve against the registration's directory; args against the working directory",
    () =>
      Effect.gen(function*() {
        const dir = yield* folder
        const { close, scope } = yield* closable(dir)
        const endpoint = yield* StdioTransport.connect({
          type: "stdio",
          command: "./bin/backend.mjs",
          args: ["--introspect", "--log", "run.log"],
          lifecycle: "persistent"
        }, { directory: dir }).pipe(Scope.extend(scope))
        assert.deepStrictEqual(yield* endpoint.request(request(1)), okResponse(1))
        assert.strictEqual((yield* envOf(path.join(dir, "run.log"))).cwd, dir)
        const inWork = yield* StdioTransport.connect({
          type: "stdio",
          command: "../bin/backend.mjs",
          args: ["--introspect", "--log", "run.log"],
          cwd: "work",
          lifecycle: "per_event"
        }, { directory: dir }).pipe(Scope.extend(scope))
        assert.deepStrictEqual(yield* inWork.request(request(2)), okResponse(2))
        assert.strictEqual((yield* envOf(path.join(dir, "work", "run.log"))).cwd, path.join(dir, "work"))
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive(
    "without the registration's directory, a relative command or cwd is refused, named",
    () =>
      Effect.gen(function*() {
        const command = yield* StdioTransport.connect({
          type: "stdio",
          command: "./bin/backend.mjs",
          lifecycle: "persistent"
        })
        const refused = yield* Effect.flip(command.request(request(1)))
        assert.strictEqual(refused.reason, "spawn")
        assert.match(
          refused.detail,
          /the command \.\/bin\/backend\.mjs is a relative path, but the registration's directory/
        )
        const cwd = yield* StdioTransport.connect({ ...hostile("per_event"), cwd: "work" })
        assert.match(yield* detailOf(cwd.request(request(1))), /the working directory work is a relative path/)
        assert.strictEqual(yield* reasonOf(cwd.notify(notification())), "spawn")
      }),
    timeout
  )

  it.scopedLive(
    "the child gets PATH, HOME, the options' env and the registration's extension — nothing else",
    () =>
      Effect.gen(function*() {
        process.env.AHP_STDIO_TEST_INHERITED = "inherited-value"
        process.env.AHP_STDIO_TEST_HIDDEN = "hidden-value"
        const { close, endpoint, log } = yield* open((log) => ({
          ...hostile("persistent", "--introspect", "--log", log),
          "org.effect-ahp.env": {
            inherit: ["AHP_STDIO_TEST_INHERITED", "AHP_STDIO_TEST_UNSET"],
            set: { LOG_LEVEL: "debug" }
          }
        }), { env: { FROM_OPTIONS: "1" } })
        yield* endpoint.start!
        const { env } = yield* envOf(log)
        const { PATH: _path, HOME: _home, ...rest } = env
        assert.deepStrictEqual(rest, {
          FROM_OPTIONS: "1",
          AHP_STDIO_TEST_INHERITED: "inherited-value",
          LOG_LEVEL: "debug"
        })
        assert.strictEqual(env.PATH, process.env.PATH)
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )
})

describe("stdio persistent start-up", () => {
  it.scopedLive(
    "start runs the child ahead of the first call, which then gets its whole deadline",
    () =>
      Effect.gen(function*() {
        const { close, endpoint, log } = yield* open((log) => hostile("persistent", "--startup", "2000", "--log", log))
        yield* endpoint.start!
        yield* waitForLog(log, (e) => e.event === "ready")
        assert.deepStrictEqual(yield* endpoint.request(request(1)).pipe(withDeadline(1000)), okResponse(1))
        assert.deepStrictEqual(yield* endpoint.request(request(2)).pipe(withDeadline(1000)), okResponse(2))
        assert.strictEqual((yield* startedPids(log)).length, 1)
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive(
    "a deadline while the child starts up keeps it: the next request is answered by the same child",
    () =>
      Effect.gen(function*() {
        const { close, endpoint, log } = yield* open((log) => hostile("persistent", "--startup", "1000", "--log", log))
        yield* endpoint.start!
        assert.strictEqual(yield* reasonOf(endpoint.request(request(1)).pipe(withDeadline(200))), "Deadline")
        assert.strictEqual(yield* reasonOf(endpoint.request(request(2)).pipe(withDeadline(200))), "Deadline")
        assert.deepStrictEqual(yield* endpoint.request(request(3)).pipe(withDeadline(10_000)), okResponse(3))
        assert.strictEqual((yield* startedPids(log)).length, 1, "never retired and restarted")
        // Every request was written at once; the answers to 1 and 2 came first and were dropped by their ids.
        assert.deepStrictEqual((yield* messages(log)).map((m) => m.id), [1, 2, 3])
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive(
    "a child that never answers is retired at the first deadline after its start-up window",
    () =>
      Effect.gen(function*() {
        const { close, endpoint, log } = yield* open(
          (log) => hostile("persistent", "--answer", "none", "--log", log),
          { startupTimeout: "600 millis" }
        )
        yield* endpoint.start!
        assert.strictEqual(yield* reasonOf(endpoint.request(request(1)).pipe(withDeadline(200))), "Deadline")
        // the child may not have started within that first deadline on a loaded machine
        const { pid: first } = yield* waitForLog(log, (e) => e.event === "start")
        assert.strictEqual(yield* reasonOf(endpoint.request(request(2)).pipe(withDeadline(1500))), "Deadline")
        yield* waitUntil("the stuck child to be stopped", () => !isAlive(first))
        assert.deepStrictEqual(
          (yield* messages(log)).map((m) => m.id),
          [1, 2],
          "the kept child was sent the next request"
        )
        assert.strictEqual(yield* reasonOf(endpoint.request(request(3)).pipe(withDeadline(200))), "Deadline")
        yield* waitUntil("a fresh child to start", () => Effect.runSync(startedPids(log)).length >= 2)
        assert.notStrictEqual((yield* startedPids(log))[1], first, "a fresh child took the next request")
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive(
    "a child up but stuck on its first request is kept and answers the next request at once",
    () =>
      Effect.gen(function*() {
        // The soak's "wrong decisions": the kept child held every later request back until it
        // answered the abandoned one, so they timed out unsent and the backend's answers shifted.
        const { close, endpoint, log } = yield* open((log) =>
          stdio("persistent", "ok", "--sequence", "hang,deny=second", "--log", log)
        )
        yield* endpoint.start!
        assert.strictEqual(yield* reasonOf(endpoint.request(request("evt_1")).pipe(withDeadline(200))), "Deadline")
        const second = yield* endpoint.request(request("evt_2")).pipe(withDeadline(5000))
        assert.deepStrictEqual(second, {
          jsonrpc: "2.0",
          id: "evt_2",
          result: { protocolVersion: "draft", effects: [{ type: "deny", reason: "second" }] }
        })
        assert.deepStrictEqual(yield* endpoint.request(request("evt_3")).pipe(withDeadline(5000)), okResponse("evt_3"))
        assert.strictEqual((yield* startedPids(log)).length, 1)
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive(
    "a request with an abandoned request's id waits for that late answer: it is never taken for its own",
    () =>
      Effect.gen(function*() {
        // Two subscriptions of one backend in one call send the same id.
        const { close, endpoint, log } = yield* open((log) =>
          stdio("persistent", "ok", "--sequence", "late=1500,hang", "--log", log)
        )
        yield* endpoint.start!
        assert.strictEqual(yield* reasonOf(endpoint.request(request("evt_same")).pipe(withDeadline(200))), "Deadline")
        assert.strictEqual(yield* reasonOf(endpoint.request(request("evt_same")).pipe(withDeadline(4000))), "Deadline")
        assert.strictEqual((yield* messages(log)).length, 2, "written once the late answer had come")
        assert.strictEqual((yield* startedPids(log)).length, 1)
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive("a start that fails fails again, named, on the call that needs it", () =>
    Effect.gen(function*() {
      const endpoint = yield* StdioTransport.connect({
        type: "stdio",
        command: "/nonexistent/ahp-slow",
        lifecycle: "persistent"
      })
      assert.strictEqual(yield* reasonOf(endpoint.start!), "spawn")
      assert.match(yield* detailOf(endpoint.request(request(1))), /could not start \/nonexistent\/ahp-slow/)
    }), timeout)
})

describe("stdio observation delivery", () => {
  it.scopedLive(
    "persistent: a notification its child cannot take (stdin closed) is not delivered",
    () =>
      Effect.gen(function*() {
        const { close, endpoint, log } = yield* open((log) => hostile("persistent", "--close-stdin", "--log", log))
        yield* endpoint.start!
        yield* waitForLog(log, (e) => e.event === "stdin-closed")
        const error = yield* Effect.flip(endpoint.notify(notification()).pipe(withDeadline(3000)))
        assert.strictEqual(error._tag === "TransportError" ? error.reason : error._tag, "exited")
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive(
    "persistent: closing gives a slow observer the observation timeout to read and exit",
    () =>
      Effect.gen(function*() {
        const { close, endpoint, log } = yield* open(
          (log) => hostile("persistent", "--startup", "1200", "--log", log),
          {},
          { observationTimeoutMs: 5000 }
        )
        yield* endpoint.notify(notification({ n: 1 }))
        yield* close
        assert.deepStrictEqual((yield* messages(log)).map((m) => m.params), [{ n: 1 }])
        assert.isTrue(
          (yield* readLog(log)).some((e) => e.event === "eof"),
          "it read to the end of its stdin and exited"
        )
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive(
    "one-shot: a notification is delivered once the child has read it and exited with status 0",
    () =>
      Effect.gen(function*() {
        const { close, endpoint, log } = yield* open(
          (log) => hostile("persistent", "--startup", "800", "--log", log),
          { oneShot: true }
        )
        yield* endpoint.start!
        const started = Date.now()
        yield* endpoint.notify(notification({ n: 1 })).pipe(withDeadline(10_000))
        assert.isAtLeast(Date.now() - started, 500, "it waited for the slow child")
        assert.deepStrictEqual((yield* messages(log)).map((m) => m.params), [{ n: 1 }])
        yield* close
        const failing = yield* open((log) => hostile("persistent", "--eof-exit", "3", "--log", log), { oneShot: true })
        const error = yield* Effect.flip(failing.endpoint.notify(notification()))
        assert.strictEqual(error.reason, "exited")
        assert.match(error.detail, /ended with exit code 3 after the end of its stdin/)
        yield* failing.close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )

  it.scopedLive(
    "one-shot: a notification its child did not read in time is not delivered, and the child is stopped",
    () =>
      Effect.gen(function*() {
        const { close, endpoint, log } = yield* open(
          (log) => hostile("persistent", "--startup", "3000", "--log", log),
          { oneShot: true }
        )
        assert.strictEqual(yield* reasonOf(endpoint.notify(notification()).pipe(withDeadline(500))), "Deadline")
        // On a loaded machine the child may be stopped before it has logged its start, so the
        // wait is on the process table, not on a pid from the log.
        yield* waitUntil("the slow child to be stopped", () => processesWith(log).length === 0)
        assert.deepStrictEqual(yield* messages(log), [], "it never read the observation")
        yield* close
      }).pipe(Effect.provide(NodeContext.layer)),
    timeout
  )
})
