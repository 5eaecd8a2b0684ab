/**
 * Secrets in every output (issue 33): a backend reached with a bearer token whose JSON-RPC
 * error quotes the `Authorization` header it received — so its error text carries the token
 * — is called through `ahp dispatch` (with an audit and `--audit-content`), `inspect`
 * (text and `--json`), `test`, `replay`, `hook … --verbose` (with an audit) and `auth
 * status`, each at `--log-level debug` where it takes one. The token appears on no stdout,
 * stderr or audit file; the backend's error text is in no log line and no audit file, and
 * where a result shows it to the user (dispatch's JSON, inspect, the hook's trace) the
 * token in it is redacted.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { hookEnv, rmRfPayload, runHook } from "./hookSupport.js"
import { runInProcess } from "./inProcess.js"
import { intercept, registration, runCli, scriptedHttp, tempDir, toolBefore, writeFile } from "./support.js"

const token = "probe-secret-4c1e7d0b9a"

describe("hostile: secrets in every output", () => {
  it.scopedLive("a bearer token echoed in a backend's error text reaches no output, log or audit", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const echo = yield* scriptedHttp(dir, "echo", "error-echo-auth")
      const backend = {
        id: "com.example.echo",
        transport: { type: "http", url: echo.url },
        authentication: { type: "bearer", tokenEnv: "AHP_PROBE_TOKEN" },
        subscriptions: [intercept(["tool.before"], { id: "s", failurePolicy: "fail-closed" })]
      }
      const reg = writeFile(dir, "registration.json", registration(backend))
      const event = writeFile(dir, "event.json", toolBefore("rm -rf /"))
      const env = { AHP_PROBE_TOKEN: token }
      const audit = path.join(dir, "audit.jsonl")
      const hookAudit = path.join(dir, "hook-audit.jsonl")
      const debug = ["--log-level", "debug"]
      const runs = {
        dispatch: yield* runInProcess(
          ["dispatch", "--registration", reg, "--event", event, "--audit", audit, "--audit-content", ...debug],
          { env }
        ),
        inspect: yield* runInProcess(
          ["inspect", "--backend", writeFile(dir, "backend.json", backend), "--event", event, ...debug],
          { env }
        ),
        inspectJson: yield* runInProcess(
          ["inspect", "--backend", path.join(dir, "backend.json"), "--event", event, "--json", ...debug],
          { env }
        ),
        test: yield* runInProcess([
          ...debug,
          "test",
          writeFile(dir, "case.json", {
            name: "rm is denied",
            registration: "registration.json",
            event: toolBefore("rm -rf /"),
            expect: { decision: "deny" }
          })
        ], { env }),
        replay: yield* runInProcess(["replay", audit, "--registration", reg, ...debug], { env }),
        auth: yield* runInProcess(["auth", "status", "--registration", reg, ...debug], { env }),
        hook: yield* runHook(
          ["claude-code", "--registration", reg, "--verbose", "--audit", hookAudit, "--audit-content"],
          rmRfPayload,
          { dir, env: { ...env, AHP_BRIDGE_SOCKET: path.join(dir, "run", "none.sock") } }
        ),
        cliDispatch: yield* runCli(["dispatch", "--registration", reg, "--event", event, ...debug], {
          cwd: dir,
          env: hookEnv(dir, env)
        })
      }
      const echoed = yield* Effect.sync(() => fs.readFileSync(echo.log, "utf8"))
      assert.include(echoed, "request", "the backend was called")
      assert.isAbove(runs.dispatch.stdout.length, 0)
      assert.include(runs.hook.stdout, "deny", "the hook denied by its fail-closed policy")
      const files = { audit: fs.readFileSync(audit, "utf8"), hookAudit: fs.readFileSync(hookAudit, "utf8") }
      assert.include(files.audit, "com.example.echo", "the audit recorded the call")
      assert.include(files.hookAudit, "com.example.echo", "the hook's audit recorded the call")
      for (const [name, run] of Object.entries(runs)) {
        for (const said of [run.stdout, run.stderr]) {
          assert.notInclude(said, token, `${name} printed the token`)
          const logged = said.split("\n").filter((line) => line.includes("level="))
          assert.notInclude(logged.join("\n"), "refused Bearer", `${name} logged the backend's error text`)
        }
      }
      // where a result shows the backend's error (dispatch's JSON, inspect, the hook's
      // trace), the token in it is redacted
      for (const shown of [runs.dispatch.stdout, runs.inspect.stdout, runs.inspectJson.stdout, runs.hook.stderr]) {
        assert.include(shown, "refused Bearer [redacted]")
      }
      assert.include(runs.dispatch.stderr, "level=DEBUG", "the debug log was on")
      for (const [name, text] of Object.entries(files)) {
        assert.notInclude(text, token, `${name} holds the token`)
        assert.notInclude(text, "refused Bearer", `${name} holds the backend's error text`)
      }
    }))
})
