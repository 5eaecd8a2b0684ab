/**
 * `ahp dispatch` against the repository's scripted stdio and HTTP backends: run in this
 * process (`runInProcess`: the command line's own entry, output captured), and for
 * signals as a child process of the bundle.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runInProcess } from "./inProcess.js"
import {
  bundle,
  eventually,
  intercept,
  isAlive,
  logEntries,
  observe,
  output,
  registration,
  runCli,
  scriptedHttp,
  scriptedStdio,
  startCli,
  tempDir,
  toolBefore,
  writeFile
} from "./support.js"

/** `ahp dispatch`'s arguments, the registration and the event written to files in `dir`. */
const dispatchArgs = (dir: string, reg: unknown, event: unknown, ...extra: ReadonlyArray<string>) => [
  "dispatch",
  "--registration",
  writeFile(dir, "registration.json", reg),
  "--event",
  writeFile(dir, "event.json", event),
  ...extra
]

const dispatch = (dir: string, reg: unknown, event: unknown, ...extra: ReadonlyArray<string>) =>
  runInProcess(dispatchArgs(dir, reg, event, ...extra))

describe("ahp dispatch", () => {
  it.scopedLive("runs interceptors in order, chains edits, stops at a deny and observes the rest", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const [logA, logB, logC] = ["a.log", "b.log", "c.log"].map((n) => `${dir}/${n}`) as [string, string, string]
      const edit = `effects=${
        JSON.stringify([{ type: "modify", target: "input", operation: "merge", value: { command: "ls -la" } }])
      }`
      const run = yield* dispatch(
        dir,
        registration(
          {
            id: "com.example.first",
            transport: scriptedStdio(edit, logA),
            subscriptions: [intercept(["tool.before"], { id: "edit" })]
          },
          {
            id: "com.example.second",
            transport: scriptedStdio("deny=no thanks", logB),
            subscriptions: [intercept(["tool.before"])]
          },
          { id: "com.example.third", transport: scriptedStdio("ok", logC), subscriptions: [intercept(["tool.*"])] }
        ),
        toolBefore("rm -rf build")
      )
      assert.strictEqual(run.code, 0, run.stderr)
      const out = output(run)
      assert.strictEqual(out.decision, "deny")
      assert.deepStrictEqual(out.effects.map((e: any) => e.type), ["modify", "deny"])
      assert.strictEqual(out.event.tool.input.command, "ls -la")
      assert.deepStrictEqual(out.state.denial, {
        reason: "no thanks",
        synthetic: false,
        backend: "com.example.second",
        subscription: "0"
      })
      assert.deepStrictEqual(out.errors, [])
      assert.deepStrictEqual(out.observations, [
        { backend: "com.example.third", subscription: "0", mode: "intercept", outcome: "delivered" }
      ])
      assert.isFalse(out.interrupted)
      const [first] = logEntries(logA).filter((e) => e.event === "message")
      const [second] = logEntries(logB).filter((e) => e.event === "message")
      const [third] = logEntries(logC).filter((e) => e.event === "message")
      assert.strictEqual(first.message.params.event.tool.input.command, "rm -rf build")
      assert.strictEqual(second.message.params.event.tool.input.command, "ls -la")
      assert.strictEqual(third.message.method, "hooks/observe")
      assert.strictEqual(third.message.params.event.tool.input.command, "ls -la")
    }))

  for (const policy of ["fail-open", "fail-closed"] as const) {
    it.scopedLive(`a timeout under ${policy} over HTTP`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const slow = yield* scriptedHttp(dir, "slow", "hang")
        const run = yield* dispatch(
          dir,
          registration({
            id: "com.example.slow",
            transport: { type: "http", url: slow.url },
            subscriptions: [intercept(["tool.before"], { id: "scan", timeoutMs: 300, failurePolicy: policy })]
          }),
          toolBefore("ls")
        )
        assert.strictEqual(run.code, 0, run.stderr)
        const out = output(run)
        assert.strictEqual(out.decision, policy === "fail-open" ? "none" : "deny")
        assert.strictEqual(out.state.denial?.synthetic ?? false, policy === "fail-closed")
        assert.strictEqual(out.errors.length, 1)
        const [error] = out.errors
        assert.deepInclude(error, {
          backend: "com.example.slow",
          subscription: "scan",
          phase: "transport",
          code: "timeout",
          policy,
          syntheticDenial: policy === "fail-closed"
        })
      }))
  }

  it.scopedLive("an HTTP exchange loads undici's Agent alone: not its index, whose fetch and WebSocket load Node's own undici", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const backend = yield* scriptedHttp(dir, "plain", "ok")
      const probe = writeFile(
        dir,
        "probe.mjs",
        "process.on(\"exit\", () => process.stderr.write(`node's undici: ${process.moduleLoadList.some((m) => m.includes(\"deps/undici\"))}\\n`))"
      )
      const reg = registration({
        id: "com.example.plain",
        transport: { type: "http", url: backend.url },
        subscriptions: [intercept(["tool.before"])]
      })
      const run = yield* runCli(dispatchArgs(dir, reg, toolBefore("ls")), { command: ["--import", probe, bundle] })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual([output(run).decision, output(run).errors], ["none", []])
      assert.strictEqual(run.stderr, "node's undici: false\n")
    }))

  it.scopedLive("reports an HTTP 500 and a JSON-RPC error per failed route", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const broken = yield* scriptedHttp(dir, "broken", "500")
      const erring = yield* scriptedHttp(dir, "erring", "error=-32004")
      const run = yield* dispatch(
        dir,
        registration(
          {
            id: "com.example.broken",
            transport: { type: "http", url: broken.url },
            subscriptions: [intercept(["tool.before"])]
          },
          {
            id: "com.example.erring",
            transport: { type: "http", url: erring.url },
            subscriptions: [intercept(["tool.before"])]
          }
        ),
        toolBefore("ls")
      )
      const out = output(run)
      assert.strictEqual(out.decision, "none")
      assert.deepStrictEqual(out.errors.map((e: any) => [e.backend, e.phase, e.code, e.httpStatus, e.jsonRpcCode]), [
        ["com.example.broken", "transport", "status", 500, undefined],
        ["com.example.erring", "protocol", "jsonrpc-error", undefined, -32004]
      ])
    }))

  it.scopedLive("a grant as a capability map limits what is offered, and an ungranted effect is rejected", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = `${dir}/guard.log`
      const run = yield* dispatch(
        dir,
        registration({
          id: "com.example.guard",
          transport: scriptedStdio(`effects=${JSON.stringify([{ type: "allow" }])}`, log, "per_event"),
          subscriptions: [intercept(["tool.before"], { id: "guard" })]
        }),
        toolBefore("ls"),
        "--capabilities",
        writeFile(dir, "caps.json", { "tool.before": { effects: ["deny"] } })
      )
      const out = output(run)
      assert.strictEqual(out.decision, "none")
      assert.deepInclude(out.errors[0], { phase: "staging", code: "ungranted-effect", syntheticDenial: false })
      const [message] = logEntries(log).filter((e) => e.event === "message")
      assert.deepStrictEqual(message.message.params.capabilities, { effects: ["deny"] })
    }))

  it.scopedLive("starts from the given state, fills in the envelope and keeps big integers exact", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const reg = writeFile(
        dir,
        "registration.json",
        registration({
          id: "com.example.ok",
          transport: scriptedStdio("ok", `${dir}/ok.log`),
          subscriptions: [intercept(["tool.before"])]
        })
      )
      const event = writeFile(
        dir,
        "event.json",
        `{"type":"tool.before","tool":{"name":"bash","input":{"command":"ls","n":123456789012345678901234567890},"origin":"native"},"call":{"id":"c"},"path":"main"}`
      )
      const state = writeFile(dir, "state.json", { permission: "ask", candidate: null })
      const run = yield* runInProcess([
        "dispatch",
        "--registration",
        reg,
        "--event",
        event,
        "--state",
        state,
        "--source",
        "urn:test:cli",
        "--pretty"
      ])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.include(run.stdout, "123456789012345678901234567890")
      assert.isAbove(run.stdout.split("\n").length, 10)
      const out = JSON.parse(run.stdout)
      assert.strictEqual(out.decision, "ask")
      assert.strictEqual(out.event.source, "urn:test:cli")
      assert.match(out.event.id, /^evt_/)
      assert.isString(out.event.time)
    }))

  it.scopedLive("--no-wait-observers prints pending observations, which are still delivered", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const observer = yield* scriptedHttp(dir, "observer", "late=300")
      const run = yield* dispatch(
        dir,
        registration({
          id: "com.example.audit",
          transport: { type: "http", url: observer.url },
          subscriptions: [observe(["*"], { id: "audit" })]
        }),
        toolBefore("ls"),
        "--no-wait-observers"
      )
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(output(run).observations, [
        { backend: "com.example.audit", subscription: "audit", mode: "observe", outcome: "pending" }
      ])
      const requests = logEntries(observer.log).filter((e) => e.event === "request")
      assert.strictEqual(requests.length, 1)
      assert.notInclude(logEntries(observer.log).map((e) => e.event), "closed")
    }))

  it.scopedLive("SIGINT interrupts the call: interrupted is printed, exit 130, no child left", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = `${dir}/hang.log`
      const reg = registration({
        id: "com.example.hang",
        transport: scriptedStdio("hang", log),
        subscriptions: [intercept(["tool.before"], { timeoutMs: 60_000, failurePolicy: "fail-closed" })]
      })
      const running = yield* startCli(dispatchArgs(dir, reg, toolBefore("ls")))
      const pid = yield* eventually(() => logEntries(log).find((e) => e.event === "message")?.pid as number | undefined)
      running.child.kill("SIGINT")
      const run = yield* running.done
      assert.strictEqual(run.code, 130, run.stderr)
      const out = output(run)
      assert.isTrue(out.interrupted)
      assert.strictEqual(out.decision, "none")
      assert.deepStrictEqual(out.observations, [])
      assert.isFalse(isAlive(pid))
    }))

  it.scopedLive("a registration with many errors: exit 2 and every issue", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const run = yield* dispatch(
        dir,
        {
          protocolVersion: "v0",
          hooks: [
            {
              id: "not a dns name",
              transport: { type: "ftp" },
              subscriptions: [{ mode: "intercept", events: ["tool.nope"] }]
            },
            { id: "com.example.ok", transport: { type: "http", url: "http://example.com/hooks" }, subscriptions: [] }
          ]
        },
        toolBefore("ls")
      )
      assert.strictEqual(run.code, 2)
      const out = output(run)
      assert.strictEqual(out.error, "configuration")
      const codes = out.issues.map((i: any) => i.code)
      for (
        const code of [
          "unsupported-protocol-version",
          "invalid-backend-id",
          "unsupported-transport",
          "unknown-event",
          "missing-failure-policy",
          "missing-timeout",
          "missing-content-selection",
          "unsafe-endpoint",
          "missing-subscriptions"
        ]
      ) assert.include(codes, code)
      for (const issue of out.issues) assert.hasAllKeys(issue, ["code", "path", "message"])
    }))

  it.scopedLive("an invalid grant is a configuration error", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const run = yield* dispatch(
        dir,
        registration({
          id: "com.example.ok",
          transport: scriptedStdio("ok", `${dir}/ok.log`),
          subscriptions: [intercept(["tool.before"])]
        }),
        toolBefore("ls"),
        "--capabilities",
        writeFile(dir, "caps.json", { "tool.before": { effects: ["deny", "teleport"] }, "tool.nope": { effects: [] } })
      )
      assert.strictEqual(run.code, 2)
      const out = output(run)
      assert.strictEqual(out.error, "configuration")
      assert.deepStrictEqual(out.issues.map((i: any) => i.path).sort(), ["/tool.before/effects/1", "/tool.nope"])
    }))

  it.scopedLive("unreadable input: one clear message and exit 2", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const reg = writeFile(
        dir,
        "registration.json",
        registration({
          id: "com.example.ok",
          transport: scriptedStdio("ok", `${dir}/ok.log`),
          subscriptions: [intercept(["tool.before"])]
        })
      )
      const good = writeFile(dir, "good.json", toolBefore("ls"))
      const cases: ReadonlyArray<[string, ReadonlyArray<string>, RegExp]> = [
        [
          "a missing registration",
          ["--registration", `${dir}/missing.json`, "--event", good],
          /cannot read the registration file .*: no such file/
        ],
        [
          "a folder as the event",
          ["--registration", reg, "--event", dir],
          /is a directory: inputs are read from regular files only/
        ],
        [
          "invalid JSON",
          ["--registration", reg, "--event", writeFile(dir, "bad.json", "{\"type\": ")],
          /is not JSON: invalid JSON/
        ],
        [
          "an event that is not an object",
          ["--registration", reg, "--event", writeFile(dir, "array.json", [])],
          /must hold a JSON object/
        ],
        [
          "an event without a type",
          ["--registration", reg, "--event", writeFile(dir, "untyped.json", { tool: {} })],
          /has no "type"/
        ],
        ["an unknown event type", [
          "--registration",
          reg,
          "--event",
          writeFile(dir, "unknown.json", { type: "tool.explode" })
        ], /unknown event type "tool.explode"$/],
        ["a mistyped event type", [
          "--registration",
          reg,
          "--event",
          writeFile(dir, "typo.json", { type: "tool.befor" })
        ], /unknown event type "tool.befor" \(did you mean "tool.before"\?\)/],
        ["an invalid event", [
          "--registration",
          reg,
          "--event",
          writeFile(dir, "invalid.json", { type: "tool.before", tool: {} })
        ], /not a valid tool.before event/],
        ["an invalid state", [
          "--registration",
          reg,
          "--event",
          good,
          "--state",
          writeFile(dir, "state.json", { permission: "maybe" })
        ], /state file .* is not valid/]
      ]
      const runs = yield* Effect.forEach(cases, ([, args]) => runInProcess(["dispatch", ...args]))
      for (const [[name, , message], run] of cases.map((c, i) => [c, runs[i]!] as const)) {
        assert.strictEqual(run.code, 2, name)
        const out = output(run)
        assert.strictEqual(out.error, "input", name)
        assert.match(out.message, message, name)
        assert.isArray(out.issues, name)
        assert.isString(out.file, name)
      }
    }))
})
