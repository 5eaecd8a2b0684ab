/**
 * `--audit` on the host bridge, run for real: `ahp hook` writes the record of the call it
 * settles (and does not forward it to a bridge), `ahp bridge --audit` writes one record per
 * call it answers, with the event only under `--audit-content`; an audit file that cannot be
 * opened never keeps the hook from answering.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { answerOf, hookEnv, rmRfPayload, runHook } from "./hookSupport.js"
import { eventually, intercept, registration, scriptedStdio, startCli, tempDir, writeFile } from "./support.js"

const payload = rmRfPayload

const policy = (log: string) =>
  registration({
    id: "com.example.policy",
    transport: scriptedStdio(`effects=${JSON.stringify([{ type: "deny", reason: "destructive" }])}`, log),
    subscriptions: [intercept(["tool.before"], { id: "guard", failurePolicy: "fail-closed" })]
  })

const records = (file: string): Array<any> =>
  fs.existsSync(file)
    ? fs.readFileSync(file, "utf8").trim().split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))
    : []

describe("--audit on the host bridge", () => {
  it.scopedLive("ahp hook --audit records the call it settles itself, even with a bridge running", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const reg = writeFile(dir, "registration.json", policy(path.join(dir, "backend.log")))
      const socket = path.join(dir, "run", "bridge.sock")
      const bridgeAudit = path.join(dir, "bridge-audit.jsonl")
      const env = hookEnv(dir, { AHP_BRIDGE_SOCKET: socket })
      const bridge = yield* startCli(["bridge", "--registration", reg, "--audit", bridgeAudit, "--audit-content"], {
        cwd: dir,
        env
      })
      yield* eventually(() => bridge.stdout().includes(`listening on socket ${socket}`))

      const forwarded = yield* runHook(["claude-code", "--registration", reg], payload, {
        dir,
        env: { AHP_BRIDGE_SOCKET: socket }
      })
      assert.strictEqual(answerOf(forwarded).hookSpecificOutput.permissionDecision, "deny")
      const [fromBridge] = yield* eventually(() => records(bridgeAudit).length === 1 ? records(bridgeAudit) : undefined)
      assert.strictEqual(fromBridge.settlement.decision, "deny")
      assert.deepStrictEqual(fromBridge.settlement.stoppedAt, { backend: "com.example.policy", subscription: "guard" })
      assert.strictEqual(
        fromBridge.content.event.tool.input.command,
        "rm -rf /",
        "the bridge's records carry the event"
      )

      const hookAudit = path.join(dir, "hook-audit.jsonl")
      const audited = yield* runHook(["claude-code", "--registration", reg, "--audit", hookAudit], payload, {
        dir,
        env: { AHP_BRIDGE_SOCKET: socket }
      })
      assert.strictEqual(answerOf(audited).hookSpecificOutput.permissionDecision, "deny")
      const [own] = records(hookAudit)
      assert.strictEqual(own.settlement.decision, "deny")
      assert.strictEqual(own.event.source, "urn:effect-ahp:claude-code")
      assert.deepStrictEqual(own.interceptors.map((i: any) => [i.backend, i.outcome]), [[
        "com.example.policy",
        "accepted"
      ]])
      assert.isUndefined(own.content, "no content without --audit-content")
      assert.notInclude(fs.readFileSync(hookAudit, "utf8"), "rm -rf")
      assert.strictEqual(records(bridgeAudit).length, 1, "not forwarded to the bridge")

      const unwritable = yield* runHook(
        ["claude-code", "--registration", reg, "--audit", path.join(dir, "no", "such", "dir", "a.jsonl")],
        payload,
        {
          dir,
          env: { AHP_BRIDGE_SOCKET: socket }
        }
      )
      assert.strictEqual(answerOf(unwritable).hookSpecificOutput.permissionDecision, "deny", "still answered")
      assert.include(unwritable.stderr, "cannot open the audit file")
      bridge.child.kill("SIGTERM")
      yield* bridge.done
    }))
})
