/**
 * The command hook's entry, run in-process through a stand-in `Process` (a payload stream,
 * collected output, a home and cache in a temporary folder) with the real cold path: the
 * margin and exit grace against the host's timeout, the call's deadline counted from when
 * the host started the call, the answers given without loading the cold path (an event
 * with no AHP counterpart, the cache saying nothing routes the event), a changed
 * registration missing the cache, the payload's byte bound and strict UTF-8 with a
 * fail-closed policy still denying, and the notice added to an answer.
 */
import { HostEvents } from "@effect-ahp/hosts"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Readable, Writable } from "node:stream"
import * as Args from "../src/Args.js"
import * as Cache from "../src/Cache.js"
import * as Cold from "../src/Cold.js"
import * as Command from "../src/Command.js"
import { file, folder, tempDir } from "./TestFiles.js"

/** A stream that keeps what is written to it. */
const collector = () => {
  let text = ""
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk)
      done()
    }
  })
  return { stream, text: () => text }
}

/**
 * A stand-in process in a private folder: the payload on stdin, the output collected, the
 * cache, runtime and state folders of its own; `callStart` is when the host started the
 * call, whatever its timeout (each timeout asked for is kept in `asked`).
 */
const standIn = (dir: string, payload: string | Uint8Array) => {
  const stdout = collector()
  const stderr = collector()
  const asked: Array<number> = []
  const exits: Array<number> = []
  const callStart = Date.now() - 250
  const home = folder(path.join(dir, "home"), 0o700)
  const env = {
    AHP_CACHE_DIR: path.join(dir, "cache"),
    XDG_RUNTIME_DIR: folder(path.join(dir, "run"), 0o700),
    XDG_STATE_HOME: folder(path.join(dir, "state"), 0o700)
  }
  const io: Command.Process = {
    stdin: () => Readable.from([Buffer.from(payload)]),
    stdout: stdout.stream,
    stderr: stderr.stream,
    env,
    cwd: dir,
    home,
    startedAt: Date.now(),
    callStartedAt: (timeoutMs) => {
      asked.push(timeoutMs)
      return callStart
    },
    exit: (code) => void exits.push(code)
  }
  return { io, stdout: stdout.text, stderr: stderr.text, asked, exits, callStart, env }
}

/** The real cold path, each request it is given kept in `requests`. */
const coldPath = () => {
  const requests: Array<Cold.Request> = []
  const load: Command.LoadCold = () =>
    Promise.resolve({
      ...Cold,
      run: (request: Cold.Request) => {
        requests.push(request)
        return Cold.run(request)
      }
    })
  return { load, requests }
}

const runArgs = (argv: ReadonlyArray<string>): Args.Run => {
  const parsed = Args.parse(argv, {})
  assert.strictEqual(parsed._tag, "Run")
  return parsed as Args.Run
}

const bash = (command: string) =>
  JSON.stringify({
    session_id: "s",
    cwd: "/work",
    hook_event_name: "PreToolUse",
    permission_mode: "default",
    tool_name: "Bash",
    tool_input: { command, description: "a command" },
    tool_use_id: "toolu_1"
  })

/** A registration whose one HTTP backend (nothing listens there) intercepts `tool.before`. */
const registrationText = (failurePolicy: "fail-open" | "fail-closed") =>
  JSON.stringify({
    protocolVersion: "draft",
    hooks: [{
      id: "com.example.guard",
      transport: { type: "http", url: "http://127.0.0.1:9/hooks" },
      subscriptions: [{
        mode: "intercept",
        events: ["tool.before"],
        timeoutMs: 5_000,
        failurePolicy,
        content: { default: "body" }
      }]
    }]
  })

const hook = (args: Args.Run, load: Command.LoadCold, io: Command.Process) =>
  Effect.promise(() => Command.hook(args, load, io))

describe("Command's budget arithmetic", () => {
  it("margin: a third of a timeout under 3 s, then 1 s, then a fifth, at most 5 s", () => {
    const cases: ReadonlyArray<readonly [number, number]> = [
      [300, 100],
      [1_000, 1_000 / 3],
      [1_500, 500],
      [3_000, 1_000],
      [5_000, 1_000],
      [10_000, 2_000],
      [25_000, 5_000],
      [30_000, 5_000],
      [600_000, 5_000]
    ]
    for (const [timeout, margin] of cases) assert.strictEqual(Command.margin(timeout), margin, String(timeout))
  })

  it("the deadline keeps at least two thirds of any timeout, and the margin at least 1 s of one over 3 s", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.double({ min: 1, max: 3_600_000, noNaN: true }), (timeout) => {
        const margin = Command.margin(timeout)
        assert.isAtMost(margin, timeout / 3 + 1e-9)
        assert.isAtMost(margin, 5_000)
        assert.isAtLeast(margin, Math.min(1_000, timeout / 3) - 1e-9)
        const grace = Command.exitGrace(timeout)
        assert.isAtLeast(grace, 100)
        assert.isAtMost(grace, Math.max(100, Math.min(2_000, margin / 2)))
      })
    )
  })

  it("exitGrace: half the margin, at least 100 ms and at most 2 s", () => {
    assert.strictEqual(Command.exitGrace(300), 100)
    assert.strictEqual(Command.exitGrace(1_500), 250)
    assert.strictEqual(Command.exitGrace(10_000), 1_000)
    assert.strictEqual(Command.exitGrace(600_000), 2_000)
  })
})

describe("Command.hook", () => {
  it.scoped("the call's deadline is the host's timeout less the margin, from when the host started the call", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [HostEvents.HostName, ReadonlyArray<string>, string, number]> = [
        ["claude-code", ["--timeout", "12"], "PreToolUse", 12_000],
        ["claude-code", [], "PreToolUse", 600_000],
        ["claude-code", [], "UserPromptSubmit", 30_000],
        ["codex", [], "SessionEnd", 1_000]
      ]
      for (const [host, flags, event, timeout] of cases) {
        const dir = folder(yield* tempDir, 0o700)
        const run = standIn(dir, JSON.stringify({ session_id: "s", cwd: dir, hook_event_name: event, prompt: "p" }))
        const cold = coldPath()
        yield* hook(runArgs([host, "--no-bridge", ...flags]), cold.load, run.io)
        assert.strictEqual(cold.requests.length, 1, `${host} ${event}`)
        const request = cold.requests[0]!
        assert.strictEqual(request.deadline, run.callStart + timeout - Command.margin(timeout), `${host} ${event}`)
        assert.strictEqual(request.exitGraceMs, Command.exitGrace(timeout))
        assert.include(run.asked, timeout, "the call's start is asked for with the host's timeout")
        assert.strictEqual(request.event?.name, event)
        assert.strictEqual(request.registration._tag, "Missing")
      }
    }))

  it.scoped("an event with no AHP counterpart gets the host's silence at once, without the cold path", () =>
    Effect.gen(function*() {
      const unmapped = Object.values(HostEvents.claudeCode).filter((event) => event.type === undefined)
      assert.isNotEmpty(unmapped)
      for (const event of unmapped) {
        const dir = folder(yield* tempDir, 0o700)
        const run = standIn(dir, JSON.stringify({ session_id: "s", cwd: dir, hook_event_name: event.name }))
        const cold = coldPath()
        yield* hook(runArgs(["claude-code", "--fail-closed"]), cold.load, run.io)
        assert.strictEqual(run.stdout(), HostEvents.silence["claude-code"], event.name)
        assert.deepStrictEqual(cold.requests, [], "no registration was needed")
      }
    }))

  it.scoped("the cache: an event the summary does not route is answered without the cold path; a changed text misses", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const registration = file(dir, "registration.json", registrationText("fail-open"))
      const args = runArgs(["claude-code", "--no-bridge", "--registration", registration])
      const first = standIn(dir, bash("ls"))
      const cold = coldPath()
      yield* hook(args, cold.load, first.io)
      assert.strictEqual(cold.requests.length, 1, "nothing cached yet: compiled by the cold path")
      const cacheDir = first.env.AHP_CACHE_DIR
      const key = Cache.key("claude-code", registrationText("fail-open"))
      assert.deepStrictEqual(Cache.read(cacheDir, key), { PreToolUse: { routes: 1, failClosed: false } })
      const stop = standIn(dir, JSON.stringify({ session_id: "s", cwd: dir, hook_event_name: "Stop" }))
      yield* hook(args, cold.load, stop.io)
      assert.strictEqual(stop.stdout(), HostEvents.silence["claude-code"])
      assert.strictEqual(cold.requests.length, 1, "the cache settled Stop: the cold path was not loaded")
      fs.writeFileSync(registration, registrationText("fail-open").replace("tool.before", "turn.finish.before"))
      const changed = standIn(dir, JSON.stringify({ session_id: "s", cwd: dir, hook_event_name: "Stop" }))
      yield* hook(args, cold.load, changed.io)
      assert.strictEqual(cold.requests.length, 2, "the changed registration is compiled again")
    }))

  it.scoped("a payload over the bound or not UTF-8 is denied when the event its head names fails closed", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const registration = file(dir, "registration.json", registrationText("fail-closed"))
      const args = runArgs(["claude-code", "--no-bridge", "--registration", registration])
      const head = bash("ls").slice(0, -1)
      const oversized = `${head},"pad":"${"x".repeat(Command.maxPayloadBytes)}"}`
      const notUtf8 = Buffer.concat([Buffer.from(`${head},"bad":"`), Buffer.from([0xff]), Buffer.from("\"}")])
      const cases = [
        [oversized, `the hook payload exceeds ${Command.maxPayloadBytes} bytes`],
        [notUtf8, "the hook payload is not valid UTF-8"]
      ] as const
      for (const [payload, problem] of cases) {
        const run = standIn(dir, payload)
        yield* hook(args, coldPath().load, run.io)
        const answer = JSON.parse(run.stdout())
        assert.strictEqual(answer.hookSpecificOutput?.permissionDecision, "deny", problem)
        assert.strictEqual(answer.systemMessage, `ahp: ${problem} (denied: the policy for PreToolUse fails closed)`)
        assert.strictEqual(run.stderr(), `ahp: ${problem}\n`)
      }
    }))

  it.scoped("main: help on stdout (0), an argument error with the usage on stderr (2)", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const help = standIn(dir, "")
      assert.strictEqual(
        yield* Effect.promise(() => Command.main(["--help"], ["ahp", "hook"], coldPath().load, help.io)),
        0
      )
      assert.strictEqual(help.stdout(), Args.usage)
      const wrong = standIn(dir, "")
      assert.strictEqual(
        yield* Effect.promise(() => Command.main(["cursor"], ["ahp", "hook"], coldPath().load, wrong.io)),
        2
      )
      assert.strictEqual(wrong.stderr(), `ahp hook: expected claude-code or codex, got "cursor"\n\n${Args.usage}`)
    }))
})

describe("Command.withNotice", () => {
  it("adds the notice as the answer's systemMessage, after one already there; elsewhere on stderr", () => {
    assert.deepStrictEqual(Command.withNotice("{}\n", "", "untrusted"), {
      stdout: "{\"systemMessage\":\"ahp: untrusted\"}\n",
      stderr: ""
    })
    assert.deepStrictEqual(Command.withNotice("", "", "untrusted"), {
      stdout: "{\"systemMessage\":\"ahp: untrusted\"}\n",
      stderr: ""
    }, "an empty answer becomes an object")
    assert.deepStrictEqual(Command.withNotice("{\"systemMessage\":\"first\",\"a\":1}", "e\n", "untrusted"), {
      stdout: "{\"systemMessage\":\"first\\nahp: untrusted\",\"a\":1}\n",
      stderr: "e\n"
    })
    for (const stdout of ["[1]", "not json", "\"text\""]) {
      assert.deepStrictEqual(
        Command.withNotice(stdout, "", "untrusted"),
        { stdout, stderr: "ahp: untrusted\n" },
        stdout
      )
    }
  })
})
