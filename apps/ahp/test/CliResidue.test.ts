/**
 * The command line's smaller promises, each as its help states it: `validate` checks the
 * event files `dispatch` reads (`--kind event`, inferred for a `{type: …}` document) and
 * exits 2 for a file that is not JSON; `auth` exits 2 for a registration it cannot read and
 * says when there is no HTTP backend to log in to; a mistyped failure policy is reported as
 * invalid, not missing; `hook --help` (through the launcher) lists the options and exit codes;
 * an unreachable HTTP backend's failure names its URL (never its query) and the error code;
 * `--log-level debug` logs each call's per-route trace in `dispatch`, `inspect`, `test` and
 * `replay`, without a backend's error text; `inspect`'s exchange time of a stdio backend
 * includes starting its process, as its guide says.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as net from "node:net"
import * as path from "node:path"
import { runInProcess } from "./inProcess.js"
import {
  guardRegistration,
  intercept,
  output,
  registration,
  runCli,
  scriptedHttp,
  scriptedStdio,
  tempDir,
  toolBefore,
  writeFile
} from "./support.js"

describe("ahp command-line promises", () => {
  it.scopedLive("validate checks event files, inferred or named with --kind event", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const event = writeFile(dir, "event.json", toolBefore("ls"))
      const inferred = yield* runInProcess(["validate", event])
      assert.strictEqual(inferred.code, 0, inferred.stdout)
      assert.strictEqual(inferred.stdout, `${event}: valid (event)\n`)
      const typo = writeFile(dir, "typo.json", { ...toolBefore("ls"), type: "tool.befor" })
      const wrong = writeFile(dir, "wrong.json", { ...toolBefore("ls"), tool: { name: 3 } })
      const bad = yield* runInProcess(["validate", "--kind", "event", typo, wrong, "--json"])
      assert.strictEqual(bad.code, 1)
      const [first, second] = output(bad).files
      assert.deepInclude(first, { valid: false, kind: "event" })
      assert.match(
        first.issues[0].message,
        /"tool\.befor" is not a catalogue event type \(did you mean "tool\.before"\?\)/
      )
      assert.deepInclude(second, { valid: false, kind: "event" })
      assert.isTrue(second.issues.some((i: any) => i.path.startsWith("/tool")), JSON.stringify(second.issues))
      const reg = writeFile(dir, "registration.json", guardRegistration)
      const asEvent = yield* runInProcess(["validate", "--kind", "event", reg])
      assert.strictEqual(asEvent.code, 1)
      assert.match(asEvent.stdout, /registration\.json: invalid \(event\)\n {2}\/type: is missing/)
    }))

  it.scopedLive("validate exits 2 for a .json file that is not JSON, as its help says", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const broken = path.join(dir, "broken.json")
      fs.writeFileSync(broken, "{\"hooks\": [")
      const valid = writeFile(dir, "registration.json", guardRegistration)
      const run = yield* runInProcess(["validate", valid, broken])
      assert.strictEqual(run.code, 2)
      assert.match(run.stdout, /broken\.json: not JSON\n {2}\S/)
    }))

  it.scopedLive("a mistyped failurePolicy is invalid-failure-policy, with did you mean", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const mistyped = {
        ...guardRegistration.hooks[0],
        subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-close" })]
      }
      const reg = writeFile(dir, "registration.json", registration(mistyped))
      const event = writeFile(dir, "event.json", toolBefore("ls"))
      const run = yield* runInProcess(["dispatch", "--registration", reg, "--event", event])
      assert.strictEqual(run.code, 2)
      const issue = output(run).issues[0]
      assert.deepInclude(issue, { code: "invalid-failure-policy", path: "/hooks/0/subscriptions/0/failurePolicy" })
      assert.match(issue.message, /fail-open or fail-closed, got "fail-close" \(did you mean "fail-closed"\?\)/)
    }))

  it.scopedLive("auth: an unreadable registration exits 2; status says when no backend uses HTTP", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const missing = yield* runInProcess(["auth", "status", "--registration", path.join(dir, "missing.json")])
      assert.strictEqual(missing.code, 2)
      assert.deepInclude(output(missing), { error: "input" })
      const reg = writeFile(dir, "registration.json", guardRegistration)
      const status = yield* runInProcess(["auth", "status", "--registration", reg])
      assert.strictEqual(status.code, 0, status.stderr)
      assert.strictEqual(status.stdout, `${reg} has no HTTP backend: there is nothing to log in to\n`)
      const typo = yield* runInProcess(["auth", "statu", "--registration", reg])
      assert.strictEqual(typo.code, 2)
      assert.match(
        typo.stderr,
        /^ahp auth: ACTION must be one of login, logout, status, got "statu" \(did you mean status\?\)/
      )
    }))

  it.live("hook --help, through the launcher, has the options and exit codes of every command's help", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["hook", "--help"])
      assert.strictEqual(run.code, 0, run.stderr)
      const inProcess = yield* runInProcess(["help", "hook"])
      assert.strictEqual(run.stdout, inProcess.stdout)
      assert.match(run.stdout, /^Usage:\n {2}ahp hook claude-code\|codex /)
      assert.match(run.stdout, /\nOptions:\n {2}--registration FILE +the registration/)
      assert.match(run.stdout, /\nExit codes:\n {2}0 +the hook call was answered/)
    }))

  it.scopedLive("an unreachable HTTP backend's failure names its URL, without the query, and the errno", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const port = yield* Effect.async<number>((resume) => {
        const server = net.createServer().listen(0, "127.0.0.1", () => {
          const { port } = server.address() as net.AddressInfo
          server.close(() => resume(Effect.succeed(port)))
        })
      })
      const http = (id: string, url: string) => ({
        id,
        transport: { type: "http", url },
        subscriptions: [intercept(["tool.before"], { timeoutMs: 10_000 })]
      })
      const reg = writeFile(
        dir,
        "registration.json",
        registration(
          http("com.example.refused", `http://127.0.0.1:${port}/hooks?token=query-secret`),
          http("com.example.nowhere", "https://ahp-backend.invalid/hooks")
        )
      )
      const event = writeFile(dir, "event.json", toolBefore("ls"))
      const run = yield* runInProcess(["dispatch", "--registration", reg, "--event", event])
      assert.strictEqual(run.code, 0, run.stdout)
      const [refused, nowhere] = output(run).errors
      assert.strictEqual(
        refused.detail,
        `the backend at http://127.0.0.1:${port}/hooks could not be reached (ECONNREFUSED)`
      )
      assert.match(
        nowhere.detail,
        /^the backend at https:\/\/ahp-backend\.invalid\/hooks could not be reached \(E[A-Z_]+\)$/
      )
      assert.notInclude(run.stdout + run.stderr, "query-secret")
    }))

  it.scopedLive("--log-level debug logs the per-route trace in dispatch, inspect, test and replay", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const broken = yield* scriptedHttp(dir, "broken", "error")
      const deny = yield* scriptedHttp(dir, "deny", "deny=no rm")
      const denyBackend = {
        id: "com.example.deny",
        transport: { type: "http", url: deny.url },
        subscriptions: [intercept(["tool.before"], { id: "s" })]
      }
      const reg = writeFile(
        dir,
        "registration.json",
        registration(
          {
            id: "com.example.broken",
            transport: { type: "http", url: broken.url },
            subscriptions: [intercept(["tool.before"], { id: "s" })]
          },
          denyBackend
        )
      )
      const event = writeFile(dir, "event.json", toolBefore("rm -rf /"))
      const audit = path.join(dir, "audit.jsonl")
      const routes = [
        /level=DEBUG .*tool\.before: .*rm -rf .*\(2 intercept, 0 observe\)/,
        /→ com\.example\.broken\/s \(intercept, fail-open, 20000 ms, http\): answered in \d+ ms with something that is not an intercept result; protocol failure jsonrpc-error; fail-open: recorded/,
        /→ com\.example\.deny\/s \(intercept, fail-open, 20000 ms, http\): answered in \d+ ms: deny/,
        /⇒ deny, \\"no rm\\" \(by com\.example\.deny\/s\)/
      ]
      const traced = (run: { readonly stderr: string }) => {
        for (const line of routes) assert.match(run.stderr, line, run.stderr)
        assert.notInclude(run.stderr, "scripted error")
      }
      const quiet = yield* runInProcess(["dispatch", "--registration", reg, "--event", event])
      assert.strictEqual(quiet.code, 0, quiet.stderr)
      assert.strictEqual(quiet.stderr, "")
      const dispatched = yield* runInProcess([
        "dispatch",
        "--registration",
        reg,
        "--event",
        event,
        "--audit",
        audit,
        "--audit-content",
        "--log-level",
        "debug"
      ])
      assert.strictEqual(dispatched.code, 0, dispatched.stderr)
      traced(dispatched)
      const tested = yield* runInProcess([
        "--log-level",
        "debug",
        "test",
        writeFile(dir, "case.json", {
          name: "rm is denied",
          registration: "registration.json",
          event: toolBefore("rm -rf /"),
          expect: { decision: "deny" }
        })
      ])
      assert.strictEqual(tested.code, 0, tested.stdout + tested.stderr)
      traced(tested)
      const replayed = yield* runInProcess(["replay", audit, "--registration", reg, "--log-level", "debug"])
      assert.strictEqual(replayed.code, 0, replayed.stdout + replayed.stderr)
      traced(replayed)
      const inspected = yield* runInProcess([
        "inspect",
        "--backend",
        writeFile(dir, "backend.json", denyBackend),
        "--event",
        event,
        "--log-level",
        "debug"
      ])
      assert.strictEqual(inspected.code, 0, inspected.stdout + inspected.stderr)
      assert.match(inspected.stderr, /level=DEBUG .*tool\.before: .*\(1 intercept, 0 observe\)/)
      assert.match(inspected.stderr, /→ com\.example\.deny\/\S+ \(intercept, .+, http\): answered in \d+ ms: deny/)
      assert.match(inspected.stderr, /⇒ deny, \\"no rm\\" \(by com\.example\.deny\/\S+\)/)
    }))

  it.scopedLive("inspect: a stdio backend's exchange time includes starting its process", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const backend = scriptedStdio("ok", path.join(dir, "log"))
      // The child spends a second starting (before it reads its stdin): the exchange is at least that.
      const slow = {
        ...backend,
        command: "/bin/sh",
        args: ["-c", `sleep 1; exec "$0" "$@"`, backend.command, ...backend.args]
      }
      const run = yield* runInProcess([
        "inspect",
        "--backend",
        writeFile(dir, "backend.json", { id: "com.example.slow", transport: slow }),
        "--event",
        writeFile(dir, "event.json", toolBefore("ls")),
        "--json"
      ])
      assert.strictEqual(run.code, 0, run.stdout + run.stderr)
      const { timings } = output(run)
      assert.isAtLeast(timings.exchangeMs, 1000, JSON.stringify(timings))
      assert.isAtLeast(timings.totalMs, timings.exchangeMs)
    }))
})
