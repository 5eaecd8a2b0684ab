/**
 * `ahp bridge`, the warm path, with real processes: the command hook forwards to it over
 * its socket (the persistent backend stays up across calls), Claude Code's http hook type is
 * served, a changed registration is reloaded, another registration is not answered for, and
 * when the bridge is down the command hook dispatches the call itself.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { answerOf, hookEnv, noneAlive, rmRfPayload, runHook, startedPids } from "./hookSupport.js"
import { eventually, intercept, isAlive, registration, scriptedStdio, startCli, tempDir, writeFile } from "./support.js"

const payload = rmRfPayload

/** The backend runs in the registration's directory, named relatively (resolved against the file's directory). */
const policy = (log: string, effects: ReadonlyArray<unknown>) =>
  registration({
    id: "com.example.policy",
    transport: { ...scriptedStdio(`effects=${JSON.stringify(effects)}`, log), cwd: "." },
    subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-closed" })]
  })

const deny = [{ type: "deny", reason: "destructive" }]

describe("ahp bridge", () => {
  it.scopedLive("serves forwarded command hooks and Claude Code's http hook with one warm backend; falls back when down", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "backend.log")
      const reg = writeFile(dir, "registration.json", policy(log, deny))
      const socket = path.join(dir, "run", "bridge.sock")
      const env = hookEnv(dir, { AHP_BRIDGE_SOCKET: socket })
      const bridge = yield* startCli(["bridge", "--registration", reg, "--http", "0", "--verbose"], { cwd: dir, env })
      const url = yield* eventually(() => /listening on (http:\/\/\S+)/.exec(bridge.stdout())?.[1])
      yield* eventually(() => fs.existsSync(socket) && bridge.stdout().includes(`listening on socket ${socket}`))

      const first = yield* runHook(["claude-code", "--registration", reg, "--verbose"], payload, {
        dir,
        env: { AHP_BRIDGE_SOCKET: socket }
      })
      assert.strictEqual(answerOf(first).hookSpecificOutput.permissionDecisionReason, "destructive", first.stderr)
      assert.match(first.stderr, /ahp: {3}⇒ deny, "destructive"/)
      const second = yield* runHook(["codex", "--registration", reg], payload, {
        dir,
        env: { AHP_BRIDGE_SOCKET: socket }
      })
      assert.strictEqual(answerOf(second).hookSpecificOutput.permissionDecision, "deny")
      const secretFile = yield* eventually(() => /secret in (\S+)/.exec(bridge.stdout())?.[1])
      const secret = fs.readFileSync(secretFile, "utf8").trim()
      const http = yield* Effect.promise(() =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "x-ahp-bridge-secret": secret },
          body: payload
        }).then(async (
          r
        ) => ({
          status: r.status,
          body: (await r.json()) as any
        }))
      )
      assert.strictEqual(http.status, 200)
      assert.strictEqual(http.body.hookSpecificOutput.permissionDecision, "deny")
      const warm = startedPids(log)
      assert.strictEqual(warm.length, 2, "one persistent child per host, kept across calls")
      assert.isTrue(warm.every((pid) => isAlive(pid)))

      const other = writeFile(dir, "other.json", policy(path.join(dir, "other.log"), [{ type: "allow" }]))
      const mismatch = yield* runHook(["claude-code", "--registration", other], payload, {
        dir,
        env: { AHP_BRIDGE_SOCKET: socket }
      })
      assert.strictEqual(
        answerOf(mismatch).hookSpecificOutput.permissionDecision,
        "allow",
        "answered from its own registration"
      )

      fs.writeFileSync(reg, JSON.stringify(policy(log, [{ type: "allow" }])))
      const reloaded = yield* runHook(["claude-code", "--registration", reg], payload, {
        dir,
        env: { AHP_BRIDGE_SOCKET: socket }
      })
      assert.strictEqual(answerOf(reloaded).hookSpecificOutput.permissionDecision, "allow")
      yield* eventually(() => warm.every((pid) => !isAlive(pid)))
      assert.include(bridge.stdout() + "", "listening")

      bridge.child.kill("SIGTERM")
      yield* bridge.done
      assert.isFalse(fs.existsSync(socket), "the socket is removed")
      assert.isTrue(noneAlive(log), "the bridge stops its backends")
      const cold = yield* runHook(["claude-code", "--registration", reg], payload, {
        dir,
        env: { AHP_BRIDGE_SOCKET: socket }
      })
      assert.strictEqual(answerOf(cold).hookSpecificOutput.permissionDecision, "allow", "the hook dispatches itself")
      // stopped after the hook's exit, by its guardian
      yield* eventually(() => noneAlive(log))
    }))

  it.scopedLive("refuses a socket another bridge listens on, and reports a missing registration", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const reg = writeFile(dir, "registration.json", policy(path.join(dir, "backend.log"), deny))
      const socket = path.join(dir, "run", "bridge.sock")
      const env = hookEnv(dir)
      const bridge = yield* startCli(["bridge", "--registration", reg, "--socket", socket], { cwd: dir, env })
      yield* eventually(() => bridge.stdout().includes("listening on socket"))
      const second = yield* startCli(["bridge", "--registration", reg, "--socket", socket], { cwd: dir, env })
      const refused = yield* second.done
      assert.strictEqual(refused.code, 2)
      assert.include(refused.stderr, "another bridge already listens")
      const missing = yield* (yield* startCli(["bridge"], { cwd: dir, env })).done
      assert.strictEqual(missing.code, 2)
      assert.include(missing.stderr, "no AHP registration found")
      bridge.child.kill("SIGTERM")
      yield* bridge.done
    }))
})
