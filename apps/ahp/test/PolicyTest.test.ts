/**
 * `ahp test`: case files run against backends (in process here, the real stdio transport in
 * one test through the bundle), the pass/fail table, the diff of each failure, JUnit XML,
 * exit codes, and `--record`.
 */
import * as PolicyTest from "@effect-ahp/tools/PolicyTest"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { captured, guardAndMissing, guardId, guardTransports } from "./inProcess.js"
import { bundle, intercept, registration, runCli, tempDir, toolBefore, writeFile } from "./support.js"

/** The shell guard in process, and a backend id with no function behind it (fails `unsupported`). */
const transports: PolicyTest.TransportsFor = () => guardTransports

const reg = guardAndMissing("fail-open")

/** Runs `ahp test` in process; returns the exit code, what it printed and the results. */
const runTest = (files: ReadonlyArray<string>, options: { readonly junit?: string; readonly record?: boolean } = {}) =>
  Effect.map(
    captured(
      PolicyTest.run({ files, junit: Option.fromNullable(options.junit), record: options.record ?? false, transports })
    ),
    ({ code, output, value }) => ({ code, output, results: value })
  )

describe("ahp test", () => {
  it.scoped("passes and fails cases, with a diff of the differing paths only, and exits 1", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      writeFile(dir, "registration.json", reg)
      const pass = writeFile(dir, "deny.json", {
        name: "rm -rf is denied",
        registration: "registration.json",
        event: toolBefore("rm -rf /"),
        expect: { decision: "deny", failures: [], event: { tool: { name: "bash" } } }
      })
      const fail = writeFile(dir, "allow.json", {
        name: "ls is denied (wrong)",
        registration: reg,
        event: toolBefore("ls -la"),
        expect: {
          decision: "deny",
          event: { tool: { input: { command: "ls -la" }, name: "sh" } },
          failures: ["unsupported"]
        }
      })
      const run = yield* runTest([pass, fail])
      assert.strictEqual(run.code, 1, run.output)
      assert.deepStrictEqual(run.results.map((r) => r._tag), ["Passed", "Failed"], run.output)
      const failed = run.results[1]!
      assert(failed._tag === "Failed")
      assert.deepStrictEqual(failed.differences, [
        { path: "/decision", expected: "deny", actual: "allow" },
        { path: "/event/tool/name", expected: "sh", actual: "bash" }
      ])
      assert.match(run.output, /PASS\s+rm -rf is denied\s+deny/)
      assert.match(run.output, /FAIL\s+ls is denied \(wrong\)\s+allow/)
      assert.include(run.output, "  /decision\n    - expected \"deny\"\n    + actual   \"allow\"")
      assert.notInclude(run.output, "/event/tool/input", "a matching path is not shown")
      assert.include(run.output, "1 passed, 1 failed, 0 invalid")
    }))

  it.scoped("exits 0 when every case passes; a host payload is mapped by the host adapter", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = writeFile(dir, "claude.json", {
        registration: reg,
        host: "claude-code",
        payload: {
          session_id: "s",
          cwd: "/w",
          permission_mode: "default",
          hook_event_name: "PreToolUse",
          tool_name: "Bash",
          tool_input: { command: "rm -rf /" },
          tool_use_id: "toolu_1"
        },
        expect: { decision: "deny", event: { tool: { input: { command: "rm -rf /" } } } }
      })
      const run = yield* runTest([file])
      assert.strictEqual(run.code, 0, run.output)
      assert.include(run.output, "1 passed, 0 failed, 0 invalid")
    }))

  it.scoped("an invalid case file is reported with its problems and exits 2; the other cases still run", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const typo = writeFile(dir, "typo.json", {
        registration: reg,
        event: toolBefore("ls"),
        expcet: { decision: "allow" }
      })
      const both = writeFile(dir, "both.json", {
        registration: reg,
        event: toolBefore("ls"),
        host: "codex",
        payload: {}
      })
      const badReg = writeFile(dir, "bad-registration.json", { registration: "nowhere.json", event: toolBefore("ls") })
      const notJson = writeFile(dir, "not-json.json", "{")
      const good = writeFile(dir, "good.json", {
        registration: reg,
        event: toolBefore("ls"),
        expect: { decision: "allow" }
      })
      const run = yield* runTest([typo, both, badReg, notJson, good])
      assert.strictEqual(run.code, 2)
      assert.deepStrictEqual(run.results.map((r) => r._tag), ["Invalid", "Invalid", "Invalid", "Invalid", "Passed"])
      assert.match(run.output, /\/expcet: is not an allowed member here/, run.output)
      assert.include(run.output, "give either event or host and payload, not both")
      assert.include(run.output, "nowhere.json")
      assert.include(run.output, "is not JSON")
    }))

  it.scoped("--junit writes JUnit XML with one test case per file, escaped", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const pass = writeFile(dir, "pass.json", {
        name: "a <pass>",
        registration: reg,
        event: toolBefore("ls"),
        expect: { decision: "allow" }
      })
      const fail = writeFile(dir, "fail.json", {
        name: "b & fail",
        registration: reg,
        event: toolBefore("ls"),
        expect: { messages: ["x"] }
      })
      const junit = path.join(dir, "junit.xml")
      const run = yield* runTest([pass, fail], { junit })
      assert.strictEqual(run.code, 1)
      const text = fs.readFileSync(junit, "utf8")
      assert.include(text, `<testsuite name="ahp test" tests="2" failures="1" errors="0">`)
      assert.include(text, `<testcase name="a &lt;pass&gt;" classname="${pass}"/>`)
      assert.match(
        text,
        /<testcase name="b &amp; fail" classname="[^"]+">\n {6}<failure message="1 differing path\(s\)">  \/messages\/0\n/
      )
      assert.include(text, "- expected &quot;x&quot;")
    }))

  it.scoped("--record writes the outcomes as the expectations and keeps the rest of the case", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = writeFile(dir, "case.json", {
        name: "recorded",
        description: "kept",
        registration: reg,
        event: toolBefore("git push --force origin main"),
        expect: { decision: "allow" }
      })
      const before = yield* runTest([file])
      assert.strictEqual(before.code, 1)
      const recorded = yield* runTest([file], { record: true })
      assert.strictEqual(recorded.code, 0)
      const written = JSON.parse(fs.readFileSync(file, "utf8"))
      assert.deepStrictEqual(Object.keys(written), ["name", "description", "registration", "event", "expect"])
      assert.strictEqual(written.description, "kept")
      assert.deepStrictEqual(written.expect, {
        decision: "ask",
        messages: ["Approval needed: a force push rewrites shared history."],
        failures: ["unsupported"]
      })
      const after = yield* runTest([file])
      assert.strictEqual(after.code, 0, after.output)
    }))
})

describe("subsetDiff", () => {
  it("matches objects as subsets and arrays exactly", () => {
    assert.deepStrictEqual(PolicyTest.subsetDiff({ a: 1 }, { a: 1, b: 2 }), [])
    assert.deepStrictEqual(PolicyTest.subsetDiff({ a: { "x/y": 1 } }, { a: {} }), [
      { path: "/a/x~1y", expected: 1, actual: undefined }
    ])
    assert.deepStrictEqual(PolicyTest.subsetDiff([1], [1, 2]), [{ path: "/1", expected: undefined, actual: 2 }])
    assert.deepStrictEqual(PolicyTest.subsetDiff([{ a: 1 }], [{ a: 1, b: 1 }]), [])
    assert.deepStrictEqual(PolicyTest.subsetDiff({ a: null }, { a: 0 }), [{ path: "/a", expected: null, actual: 0 }])
  })
})

describe("ahp test (the real binary)", () => {
  it.scopedLive("runs cases against a real stdio backend: exit 1 when one fails", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      writeFile(
        dir,
        "registration.json",
        registration({
          id: guardId,
          transport: {
            type: "stdio",
            command: process.execPath,
            args: [bundle, "serve", "shell-guard", "--stdio"],
            lifecycle: "per_event"
          },
          subscriptions: [intercept(["tool.before"], { id: "guard" })]
        })
      )
      const deny = writeFile(dir, "deny.json", {
        registration: "registration.json",
        event: toolBefore("rm -rf /"),
        expect: { decision: "deny" }
      })
      const wrong = writeFile(dir, "wrong.json", {
        registration: "registration.json",
        event: toolBefore("ls"),
        expect: { decision: "deny" }
      })
      const junit = path.join(dir, "junit.xml")
      const run = yield* runCli(["test", deny, wrong, "--junit", junit])
      assert.strictEqual(run.code, 1, run.stderr)
      assert.match(run.stdout, /PASS\s+deny\s+deny/)
      assert.match(run.stdout, /FAIL\s+wrong\s+allow/)
      assert.include(fs.readFileSync(junit, "utf8"), `failures="1"`)
    }))
})
