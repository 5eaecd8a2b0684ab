/**
 * Hostile stdio backends through the real harness and the real Node transport: a
 * persistent child that ignores SIGTERM (the decision returns at the deadline), process
 * groups with grandchildren that ignore SIGTERM, a per_event backend that answers and
 * exits nonzero, stderr tails with secrets redacted, persistent start-up when the harness
 * is built, and a start-up failure. Every test checks with `ps` that nothing carrying its
 * temporary folder is left once the harness is closed.
 */
import { Credentials } from "@effect-ahp/node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Logger } from "effect"
import * as path from "node:path"
import {
  failures,
  hostileStdio,
  intercept,
  nodeTransports,
  observe,
  openHooks,
  readLog,
  registration,
  startedPids,
  tempDir,
  toolBefore,
  waitForLog,
  waitUntil
} from "../support/e2e.js"
import { processesWith } from "../support/processes.mjs"

const BACKEND = "com.example.hostile"

/** Builds the harness over the real Node transports; `close` closes it and checks `ps` for leftovers in `dir`. */
const harness = (dir: string, hooks: ReadonlyArray<Parameters<typeof registration>[0][number]>, stdio = {}) =>
  Effect.map(
    openHooks(
      registration(hooks),
      nodeTransports({ stdio: { killGrace: "300 millis", ...stdio } }, Credentials.layerEnv())
    ),
    (opened) => ({
      hooks: opened.hooks,
      close: Effect.gen(function*() {
        yield* opened.close
        assert.deepStrictEqual(processesWith(dir), [], "no process of this test is left")
      })
    })
  )

const grandchildrenOf = (log: string) =>
  Effect.map(readLog(log), (entries) => entries.filter((e) => e.event === "grandchild").map((e) => e.pid))

describe.concurrent("hostile stdio backends", () => {
  it.scopedLive("a persistent child ignoring SIGTERM: the decision returns at the deadline, not after the kill grace", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "hostile.log")
      const { close, hooks } = yield* harness(dir, [{
        id: BACKEND,
        transport: hostileStdio("persistent", "--ignore-sigterm", "--answer", "none", "--log", log),
        subscriptions: [intercept("fail-closed", 300)]
      }], { killGrace: "6 seconds", startupTimeout: "0 millis" })
      yield* waitForLog(log, (e) => e.event === "ready")
      const started = Date.now()
      const result = yield* hooks.dispatch("tool.before", toolBefore("evt_sigterm"))
      const elapsed = Date.now() - started
      assert.isBelow(
        elapsed,
        300 + 3000,
        "returned at the deadline plus slack (a loaded machine); the 6 s kill grace runs in the background"
      )
      assert.strictEqual(result.decision.permission, "deny")
      assert.deepStrictEqual(failures(result.errors).map((e) => e.code), ["timeout"])
      const [pid] = yield* startedPids(log)
      yield* waitUntil(
        "the child to be SIGKILLed after the grace",
        () => processesWith(log).every((p) => p.pid !== pid)
      )
      yield* close
    }))

  it.scopedLive("grandchildren that ignore SIGTERM are stopped: per_event after every event, persistent at close", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const perEventLog = path.join(dir, "per-event.log")
      const persistentLog = path.join(dir, "persistent.log")
      const { close, hooks } = yield* harness(dir, [
        {
          id: "com.example.per-event",
          transport: hostileStdio("per_event", "--grandchild", "quiet", "--log", perEventLog),
          subscriptions: [intercept("fail-closed", 10_000), observe(["tool.before"])]
        },
        {
          id: "com.example.persistent",
          transport: hostileStdio("persistent", "--grandchild", "hold", "--log", persistentLog),
          subscriptions: [intercept("fail-closed", 10_000)]
        }
      ])
      for (const id of ["evt_g1", "evt_g2", "evt_g3"]) {
        const result = yield* hooks.dispatch("tool.before", toolBefore(id))
        assert.deepStrictEqual(failures(result.errors), [])
        assert.deepStrictEqual(result.observations.map((o) => o.outcome), ["delivered"])
      }
      const perEvent = yield* grandchildrenOf(perEventLog)
      assert.strictEqual(perEvent.length, 6, "one grandchild per message: three requests, three notifications")
      yield* waitUntil("every per_event grandchild to be stopped", () => processesWith(perEventLog).length === 0)
      assert.strictEqual((yield* grandchildrenOf(persistentLog)).length, 1)
      assert.strictEqual(processesWith(persistentLog).length, 2, "the persistent child and its grandchild run")
      yield* close
    }))

  for (const policy of ["fail-closed", "fail-open"] as const) {
    it.scopedLive(`per_event: answering allow and exiting 1 is an operational failure (${policy})`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const { close, hooks } = yield* harness(dir, [{
          id: BACKEND,
          transport: hostileStdio(
            "per_event",
            "--answer",
            "allow",
            "--exit",
            "1",
            "--stderr",
            "warning: policy cache is stale\n",
            "--log",
            path.join(dir, "hostile.log")
          ),
          subscriptions: [intercept(policy, 10_000)]
        }])
        const result = yield* hooks.dispatch("tool.before", toolBefore("evt_exit1"))
        assert.strictEqual(result.decision.permission, policy === "fail-closed" ? "deny" : "none")
        assert.strictEqual(result.decision.denial?.synthetic, policy === "fail-closed" ? true : undefined)
        const [failure] = failures(result.errors)
        assert.deepStrictEqual([failure?.phase, failure?.code, failure?.syntheticDenial], [
          "transport",
          "exited",
          policy === "fail-closed"
        ])
        assert.include(failure?.detail, "ended with exit code 1")
        assert.include(failure?.detail, "warning: policy cache is stale")
        yield* close
      }))
  }

  it.scopedLive("a failure's stderr tail redacts the values passed to the child and every tokenEnv value (read through Config)", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      process.env.AHP_E2E_STDIO_PASSED = "passed-secret-0123"
      const tokens = ConfigProvider.fromMap(new Map([["AHP_E2E_HTTP_TOKEN", "bearer-secret-4567"]]))
      const { close, hooks } = yield* Effect.withConfigProvider(
        harness(dir, [
          {
            id: BACKEND,
            transport: {
              ...hostileStdio(
                "persistent",
                "--stderr-exit",
                "fatal: passed-secret-0123 rejected by upstream (bearer-secret-4567)",
                "--log",
                path.join(dir, "hostile.log")
              ),
              "org.effect-ahp.env": { inherit: ["AHP_E2E_STDIO_PASSED"] }
            },
            subscriptions: [intercept("fail-open", 10_000)]
          },
          {
            id: "com.example.http",
            transport: { type: "http", url: "http://127.0.0.1:9/hooks" },
            authentication: { type: "bearer", tokenEnv: "AHP_E2E_HTTP_TOKEN" },
            subscriptions: [observe(["session.start"])]
          }
        ]),
        tokens
      )
      const result = yield* hooks.dispatch("tool.before", toolBefore("evt_stderr"))
      const [failure] = failures(result.errors)
      assert.strictEqual(failure?.code, "exited", failure?.detail)
      assert.include(failure?.detail, `stderr: "fatal: [redacted] rejected by upstream ([redacted])"`, failure?.detail)
      assert.notInclude(failure?.detail, "secret", failure?.detail)
      yield* close
    }))

  it.scopedLive("a JSON-RPC error answer is quoted with its message and data, the values passed to the child masked", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      process.env.AHP_E2E_STDIO_PASSED = "passed-secret-0123"
      const { close, hooks } = yield* harness(dir, [{
        id: BACKEND,
        transport: {
          ...hostileStdio(
            "persistent",
            "--error",
            "policy \u001b[31mrejected\u001b[0m passed-secret-0123",
            "--log",
            path.join(dir, "hostile.log")
          ),
          "org.effect-ahp.env": { inherit: ["AHP_E2E_STDIO_PASSED"] }
        },
        subscriptions: [intercept("fail-closed", 10_000)]
      }])
      const result = yield* hooks.dispatch("tool.before", toolBefore("evt_error"))
      const [failure] = failures(result.errors)
      assert.strictEqual(failure?.code, "jsonrpc-error", failure?.detail)
      assert.strictEqual(
        failure?.detail,
        `the backend answered with JSON-RPC error -32003: "policy \\u001b[31mrejected\\u001b[0m [redacted]"` +
          ` (data: {"rejected":"policy \\u001b[31mrejected\\u001b[0m [redacted]"})`
      )
      assert.strictEqual(result.decision.permission, "deny")
      yield* close
    }))

  it.scopedLive("a persistent backend slower to start than its timeout answers the first call made once it is up", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "slow.log")
      const { close, hooks } = yield* harness(dir, [{
        id: BACKEND,
        transport: hostileStdio("persistent", "--startup", "2500", "--answer", "allow", "--log", log),
        subscriptions: [intercept("fail-closed", 1000)]
      }])
      // Started when the harness was built, not by the first call.
      yield* waitForLog(log, (e) => e.event === "ready")
      for (const id of ["evt_slow1", "evt_slow2"]) {
        const result = yield* hooks.dispatch("tool.before", toolBefore(id))
        assert.deepStrictEqual(failures(result.errors), [])
        assert.strictEqual(result.decision.permission, "allow")
      }
      assert.strictEqual((yield* startedPids(log)).length, 1, "never retired and restarted")
      yield* close
    }))

  it.scopedLive("a persistent backend that cannot start is logged when the harness is built, and fails each call", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const lines: Array<string> = []
      const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => lines.push(String(message))))
      const { close, hooks } = yield* harness(dir, [{
        id: BACKEND,
        transport: { type: "stdio", command: path.join(dir, "missing-backend"), lifecycle: "persistent" },
        subscriptions: [intercept("fail-closed", 2000)]
      }]).pipe(Effect.provide(logger))
      assert.deepStrictEqual(lines, [
        `backend ${BACKEND} could not be started: spawn: could not start ${path.join(dir, "missing-backend")}: ` +
        "no such file (ENOENT)"
      ])
      const result = yield* hooks.dispatch("tool.before", toolBefore("evt_missing"))
      assert.strictEqual(result.decision.permission, "deny")
      assert.deepStrictEqual(failures(result.errors).map((e) => [e.code, e.detail]), [[
        "spawn",
        `could not start ${path.join(dir, "missing-backend")}: no such file (ENOENT)`
      ]])
      yield* close
    }))
})
