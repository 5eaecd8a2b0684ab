/**
 * `ahp inspect` against the scripted backends, through the command line's entry in this
 * process: every classification, the timings, the exit codes,
 * and that credentials never reach the output.
 */
import { redact } from "@effect-ahp/tools/Inspect"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runInProcess } from "./inProcess.js"
import { output, scriptedHttp, scriptedStdio, tempDir, toolBefore, writeFile } from "./support.js"

const inspect = (dir: string, backend: unknown, ...extra: ReadonlyArray<string>) =>
  runInProcess([
    "inspect",
    "--backend",
    writeFile(dir, "backend.json", backend),
    "--event",
    writeFile(dir, "event.json", toolBefore("rm -rf /")),
    "--json",
    ...extra
  ])

describe("ahp inspect", () => {
  const stdioCases: ReadonlyArray<[string, string, string, number, string?]> = [
    ["no effect", "ok", "no-effect", 0],
    ["an explicit deny", "deny=not here", "deny", 0],
    ["effects", `effects=${JSON.stringify([{ type: "message", text: "hello" }, { type: "ask" }])}`, "effects", 0],
    ["garbage", "garbage", "failure", 1, "malformed"],
    ["a crash", "exit-mid", "failure", 1, "exited"]
  ]
  for (const [name, behaviour, classification, code, failure] of stdioCases) {
    it.scopedLive(`classifies ${name} (stdio)`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const run = yield* inspect(dir, { id: "com.example.guard", transport: scriptedStdio(behaviour, `${dir}/log`) })
        assert.strictEqual(run.code, code, run.stderr)
        const report = output(run)
        assert.strictEqual(report.classification, classification)
        assert.strictEqual(report.backend, "com.example.guard")
        assert.strictEqual(report.event.type, "tool.before")
        assert.isNumber(report.timings.exchangeMs)
        assert.isAtLeast(report.timings.totalMs, report.timings.exchangeMs)
        if (failure !== undefined) assert.deepInclude(report.failure, { phase: "transport", code: failure })
        if (classification === "deny") assert.deepStrictEqual(report.effects, [{ type: "deny", reason: "not here" }])
      }))
  }

  it.scopedLive("classifies an HTTP 500 as an operational failure with its status", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const server = yield* scriptedHttp(dir, "broken", "500")
      const run = yield* inspect(dir, { id: "com.example.broken", transport: { type: "http", url: server.url } })
      assert.strictEqual(run.code, 1)
      const report = output(run)
      assert.strictEqual(report.classification, "failure")
      assert.deepInclude(report.failure, { phase: "transport", code: "status", httpStatus: 500 })
      assert.isNull(report.response)
    }))

  it.scopedLive("classifies a timeout, with --timeout", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const server = yield* scriptedHttp(dir, "hang", "hang")
      const run = yield* inspect(
        dir,
        { id: "com.example.hang", transport: { type: "http", url: server.url } },
        "--timeout",
        "200"
      )
      const report = output(run)
      assert.strictEqual(report.classification, "failure")
      assert.strictEqual(report.failure.code, "timeout")
      assert.isAtLeast(report.timings.exchangeMs, 150)
    }))

  it.scopedLive("observe mode: delivered or not", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const ok = yield* scriptedHttp(dir, "ok", "ok")
      const broken = yield* scriptedHttp(dir, "broken", "500")
      const delivered = yield* inspect(
        dir,
        { id: "com.example.ok", transport: { type: "http", url: ok.url } },
        "--mode",
        "observe"
      )
      assert.strictEqual(delivered.code, 0)
      assert.strictEqual(output(delivered).classification, "delivered")
      const lost = yield* inspect(
        dir,
        { id: "com.example.broken", transport: { type: "http", url: broken.url } },
        "--mode",
        "observe"
      )
      assert.strictEqual(lost.code, 1)
      assert.strictEqual(output(lost).classification, "not-delivered")
    }))

  it.scopedLive("picks a backend from a registration, uses its subscription, and prints text without --json", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const backend = {
        id: "com.example.guard",
        transport: scriptedStdio("deny=blocked", `${dir}/log`),
        subscriptions: [{
          mode: "intercept",
          events: ["tool.*"],
          timeoutMs: 15_000,
          failurePolicy: "fail-closed",
          content: { default: "body" }
        }]
      }
      const run = yield* runInProcess([
        "inspect",
        "--backend",
        writeFile(dir, "registration.json", {
          protocolVersion: "draft",
          hooks: [backend, { ...backend, id: "com.example.other" }]
        }),
        "--id",
        "com.example.guard",
        "--event",
        writeFile(dir, "event.json", toolBefore("ls"))
      ])
      assert.strictEqual(run.code, 0, run.stderr)
      assert.match(run.stdout, /^backend\s+com\.example\.guard/m)
      assert.match(run.stdout, /^result\s+explicit deny "blocked"/m)
      assert.match(run.stdout, /^timing\s+exchange \d+ ms, total \d+ ms/m)
      const ambiguous = yield* runInProcess([
        "inspect",
        "--backend",
        `${dir}/registration.json`,
        "--event",
        `${dir}/event.json`
      ])
      assert.strictEqual(ambiguous.code, 2)
      assert.match(
        output(ambiguous).message,
        /lists 2 backends: pick one with --id \(com\.example\.guard, com\.example\.other\)/
      )
      const typo = yield* runInProcess([
        "inspect",
        "--backend",
        `${dir}/registration.json`,
        "--id",
        "com.example.gaurd",
        "--event",
        `${dir}/event.json`
      ])
      assert.strictEqual(typo.code, 2)
      assert.match(
        output(typo).message,
        /has no backend com\.example\.gaurd \(did you mean com\.example\.guard\?\); its backends: com\.example\.guard, com\.example\.other/
      )
    }))

  it.scopedLive("never prints a credential", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const server = yield* scriptedHttp(dir, "auth", "require-bearer=something-else")
      const secret = "s3cr3t-token-value-4711"
      const run = yield* runInProcess([
        "inspect",
        "--backend",
        writeFile(dir, "backend.json", {
          id: "com.example.auth",
          transport: { type: "http", url: server.url },
          authentication: { type: "bearer", tokenEnv: "AHP_INSPECT_TOKEN" }
        }),
        "--event",
        writeFile(dir, "event.json", toolBefore("ls")),
        "--json"
      ], { env: { AHP_INSPECT_TOKEN: secret } })
      assert.strictEqual(run.code, 1)
      assert.strictEqual(output(run).failure.code, "unauthorized")
      assert.notInclude(run.stdout + run.stderr, secret)
    }))

  it("redacts secret members, secret flags, secret values and URL credentials", () => {
    assert.deepStrictEqual(
      redact({
        url: "https://user:pw@example.com/x",
        headers: { Authorization: "Bearer abc" },
        note: "token abc123 here",
        args: ["serve", "--token", "t0k", "--api-key=k3y", "--verbose", "x"]
      }, ["abc123"]),
      {
        url: "https://[redacted]@example.com/x",
        headers: { Authorization: "[redacted]" },
        note: "token [redacted] here",
        args: ["serve", "--token", "[redacted]", "--api-key=[redacted]", "--verbose", "x"]
      }
    )
  })
})
