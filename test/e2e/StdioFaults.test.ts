/**
 * The stdio fault matrix, end to end: a registration with a faulty scripted backend first
 * and a healthy one second (both intercepting tool.before), through the real harness and
 * the real Node stdio transport, once fail-open and once fail-closed (fail-closed alone for
 * a faulty answer that is accepted), for the persistent and the per_event lifecycle. The
 * healthy backend is served in process: what it is asked is recorded without a process of
 * its own.
 */
import { Backend, InProcess } from "@effect-ahp/backend"
import type { RouteFailure } from "@effect-ahp/harness"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Ref } from "effect"
import * as path from "node:path"
import {
  alive,
  failures,
  intercept,
  nodeTransports,
  openHooks,
  registration,
  scriptedStdio,
  startedPids,
  stdioMessages,
  tempDir,
  toolBefore,
  tracked,
  waitForLog,
  waitUntil
} from "../support/e2e.js"
import { scaled } from "../support/load.js"
import { processesWith } from "../support/processes.mjs"

type Lifecycle = "persistent" | "per_event"
type Policy = "fail-open" | "fail-closed"

const FAULTY = "com.example.faulty"
const HEALTHY = "com.example.healthy"

const killGrace = 300
const maxLineBytes = 64 * 1024
/** Slack on top of the deadline, scaled by the load factor. */
const margin = scaled(2500)

/** The faulty backend's answer to every request but the faulty one. */
const next = `effects=[{"type":"message","text":"next"}]`

/** The healthy backend, in process: it asks on every tool.before and records what it is sent. */
const healthy = Effect.gen(function*() {
  const calls = yield* Ref.make<ReadonlyArray<{ readonly method: string; readonly eventId: string }>>([])
  const record = (method: string, eventId: string) => Ref.update(calls, (all) => [...all, { method, eventId }])
  const served = yield* InProcess.fromLayer(Backend.make(
    Backend.intercept(
      "tool.before",
      (request) => Effect.as(record("hooks/intercept", request.event.id), [{ type: "ask" as const }])
    ),
    Backend.observe("tool.before", (event) => record("hooks/observe", event.id))
  ))
  return { served, calls: Ref.get(calls) }
})

interface Case {
  readonly name: string
  /** The scripted behaviour of the faulty request. */
  readonly fault: string
  readonly args?: ReadonlyArray<string>
  readonly lifecycles: ReadonlyArray<Lifecycle>
  /** The faulty subscription's deadline per lifecycle (per_event includes the spawn). */
  readonly timeoutMs?: Partial<Record<Lifecycle, number>>
  /** `undefined`: the faulty response is accepted. */
  readonly failure?: { readonly phase: RouteFailure.Phase; readonly code: RouteFailure.Code }
  /** Whether the persistent child is replaced after the fault (killed or exited). */
  readonly replaced?: boolean
}

const timeout = { phase: "transport", code: "timeout" } as const
const malformed = { phase: "transport", code: "malformed" } as const
/**
 * Deadlines for the timeout cases. They cover the warm-up and next requests too, and with
 * them the start of a child under load (persistent: restarted lazily; per_event: every
 * request), so they are small but not tiny, and scaled by the load factor.
 */
const short = { persistent: scaled(2000), per_event: scaled(4000) } as const
const both: ReadonlyArray<Lifecycle> = ["persistent", "per_event"]

const cases: ReadonlyArray<Case> = [
  { name: "hang", fault: "hang", lifecycles: both, timeoutMs: short, failure: timeout, replaced: true },
  {
    name: "exit mid-request",
    fault: "exit-mid",
    lifecycles: both,
    failure: { phase: "transport", code: "exited" },
    replaced: true
  },
  { name: "exit after replying", fault: "exit-after-reply", lifecycles: both, replaced: true },
  { name: "non-JSON line", fault: "garbage", lifecycles: both, failure: malformed },
  { name: "invalid UTF-8", fault: "invalid-utf8", lifecycles: both, failure: malformed },
  {
    name: "wrong id, then hang",
    fault: "wrong-id-hang",
    lifecycles: both,
    timeoutMs: short,
    failure: timeout,
    replaced: true
  },
  { name: "wrong id, then the right one", fault: "wrong-id", lifecycles: both },
  // The first answer (no effects) is accepted; the duplicate carries a deny that must never apply.
  { name: "duplicate reply", fault: "duplicate-deny", lifecycles: both },
  { name: "unsolicited frames before the reply", fault: "unsolicited", lifecycles: both },
  {
    name: "oversized line",
    fault: "oversized",
    args: ["--size", String(maxLineBytes * 2)],
    lifecycles: both,
    failure: { phase: "transport", code: "oversized" }
  },
  {
    name: "reply after the deadline",
    // past both deadlines of `short`, scaled alike
    fault: `late=${scaled(6000)}`,
    lifecycles: both,
    timeoutMs: short,
    failure: timeout,
    replaced: true
  },
  {
    name: "SIGTERM ignored",
    fault: "ignore-sigterm",
    lifecycles: both,
    timeoutMs: short,
    failure: timeout,
    replaced: true
  }
]

/**
 * Every case under both lifecycles; a fault that fails the call under both policies. A faulty
 * answer that is accepted runs under fail-closed alone: the policy applies to failures
 * only, and fail-closed is the one whose misapplication would show (a synthetic deny).
 */
const matrix = cases.flatMap((c) =>
  c.lifecycles.flatMap((lifecycle) =>
    (c.failure === undefined ? ["fail-closed"] as const : ["fail-open", "fail-closed"] as const).map((policy) => ({
      ...c,
      lifecycle,
      policy
    }))
  )
)

const run = (c: Case & { readonly lifecycle: Lifecycle; readonly policy: Policy }) =>
  Effect.gen(function*() {
    const dir = yield* tempDir
    const faultyLog = path.join(dir, "faulty.log")
    const { calls: healthyCallsSoFar, served } = yield* healthy
    const timeoutMs = c.timeoutMs?.[c.lifecycle] ?? 10_000
    const reg = registration([
      {
        id: FAULTY,
        transport: scriptedStdio(
          c.lifecycle,
          next,
          "--sequence",
          `${next},${c.fault}`,
          ...(c.args ?? []),
          "--log",
          faultyLog,
          "--counter",
          path.join(dir, "counter")
        ),
        subscriptions: [intercept(c.policy, timeoutMs)]
      },
      { id: HEALTHY, transport: { type: "in-process" }, subscriptions: [intercept("fail-closed", 20_000)] }
    ])
    const { close, hooks } = yield* openHooks(
      reg,
      nodeTransports({ stdio: { killGrace: `${killGrace} millis`, exitGrace: "1 second", maxLineBytes } }),
      { observationTimeoutMs: 10_000, backends: { [HEALTHY]: served } }
    )

    // Warm-up: a persistent child was started when the harness was built; this is its first
    // call, once it runs (the deadlines are short).
    if (c.lifecycle === "persistent") yield* waitForLog(faultyLog, (e) => e.event === "start")
    const warm = yield* hooks.dispatch("tool.before", toolBefore("evt_warm"))
    assert.strictEqual(warm.decision.permission, "ask")
    assert.deepStrictEqual(warm.decision.messages, ["next"])
    assert.deepStrictEqual(failures(warm.errors), [])
    const warmPids = yield* startedPids(faultyLog)

    // The faulty call.
    const { elapsed, live, result } = yield* tracked(hooks.dispatch("tool.before", toolBefore("evt_fault")))
    assert.deepStrictEqual(live, [], "no fiber of the call is left running")
    assert.isFalse(result.interrupted)
    const healthyCalls = (yield* healthyCallsSoFar).filter((m) => m.eventId === "evt_fault")
    if (c.failure === undefined) {
      assert.deepStrictEqual(failures(result.errors), [])
      assert.strictEqual(result.decision.permission, "ask")
      assert.deepStrictEqual(healthyCalls.map((m) => m.method), ["hooks/intercept"])
    } else {
      assert.deepStrictEqual(failures(result.errors).map(({ detail: _, ...rest }) => rest), [{
        backend: FAULTY,
        mode: "intercept",
        ...c.failure,
        policy: c.policy,
        syntheticDenial: c.policy === "fail-closed",
        httpStatus: undefined
      }])
      if (c.policy === "fail-open") {
        assert.strictEqual(result.decision.permission, "ask", "the healthy backend's answer decides")
        assert.deepStrictEqual(healthyCalls.map((m) => m.method), ["hooks/intercept"])
        assert.deepStrictEqual(result.observations, [])
      } else {
        assert.strictEqual(result.decision.permission, "deny")
        assert.isTrue(result.decision.denial?.synthetic)
        assert.deepStrictEqual(
          healthyCalls.map((m) => m.method),
          ["hooks/observe"],
          "the healthy backend is not called as interceptor; it observes the short-circuit"
        )
        assert.deepStrictEqual(result.observations.map((o) => [o.backend, o.mode, o.outcome]), [
          [HEALTHY, "intercept", "delivered"]
        ])
      }
    }
    if (c.failure?.code === "timeout") {
      assert.isBelow(
        elapsed,
        timeoutMs + margin,
        "the call is bounded by the deadline (stopping the child is not awaited)"
      )
    }

    const faultyPids = yield* startedPids(faultyLog)
    if (c.lifecycle === "per_event") {
      assert.strictEqual(faultyPids.length, 2, "one child per request")
      // A child that answered has exited before the call returns; one abandoned at its
      // deadline is stopped in the background.
      yield* waitUntil("the per_event children to be reaped", () => alive(faultyPids).length === 0)
    } else {
      assert.deepStrictEqual(faultyPids, warmPids, "the persistent child handled the faulty request")
      if (c.failure?.code === "timeout") {
        yield* waitUntil("the timed-out persistent child to be stopped", () => alive(faultyPids).length === 0)
      }
    }

    // The next event, same layer: served correctly, never confused by stale output.
    if (c.lifecycle === "persistent" && c.replaced === true && c.failure?.code !== "timeout") {
      // The child ended on its own: let it be reaped, so the next message goes to a new one.
      yield* waitUntil("the faulty child to end", () => alive(faultyPids).length === 0)
    }
    const after = yield* hooks.dispatch("tool.before", toolBefore("evt_next"))
    assert.deepStrictEqual(failures(after.errors), [])
    assert.strictEqual(after.decision.permission, "ask")
    assert.deepStrictEqual(after.decision.messages, ["next"])
    const faultyCalls = yield* stdioMessages(faultyLog)
    assert.deepStrictEqual(faultyCalls.map((m) => [m.method, m.eventId]), [
      ["hooks/intercept", "evt_warm"],
      ["hooks/intercept", "evt_fault"],
      ["hooks/intercept", "evt_next"]
    ], "the faulty backend never receives a notification (it was called)")
    const nextPid = faultyCalls[2]!.pid
    if (c.lifecycle === "persistent") {
      if (c.replaced === true) assert.notInclude(warmPids, nextPid, "a fresh child serves the next event")
      else assert.strictEqual(nextPid, warmPids[0], "the same child serves the next event")
    }

    yield* close
    assert.deepStrictEqual(
      alive(yield* startedPids(faultyLog)),
      [],
      "every child is reaped when the layer's scope closes"
    )
    assert.deepStrictEqual(processesWith(dir), [], "no process of this test is left")
  })

describe.concurrent("stdio fault matrix", () => {
  for (const c of matrix) it.scopedLive(`${c.lifecycle}: ${c.name}, ${c.policy}`, () => run(c))
})
