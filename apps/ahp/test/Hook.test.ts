/**
 * `ahp hook claude-code|codex` driven as the hosts drive a command hook (payload on stdin,
 * isolated environment, the host's timeout), with real backend processes (the repository's
 * scripted backend; over HTTP, started once, for the shared payloads): every shared payload
 * is mapped and answered, each effect is rendered
 * per the host's contract, hung and malformed cases answer in time, and no process is left
 * behind. The hung backends and each host's deny run the bundle in a process of its own, as
 * the host does; the other cases call the same entry in process (`callHook`).
 */
import * as Policy from "@effect-ahp/hook/Policy"
import { HostEvents, Hosts } from "@effect-ahp/hosts"
// `layer` here, not test/support/layer.ts: under that one this file's payload tests hang (cause
// not found yet). Its testers leak into the later files of its worker (see layer.ts); no test of
// the ahp and suites projects, which share the forks pool, uses the test clock.
// eslint-disable-next-line no-restricted-imports
import { assert, describe, it, layer } from "@effect/vitest"
import { Context, Effect, Layer } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { scaled } from "../../../test/support/load.js"
import { processesWith } from "../../../test/support/processes.mjs"
import {
  answerOf,
  callHook,
  effectsBackend,
  hungRegistration,
  noneAlive,
  runHook,
  startedPids,
  trustIn
} from "./hookSupport.js"
import {
  eventually,
  intercept,
  logEntries,
  observe,
  registration,
  root,
  scriptedHttp,
  scriptedStdio,
  tempDir,
  writeFile
} from "./support.js"

const shared = path.join(root, "..", "shared", "hosts")
const payloadsOf = (host: HostEvents.HostName) => {
  const dir = path.join(shared, host, "payloads")
  return fs.existsSync(dir) ?
    fs.readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((file) => ({
      file,
      text: fs.readFileSync(path.join(dir, file), "utf8")
    })) :
    []
}

const silence = HostEvents.silence

const bash = (host: HostEvents.HostName, command: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    session_id: "sess-1",
    ...(host === "codex" ? { turn_id: "turn-1" } : {}),
    cwd: "/work/repo",
    hook_event_name: "PreToolUse",
    permission_mode: "default",
    tool_name: "Bash",
    tool_input: { command, description: "a command" },
    tool_use_id: "toolu_1",
    ...extra
  })

const text = (
  body: string
) => [{
  id: "m1",
  role: "user",
  parts: [{ id: "p1", kind: "text", mediaType: "text/plain", selection: "body", text: body }]
}]

/**
 * The HTTP interceptor and observer that serve every shared payload (the scripted backend,
 * started once); each payload's calls go to a path of its own.
 */
class PayloadBackends extends Context.Tag("test/PayloadBackends")<PayloadBackends, {
  readonly dir: string
  readonly intercept: { readonly url: string; readonly log: string }
  readonly observe: { readonly url: string; readonly log: string }
}>() {}

const PayloadBackendsLive = Layer.scoped(
  PayloadBackends,
  Effect.gen(function*() {
    const dir = yield* tempDir
    return {
      dir,
      intercept: yield* scriptedHttp(dir, "intercept", "ok"),
      observe: yield* scriptedHttp(dir, "observe", "ok")
    }
  })
)

/** The events in the requests an HTTP scripted backend logged for `path` (each payload has its own). */
const requestedAt = (log: string, path: string): Array<any> =>
  logEntries(log).filter((e) => e.event === "request" && e.path === path).map((e) => JSON.parse(e.body).params?.event)

describe.skipIf(!fs.existsSync(shared))("every shared payload, through the command hook", () => {
  layer(PayloadBackendsLive, { excludeTestServices: true })((it) => {
    for (const host of HostEvents.hostNames) {
      for (const { file, text: payload } of payloadsOf(host)) {
        const notify = file.startsWith("notify-")
        const event = HostEvents.find(host, notify ? "agent-turn-complete" : file.slice(0, file.indexOf("-")))
        it.effect(`${host}/${file}`, () =>
          Effect.gen(function*() {
            const backends = yield* PayloadBackends
            const dir = backends.dir
            const route = `/${host}/${file}`
            const reg = writeFile(
              dir,
              `${host}-${file}`,
              registration(
                {
                  id: "com.example.intercept",
                  transport: { type: "http", url: new URL(route, backends.intercept.url).href },
                  subscriptions: [intercept(["*"])]
                },
                {
                  id: "com.example.observe",
                  transport: { type: "http", url: new URL(route, backends.observe.url).href },
                  subscriptions: [observe(["*"], { includeNative: true })]
                }
              )
            )
            const args = [host, "--registration", reg, "--timeout", "30"]
            const run = notify
              ? yield* callHook([...args, JSON.stringify(JSON.parse(payload))], "", { dir })
              : yield* callHook(args, payload, { dir })
            assert.strictEqual(run.code, 0, run.stderr)
            const intercepted = requestedAt(backends.intercept.log, route)
            const notified = requestedAt(backends.observe.log, route)
            if (event === undefined) {
              assert.match(answerOf(run).systemMessage, /^ahp: unknown hook event/)
              assert.deepStrictEqual([...intercepted, ...notified], [], "no backend is called")
              return
            }
            if (event.type === undefined) {
              assert.strictEqual(run.stdout, silence[host])
              assert.deepStrictEqual([...intercepted, ...notified], [], "no backend is called")
              return
            }
            assert.strictEqual(run.stdout, silence[host], `an empty answer is no opinion: ${run.stderr}`)
            assert.strictEqual(notified.length, 1, run.stderr)
            assert.strictEqual(intercepted.length, Hosts.of(host).capabilities(event) === undefined ? 0 : 1)
            for (const e of [...intercepted, ...notified]) {
              assert.strictEqual(e.type, event.type)
              assert.match(e.id, host === "claude-code" ? /^cc_[0-9a-f]{32}$/ : /^cx_[0-9a-f]{32}$/)
            }
            assert.isFalse(intercepted.some((e) => "native" in e), "native only for the subscription that asked")
            assert.deepStrictEqual(notified[0].native, JSON.parse(payload))
          }))
      }
    }
  })
})

describe("effects rendered per host", () => {
  const cases: ReadonlyArray<{
    readonly name: string
    readonly host: HostEvents.HostName
    readonly payload: string
    readonly events: ReadonlyArray<string>
    readonly effects: ReadonlyArray<unknown>
    readonly expected: unknown
    /** Whether the bundle runs in a process of its own, as the host runs it (else in process). */
    readonly binary?: boolean
  }> = [
    ...HostEvents.hostNames.map((host) => ({
      name: `${host} deny`,
      binary: true,
      host,
      payload: bash(host, "rm -rf /"),
      events: ["tool.before"],
      effects: [{ type: "deny", reason: "destructive" }],
      expected: {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "destructive"
        }
      }
    })),
    {
      name: "claude-code ask with its message as the reason",
      host: "claude-code",
      payload: bash("claude-code", "git push --force"),
      events: ["tool.before"],
      effects: [{ type: "ask" }, { type: "message", text: "a force push rewrites history" }],
      expected: {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "ask",
          permissionDecisionReason: "a force push rewrites history"
        }
      }
    },
    {
      name: "claude-code allow",
      host: "claude-code",
      payload: bash("claude-code", "ls"),
      events: ["tool.before"],
      effects: [{ type: "allow" }],
      expected: { hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } }
    },
    {
      name: "claude-code rewrite: the whole effective input",
      host: "claude-code",
      payload: bash("claude-code", "rm -rf build"),
      events: ["tool.before"],
      effects: [{ type: "modify", target: "input", operation: "merge", value: { command: "rm -r build" } }, {
        type: "allow"
      }],
      expected: {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "allow",
          updatedInput: { command: "rm -r build", description: "a command" }
        }
      }
    },
    {
      name: "claude-code added context and a stop",
      host: "claude-code",
      payload: bash("claude-code", "make"),
      events: ["tool.before"],
      effects: [
        {
          type: "inject",
          target: "context",
          operation: "append",
          deliverAt: "now",
          value: text("freeze until Friday")
        },
        { type: "flow", operation: "stop", reason: "release freeze" }
      ],
      expected: {
        continue: false,
        stopReason: "release freeze",
        hookSpecificOutput: { hookEventName: "PreToolUse", additionalContext: "freeze until Friday" }
      }
    },
    {
      name: "claude-code Stop continues with the instruction",
      host: "claude-code",
      payload: JSON.stringify({ session_id: "s", hook_event_name: "Stop", stop_hook_active: false }),
      events: ["turn.finish.before"],
      effects: [{ type: "flow", operation: "continue", instruction: "run the tests first" }],
      expected: { decision: "block", reason: "run the tests first" }
    },
    {
      name: "claude-code UserPromptSubmit denied",
      host: "claude-code",
      payload: JSON.stringify({ session_id: "s", hook_event_name: "UserPromptSubmit", prompt: "deploy" }),
      events: ["turn.start"],
      effects: [{ type: "deny", reason: "deploy freeze" }],
      expected: { decision: "block", reason: "deploy freeze" }
    },
    {
      name: "codex rewrite: allow with the whole effective input",
      host: "codex",
      payload: bash("codex", "rm -rf build"),
      events: ["tool.before"],
      effects: [{ type: "modify", target: "input", operation: "replace", value: { command: "rm -r build" } }],
      expected: {
        hookSpecificOutput: {
          hookEventName: "PreToolUse",
          permissionDecision: "allow",
          updatedInput: { command: "rm -r build" }
        }
      }
    },
    {
      name: "codex tool output replaced",
      host: "codex",
      payload: JSON.stringify({
        session_id: "s",
        turn_id: "t",
        hook_event_name: "PostToolUse",
        tool_name: "Bash",
        tool_input: { command: "cat .env" },
        tool_response: "TOKEN=secret",
        tool_use_id: "call_1"
      }),
      events: ["tool.after"],
      effects: [{
        type: "modify",
        target: "output",
        operation: "replace",
        value: [{
          id: "o",
          role: "tool",
          parts: [{ id: "p", kind: "text", mediaType: "text/plain", selection: "body", text: "TOKEN=[redacted]" }]
        }]
      }],
      expected: { decision: "block", reason: "TOKEN=[redacted]" }
    },
    {
      name: "codex Stop continues",
      host: "codex",
      payload: JSON.stringify({ session_id: "s", turn_id: "t", hook_event_name: "Stop", stop_hook_active: false }),
      events: ["turn.finish.before"],
      effects: [{ type: "flow", operation: "continue", instruction: "one more pass" }],
      expected: { decision: "block", reason: "one more pass" }
    },
    {
      name: "codex prompt context",
      host: "codex",
      payload: JSON.stringify({ session_id: "s", turn_id: "t", hook_event_name: "UserPromptSubmit", prompt: "hi" }),
      events: ["turn.start"],
      effects: [{ type: "inject", target: "context", operation: "append", deliverAt: "now", value: text("be brief") }],
      expected: { hookSpecificOutput: { hookEventName: "UserPromptSubmit", additionalContext: "be brief" } }
    }
  ]
  for (const c of cases) {
    it.scoped(c.name, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const log = path.join(dir, "backend.log")
        const reg = writeFile(dir, "registration.json", effectsBackend(log, c.effects, c.events))
        const run = yield* (c.binary === true ? runHook : callHook)([c.host, "--registration", reg], c.payload, { dir })
        assert.strictEqual(run.code, 0)
        assert.deepStrictEqual(answerOf(run), c.expected, run.stderr)
        yield* eventually(() => noneAlive(log))
      }))
  }
})

/**
 * A PreToolUse call to a backend that never answers (its own timeout: 60 s) under a host's
 * timeout of 8 s: the hook's deadline is 6.4 s from its process's start, its watchdog 7.2 s.
 */
const hung = (host: HostEvents.HostName, failurePolicy: string) =>
  Effect.gen(function*() {
    const dir = yield* tempDir
    const { log, registration: reg } = hungRegistration(dir, failurePolicy)
    // Killed 4 s (scaled by the load factor) after the host's timeout: on a loaded machine the
    // hook's start (it counts its deadline from there) and its watchdog are seconds late; a
    // hook that waited for the backend's own timeout would still be killed.
    const run = yield* runHook([host, "--registration", reg, "--timeout", "8"], bash(host, "ls"), {
      dir,
      timeoutMs: 8_000 + scaled(4_000)
    })
    return { log, run }
  })

describe("deadlines, failures and bad input", () => {
  it.scoped(
    "a hung backend is settled before the host's timeout, nothing left running: fail-closed denies, fail-open is no opinion (Codex: empty stdout)",
    () =>
      Effect.gen(function*() {
        // side by side: each waits for its deadline. Whether the backend got as far as logging
        // its start depends on the machine's load; the process table tells that none is left.
        const [closed, open] = yield* Effect.all([hung("claude-code", "fail-closed"), hung("codex", "fail-open")], {
          concurrency: 2
        })
        assert.isFalse(closed.run.killed, `answered in ${closed.run.elapsedMs} ms`)
        // the deadline's denial, or the watchdog's (with a message) where the machine was too
        // slow for the deadline's
        assert.deepStrictEqual(answerOf(closed.run).hookSpecificOutput, {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "Required policy backend unavailable"
        })
        yield* eventually(() => noneAlive(closed.log) && processesWith(closed.log).length === 0)
        assert.isFalse(open.run.killed, `answered in ${open.run.elapsedMs} ms`)
        assert.strictEqual(open.run.code, 0)
        assert.strictEqual(open.run.stdout, "")
        yield* eventually(() => noneAlive(open.log) && processesWith(open.log).length === 0)
      })
  )

  it.scoped("malformed and unknown payloads: no opinion with a visible message; a deny under fail-closed", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "backend.log")
      const closed = writeFile(
        dir,
        "closed.json",
        registration({
          id: "com.example.policy",
          transport: scriptedStdio("ok", log),
          subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-closed" })]
        })
      )
      const open = writeFile(
        dir,
        "open.json",
        registration({
          id: "com.example.policy",
          transport: scriptedStdio("ok", log),
          subscriptions: [intercept(["tool.before"])]
        })
      )
      const invalid = JSON.stringify({
        session_id: "s",
        hook_event_name: "PreToolUse",
        tool_name: "Bash",
        tool_input: "ls"
      })
      const notJson = yield* callHook(["claude-code", "--registration", closed], "{ not json", { dir })
      assert.strictEqual(notJson.code, 0)
      assert.match(answerOf(notJson).systemMessage, /^ahp: the hook payload is not JSON/)
      const unknown = yield* callHook(
        ["codex", "--registration", closed],
        JSON.stringify({ hook_event_name: "Nope" }),
        { dir }
      )
      assert.match(answerOf(unknown).systemMessage, /unknown hook event "Nope"/)
      assert.include(unknown.stderr, "ahp: unknown hook event")
      const denied = yield* callHook(["claude-code", "--registration", closed], invalid, { dir })
      const deny = answerOf(denied)
      assert.strictEqual(deny.hookSpecificOutput.permissionDecision, "deny")
      assert.strictEqual(deny.hookSpecificOutput.permissionDecisionReason, "Required policy backend unavailable")
      assert.include(deny.systemMessage, "/tool_input")
      const passed = yield* callHook(["claude-code", "--registration", open], invalid, { dir })
      assert.deepStrictEqual(Object.keys(answerOf(passed)), ["systemMessage"])
      assert.deepStrictEqual(startedPids(log), [], "no backend saw a payload it could not be given")
    }))

  it.scoped("a missing or invalid registration is reported; denied when fail-closed", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const payload = bash("claude-code", "ls")
      const missing = yield* callHook(["claude-code"], payload, { dir })
      assert.match(answerOf(missing).systemMessage, /no AHP registration found/)
      const missingClosed = yield* callHook(["claude-code", "--fail-closed"], payload, { dir })
      assert.strictEqual(answerOf(missingClosed).hookSpecificOutput.permissionDecision, "deny")
      const viaEnv = yield* callHook(["codex"], bash("codex", "ls"), {
        dir,
        env: { AHP_REGISTRATION_FILE: path.join(dir, "absent.json"), AHP_HOOK_FAIL_CLOSED: "1" }
      })
      assert.strictEqual(answerOf(viaEnv).hookSpecificOutput.permissionDecision, "deny")
      assert.include(viaEnv.stderr, "absent.json: no such file")
      const intent = writeFile(dir, "intent.json", {
        protocolVersion: "draft",
        hooks: [{
          id: "com.example.policy",
          transport: { type: "stdio", command: "node", lifecycle: "persistent" },
          subscriptions: [{
            mode: "intercept",
            events: ["tool.*"],
            failurePolicy: "fail-closed",
            content: { default: "body" }
          }]
        }]
      })
      const invalid = yield* callHook(["claude-code", "--registration", intent], payload, { dir })
      assert.strictEqual(answerOf(invalid).hookSpecificOutput.permissionDecision, "deny")
      assert.match(answerOf(invalid).systemMessage, /is invalid: .*timeoutMs/)
      const prompt = JSON.stringify({ session_id: "s", hook_event_name: "UserPromptSubmit", prompt: "hi" })
      const notSelected = yield* callHook(["claude-code", "--registration", intent], prompt, { dir })
      assert.deepStrictEqual(Object.keys(answerOf(notSelected)), ["systemMessage"])
      const garbage = writeFile(dir, "garbage.json", "{ nope")
      const unparsed = yield* callHook(["claude-code", "--registration", garbage], payload, { dir })
      assert.match(answerOf(unparsed).systemMessage, /is not JSON/)
      assert.deepStrictEqual(fs.readdirSync(path.join(dir, "cache")), [], "an invalid registration is never cached")
    }))

  it.scoped("a registration that is a FIFO, a directory, over 16 MiB or not UTF-8 is refused unread, at once", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const payload = bash("claude-code", "ls")
      const fifo = path.join(dir, "fifo.json")
      execFileSync("mkfifo", [fifo])
      const large = path.join(dir, "large.json")
      fs.closeSync(fs.openSync(large, "w"))
      fs.truncateSync(large, 16 * 1024 * 1024 + 1)
      const latin1 = path.join(dir, "latin1.json")
      fs.writeFileSync(latin1, Buffer.from([0x7b, 0x22, 0xe9, 0x22, 0x3a, 0x31, 0x7d]))
      const cases: ReadonlyArray<readonly [string, string]> = [
        [fifo, "not a regular file"],
        [dir, "is a directory"],
        [large, "larger than the 16 MiB input limit"],
        [latin1, "not valid UTF-8 (byte 0xe9 at offset 2)"]
      ]
      for (const [file, reason] of cases) {
        const open = yield* callHook(["claude-code", "--registration", file], payload, { dir })
        assert.strictEqual(answerOf(open).systemMessage, `ahp: cannot read the AHP registration ${file}: ${reason}`)
        const closed = yield* callHook(["claude-code", "--registration", file, "--fail-closed"], payload, { dir })
        assert.strictEqual(answerOf(closed).hookSpecificOutput.permissionDecision, "deny", file)
      }
    }))

  it("the watchdog's fail-closed intent is read from the registration's text", () => {
    const document = (events: unknown, mode = "intercept", failurePolicy = "fail-closed") =>
      JSON.stringify({
        protocolVersion: "draft",
        hooks: [{ id: "com.example.p", transport: { type: "stdio" }, subscriptions: [{ mode, events, failurePolicy }] }]
      })
    assert.isTrue(Policy.failClosedIntentOfText(document(["tool.*"]), "tool.before"))
    assert.isTrue(Policy.failClosedIntentOfText(document("unreadable"), "tool.before"))
    assert.isFalse(Policy.failClosedIntentOfText(document(["turn.start"]), "tool.before"))
    assert.isFalse(Policy.failClosedIntentOfText(document(["tool.before"], "observe"), "tool.before"))
    assert.isFalse(Policy.failClosedIntentOfText(document(["tool.before"], "intercept", "fail-open"), "tool.before"))
    assert.isFalse(Policy.failClosedIntentOfText("{ nope", "tool.before"))
  })

  it.scoped("a backend's relative cwd resolves against the registration's directory, not the hook's", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const conf = path.join(dir, "conf")
      const elsewhere = path.join(dir, "elsewhere")
      fs.mkdirSync(conf)
      fs.mkdirSync(elsewhere)
      const reg = writeFile(
        conf,
        "registration.json",
        registration({
          id: "com.example.policy",
          transport: {
            ...scriptedStdio(`effects=${JSON.stringify([{ type: "deny", reason: "destructive" }])}`, "backend.log"),
            cwd: ".."
          },
          subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-closed" })]
        })
      )
      const run = yield* callHook(["claude-code", "--registration", reg], bash("claude-code", "rm -rf /"), {
        dir,
        cwd: elsewhere
      })
      assert.strictEqual(answerOf(run).hookSpecificOutput.permissionDecisionReason, "destructive", run.stderr)
      const log = path.join(dir, "backend.log")
      assert.strictEqual(startedPids(log).length, 1, "the relative log path names the registration's parent directory")
      yield* eventually(() => noneAlive(log))
    }))

  it.scoped("the trusted project default is found from the payload's cwd up to its git work tree; an event nothing selects starts no backend", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "backend.log")
      const project = path.join(dir, "project")
      fs.mkdirSync(path.join(project, ".ahp"), { recursive: true })
      fs.mkdirSync(path.join(project, "src"))
      fs.mkdirSync(path.join(project, ".git"))
      const file = writeFile(
        path.join(project, ".ahp"),
        "registration.json",
        effectsBackend(log, [{ type: "deny", reason: "no" }], ["tool.before"])
      )
      trustIn(dir, file)
      const prompt = JSON.stringify({
        session_id: "s",
        cwd: path.join(project, "src"),
        hook_event_name: "UserPromptSubmit",
        prompt: "hi"
      })
      for (let i = 0; i < 2; i++) {
        const run = yield* callHook(["claude-code"], prompt, { dir })
        assert.strictEqual(run.stdout, "{}\n", run.stderr)
      }
      assert.deepStrictEqual(startedPids(log), [])
      assert.strictEqual(fs.readdirSync(path.join(dir, "cache")).length, 1, "the compiled registration is cached")
      const denied = yield* callHook(["claude-code"], bash("claude-code", "ls", { cwd: path.join(project, "src") }), {
        dir
      })
      assert.strictEqual(answerOf(denied).hookSpecificOutput.permissionDecision, "deny")
      assert.strictEqual(startedPids(log).length, 1)
    }))

  it.scoped("--verbose traces each backend, its failure policy and the decision on stderr, one line each", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "backend.log")
      const audit = path.join(dir, "audit.log")
      const reg = writeFile(
        dir,
        "registration.json",
        registration(
          {
            id: "com.example.broken",
            transport: scriptedStdio("garbage", log),
            subscriptions: [intercept(["tool.before"])]
          },
          {
            id: "com.example.guard",
            transport: scriptedStdio(`effects=${JSON.stringify([{ type: "deny", reason: "destructive" }])}`, log),
            subscriptions: [intercept(["tool.before"], { id: "guard" })]
          },
          {
            id: "com.example.audit",
            transport: scriptedStdio("ok", audit, "per_event"),
            subscriptions: [observe(["tool.*"])]
          }
        )
      )
      const run = yield* callHook(["claude-code", "--registration", reg], bash("claude-code", "rm -rf /"), {
        dir,
        env: { AHP_HOOK_VERBOSE: "1" }
      })
      const lines = run.stderr.split("\n").filter((l) => l !== "")
      assert.strictEqual(lines.length, 5, run.stderr)
      assert.match(lines[0]!, /^ahp: claude-code PreToolUse → tool\.before cc_[0-9a-f]+: Bash: rm -rf \//)
      assert.match(lines[1]!, /com\.example\.broken\/0 \(intercept, fail-open.*malformed.*fail-open: recorded/)
      assert.match(lines[2]!, /com\.example\.guard\/guard .*deny "destructive".*accepted/)
      assert.match(lines[3]!, /com\.example\.audit\/0 \(observe\): delivered/)
      assert.match(lines[4]!, /⇒ deny, "destructive" \(by com\.example\.guard\/guard\) → \{"hookSpecificOutput"/)
      yield* eventually(() => noneAlive(log) && noneAlive(audit))
      assert.strictEqual(logEntries(audit).filter((e) => e.event === "message").length, 1)
    }))
})
