/**
 * Observation through the real transports: who receives `hooks/observe` after a
 * fail-closed short-circuit, how a hanging HTTP observer is bounded, and that an
 * interrupted call kills its stdio interceptor and starts no observation.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Fiber } from "effect"
import * as path from "node:path"
import {
  alive,
  failures,
  intercept,
  nodeTransports,
  observe,
  openHooks,
  readLog,
  registration,
  running,
  scriptedHttp,
  scriptedStdio,
  startedPids,
  stdioMessages,
  tempDir,
  toolBefore,
  tracked,
  waitForLog,
  waitUntil,
  waitUntilEffect
} from "../support/e2e.js"

const CALLED = "com.example.called"
const FAILING = "com.example.failing"
const UNCALLED = "com.example.uncalled"
const margin = 2500
const killGrace = 300

const messagesFor = (log: string, eventId: string) =>
  Effect.map(stdioMessages(log), (ms) => ms.filter((m) => m.eventId === eventId).map((m) => m.method))

describe.concurrent("observation through real transports", () => {
  it.scopedLive(
    "after a fail-closed short-circuit the uncalled interceptor observes, explicit observers get their own copy, " +
      "called interceptors none",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const logs = {
          called: path.join(dir, "called.log"),
          failing: path.join(dir, "failing.log"),
          uncalled: path.join(dir, "uncalled.log")
        }
        const reg = registration([
          {
            id: CALLED,
            transport: scriptedStdio("persistent", "ok", "--log", logs.called),
            subscriptions: [intercept("fail-closed", 10_000), observe(["tool.*"])]
          },
          {
            id: FAILING,
            transport: scriptedStdio("persistent", "garbage", "--log", logs.failing),
            subscriptions: [intercept("fail-closed", 10_000)]
          },
          {
            id: UNCALLED,
            transport: scriptedStdio("persistent", "ok", "--log", logs.uncalled),
            subscriptions: [intercept("fail-open", 10_000), observe(["tool.before"])]
          }
        ])
        const { close, hooks } = yield* openHooks(reg, nodeTransports({}))
        // The call starts the three persistent children (their readers and pipes outlive it).
        const { fibers, result } = yield* tracked(hooks.dispatch("tool.before", toolBefore("evt_short")))
        assert.strictEqual(result.decision.permission, "deny")
        assert.isTrue(result.decision.denial?.synthetic)
        assert.deepStrictEqual(
          failures(result.errors).map((e) => [e.backend, e.code, e.syntheticDenial]),
          [[FAILING, "malformed", true]]
        )
        assert.deepStrictEqual(
          result.observations.map((o) => [o.backend, o.mode, o.outcome]),
          [[CALLED, "observe", "delivered"], [UNCALLED, "observe", "delivered"], [UNCALLED, "intercept", "delivered"]]
        )
        // Notifications to persistent children are delivered once queued: wait for them.
        const observed = (log: string, count: number) =>
          Effect.map(
            readLog(log),
            (es) => es.filter((e) => e.event === "message" && e.message?.method === "hooks/observe").length >= count
          )
        yield* waitUntilEffect("two observations at the uncalled backend", observed(logs.uncalled, 2))
        yield* waitUntilEffect("one observation at the called backend", observed(logs.called, 1))
        assert.deepStrictEqual(
          yield* messagesFor(logs.uncalled, "evt_short"),
          ["hooks/observe", "hooks/observe"],
          "one copy for the uncalled intercept subscription, one for the explicit observer; never an intercept"
        )
        assert.deepStrictEqual(
          yield* messagesFor(logs.called, "evt_short"),
          ["hooks/intercept", "hooks/observe"],
          "the called interceptor gets only its explicit observer's copy"
        )
        assert.deepStrictEqual(
          yield* messagesFor(logs.failing, "evt_short"),
          ["hooks/intercept"],
          "no copy for the failed interceptor"
        )
        yield* close
        assert.deepStrictEqual(yield* running(fibers), [], "every fiber the call started has ended with the layer")
        const pids = (yield* Effect.forEach([logs.called, logs.failing, logs.uncalled], startedPids)).flat()
        assert.strictEqual(pids.length, 3)
        assert.deepStrictEqual(alive(pids), [])
      })
  )

  it.scopedLive("a hanging HTTP observer is bounded by observationTimeoutMs and leaves nothing running", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const observer = yield* scriptedHttp(dir, "observer", "hang")
      const interceptor = yield* scriptedHttp(dir, "interceptor", `effects=[{"type":"ask"}]`)
      const observationTimeoutMs = 400
      const reg = registration([
        {
          id: CALLED,
          transport: { type: "http", url: interceptor.url },
          subscriptions: [intercept("fail-closed", 10_000)]
        },
        {
          id: UNCALLED,
          transport: { type: "http", url: observer.url },
          subscriptions: [observe(["tool.before"])]
        }
      ])
      const { close, hooks } = yield* openHooks(reg, nodeTransports({}), { observationTimeoutMs })
      const { elapsed, live, result } = yield* tracked(hooks.dispatch("tool.before", toolBefore("evt_hang")))
      assert.deepStrictEqual(live, [], "the delivery was retired, not left running")
      assert.strictEqual(result.decision.permission, "ask", "the observer cannot change the decision")
      assert.deepStrictEqual(failures(result.errors), [])
      assert.deepStrictEqual(
        result.observations.map((o) => [o.backend, o.mode, o.outcome, o.code]),
        [[UNCALLED, "observe", "timeout", "timeout"]]
      )
      assert.isAtLeast(elapsed, observationTimeoutMs - 20)
      assert.isBelow(elapsed, observationTimeoutMs + margin)
      // The observer saw the notification, then the harness dropped the request.
      yield* waitForLog(observer.log, (e) => e.event === "request" && e.body?.includes("evt_hang") === true)
      yield* waitForLog(observer.log, (e) => e.event === "closed")
      yield* close
    }))

  it.scopedLive("an interrupted call kills and reaps its stuck stdio interceptor and starts no observation", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const logs = {
        hung: path.join(dir, "hung.log"),
        later: path.join(dir, "later.log"),
        observer: path.join(dir, "observer.log")
      }
      const reg = registration([
        {
          id: FAILING,
          transport: scriptedStdio("persistent", "hang", "--log", logs.hung),
          subscriptions: [intercept("fail-open", 30_000)]
        },
        {
          id: UNCALLED,
          transport: scriptedStdio("persistent", "ok", "--log", logs.later),
          subscriptions: [intercept("fail-open", 10_000)]
        },
        {
          id: CALLED,
          transport: scriptedStdio("persistent", "ok", "--log", logs.observer),
          subscriptions: [observe(["tool.before"])]
        }
      ])
      // No start-up allowance: the interrupted child is retired like any other.
      const { close, hooks } = yield* openHooks(
        reg,
        nodeTransports({ stdio: { killGrace: `${killGrace} millis`, startupTimeout: "0 millis" } })
      )
      const interrupt = yield* Deferred.make<void>()
      const fiber = yield* Effect.fork(
        tracked(hooks.dispatch("tool.before", toolBefore("evt_interrupt"), { interrupt: Deferred.await(interrupt) }))
      )
      // The interceptor has the request: it is stuck now.
      const received = yield* waitForLog(logs.hung, (e) => e.event === "message")
      const interrupted = Date.now()
      yield* Deferred.succeed(interrupt, undefined)
      const { live, result } = yield* Fiber.join(fiber)
      assert.isBelow(Date.now() - interrupted, killGrace + margin, "the call returns promptly")
      assert.isTrue(result.interrupted)
      assert.notStrictEqual(result.decision.permission, "allow")
      assert.isUndefined(result.decision.candidate)
      assert.deepStrictEqual(failures(result.errors), [], "an interruption is no route failure (nor fail-open)")
      assert.deepStrictEqual(result.observations, [], "no observation is started after an interruption")
      assert.deepStrictEqual(live, [], "no fiber of the call is left running")
      // Stopping it is not awaited by the call: it goes on in the background.
      yield* waitUntil("the stuck child to be killed and reaped", () => alive([received.pid]).length === 0)
      // Started when the harness was built, but sent nothing.
      assert.deepStrictEqual(yield* stdioMessages(logs.later), [], "the later interceptor is never called")
      assert.deepStrictEqual(yield* stdioMessages(logs.observer), [], "the observer is never sent anything")
      yield* close
      assert.deepStrictEqual(yield* stdioMessages(logs.observer), [])
    }))
})
