/**
 * The HTTP fault matrix, end to end: a registration with a faulty scripted HTTP backend
 * first and a healthy one second (both intercepting tool.before), through the real harness
 * and the real Node HTTP transport (undici, 127.0.0.1), once fail-open and once
 * fail-closed.
 */
import type { RouteFailure } from "@effect-ahp/harness"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Effect, Exit, Scope } from "effect"
import {
  credentialStore,
  failures,
  httpMessages,
  intercept,
  nodeTransports,
  observe,
  openHooks,
  registration,
  scriptedHttp,
  tempDir,
  toolBefore,
  tracked,
  waitForLog,
  waitUntilEffect
} from "../support/e2e.js"

type Policy = "fail-open" | "fail-closed"

const FAULTY = "com.example.faulty"
const HEALTHY = "com.example.healthy"

const maxBodyBytes = 64 * 1024
const margin = 2500
const token = "e2e-bearer-token"

const next = `effects=[{"type":"message","text":"next"}]`
const ask = `effects=[{"type":"ask"}]`

interface Case {
  readonly name: string
  /** The behaviours of the faulty event's POSTs (a 401 retry is a second POST). */
  readonly fault: ReadonlyArray<string>
  readonly args?: ReadonlyArray<string>
  readonly timeoutMs?: number
  readonly failure?: {
    readonly phase: RouteFailure.Phase
    readonly code: RouteFailure.Code
    readonly httpStatus?: number
  }
  /** POSTs the faulty backend receives for the faulty event. */
  readonly posts: number
  readonly bearer?: boolean
  /** The credential is missing during the faulty event. */
  readonly withdrawCredential?: boolean
  /** The faulty backend also observes tool.before (its observation is the fault). */
  readonly observes?: boolean
  /** The server saw the client drop the faulty request. */
  readonly dropped?: boolean
}

const status = (code: number): Case => ({
  name: `HTTP ${code}`,
  fault: [String(code)],
  failure: { phase: "transport", code: "status", httpStatus: code },
  posts: 1
})

const redirect = (code: number): Case => ({
  name: `HTTP ${code} redirect`,
  fault: [String(code)],
  failure: { phase: "transport", code: "redirect", httpStatus: code },
  posts: 1
})

const malformed = (name: string, fault: string): Case => ({
  name,
  fault: [fault],
  failure: { phase: "transport", code: "malformed" },
  posts: 1
})

const cases: ReadonlyArray<Case> = [
  status(500),
  status(503),
  status(404),
  status(201),
  redirect(302),
  redirect(307),
  { name: "401, then success with the bearer credential", fault: ["401", next], posts: 2, bearer: true },
  {
    name: "401 twice",
    fault: ["401", "401"],
    failure: { phase: "transport", code: "unauthorized", httpStatus: 401 },
    posts: 2,
    bearer: true
  },
  malformed("non-JSON body", "non-json"),
  malformed("invalid JSON declared as JSON", "invalid-json"),
  malformed("batch array", "batch"),
  malformed("result and error together", "result-and-error"),
  malformed("response to another id", "wrong-id"),
  {
    name: "oversized body",
    fault: ["oversized"],
    args: ["--size", String(maxBodyBytes * 4)],
    failure: { phase: "transport", code: "oversized" },
    posts: 1
  },
  { name: "connection reset", fault: ["reset"], failure: { phase: "transport", code: "connection" }, posts: 1 },
  // The deadline also covers the warm-up and next requests, which must be answered in
  // time on a loaded machine (a deadline is absolute: processing counts too).
  {
    name: "server that never answers",
    fault: ["never-answer"],
    timeoutMs: 2000,
    failure: { phase: "transport", code: "timeout" },
    posts: 1,
    dropped: true
  },
  {
    name: "reply after the deadline",
    fault: ["late=4000"],
    timeoutMs: 2000,
    failure: { phase: "transport", code: "timeout" },
    posts: 1,
    dropped: true
  },
  {
    name: "missing credential (nothing sent)",
    fault: [],
    failure: { phase: "transport", code: "credential" },
    posts: 0,
    bearer: true,
    withdrawCredential: true
  },
  // Requests: the intercept answer; notifications: 202 with a body. Counted per POST:
  // warm-up intercept, warm-up observe, faulty intercept, faulty observe.
  { name: "notification answered with a body", fault: [next, "notify-with-body"], posts: 2, observes: true }
]

const matrix = cases.flatMap((c) => (["fail-open", "fail-closed"] as const).map((policy) => ({ ...c, policy })))
  .map((c, index) => ({ ...c, index }))

/** One healthy server for the whole file (its log is told apart by event ids). */
const shared = Effect.runSync(Scope.make())
let healthy: { readonly url: string; readonly log: string }
beforeAll(() =>
  Effect.runPromise(
    Effect.flatMap(tempDir, (dir) => scriptedHttp(dir, "healthy", ask)).pipe(
      Scope.extend(shared),
      Effect.map((server) => void (healthy = server))
    )
  )
)
afterAll(() => Effect.runPromise(Scope.close(shared, Exit.void)))

const run = (c: Case & { readonly policy: Policy; readonly index: number }) =>
  Effect.gen(function*() {
    const ids = { warm: `evt_${c.index}_warm`, fault: `evt_${c.index}_fault`, next: `evt_${c.index}_next` }
    const dir = yield* tempDir
    // Warm-up POSTs: one intercept, plus one observation when the faulty backend observes.
    const warmPosts = c.observes === true ? [next, next] : [next]
    const sequence = [...warmPosts, ...c.fault].join(",")
    const faulty = yield* scriptedHttp(dir, "faulty", next, "--sequence", sequence, ...(c.args ?? []))
    const credentials = credentialStore({ policy: token })
    const timeoutMs = c.timeoutMs ?? 10_000
    const reg = registration([
      {
        id: FAULTY,
        transport: { type: "http", url: faulty.url },
        ...(c.bearer === true ? { authentication: { type: "bearer", tokenRef: "policy" } } : {}),
        subscriptions: [intercept(c.policy, timeoutMs), ...(c.observes === true ? [observe(["tool.before"])] : [])]
      },
      {
        id: HEALTHY,
        transport: { type: "http", url: healthy.url },
        subscriptions: [intercept("fail-closed", 20_000)]
      }
    ])
    const { close, hooks } = yield* openHooks(reg, nodeTransports({ http: { maxBodyBytes } }, credentials.layer), {
      observationTimeoutMs: 10_000
    })
    const observedByFaulty = c.observes === true ? [[FAULTY, "observe", "delivered"]] : []

    const warm = yield* hooks.dispatch("tool.before", toolBefore(ids.warm))
    assert.strictEqual(warm.decision.permission, "ask")
    assert.deepStrictEqual(warm.decision.messages, ["next"])
    assert.deepStrictEqual(failures(warm.errors), [])
    assert.deepStrictEqual(warm.observations.map((o) => [o.backend, o.mode, o.outcome]), observedByFaulty)

    if (c.withdrawCredential === true) yield* credentials.remove("policy")
    const { elapsed, live, result } = yield* tracked(hooks.dispatch("tool.before", toolBefore(ids.fault)))
    yield* credentials.set("policy", token)
    assert.deepStrictEqual(live, [], "no fiber of the call is left running")
    assert.isFalse(result.interrupted)

    const healthyCalls = (yield* httpMessages(healthy.log)).filter((m) => m.eventId === ids.fault)
    if (c.failure === undefined) {
      assert.deepStrictEqual(failures(result.errors), [])
      assert.strictEqual(result.decision.permission, "ask")
      assert.deepStrictEqual(healthyCalls.map((m) => m.method), ["hooks/intercept"])
    } else {
      const reported = failures(result.errors)
      assert.deepStrictEqual(reported.map(({ detail: _, ...rest }) => rest), [{
        backend: FAULTY,
        mode: "intercept",
        phase: c.failure.phase,
        code: c.failure.code,
        policy: c.policy,
        syntheticDenial: c.policy === "fail-closed",
        httpStatus: c.failure.httpStatus
      }])
      assert.notInclude(reported[0]!.detail, token, "no credential in diagnostics")
      if (c.policy === "fail-open") {
        assert.strictEqual(result.decision.permission, "ask", "the healthy backend's answer decides")
        assert.deepStrictEqual(healthyCalls.map((m) => m.method), ["hooks/intercept"])
      } else {
        assert.strictEqual(result.decision.permission, "deny")
        assert.isTrue(result.decision.denial?.synthetic)
        assert.deepStrictEqual(
          healthyCalls.map((m) => m.method),
          ["hooks/observe"],
          "the healthy backend is not called as interceptor; it observes the short-circuit"
        )
      }
    }
    const shortCircuited = c.failure !== undefined && c.policy === "fail-closed"
    if (c.observes === true) {
      // The intercept was accepted; the observation's answer had a body: a failed delivery.
      assert.deepStrictEqual(
        result.observations.map((o) => [o.backend, o.mode, o.outcome, o.code]),
        [[FAULTY, "observe", "failed", "malformed"]]
      )
    } else {
      assert.deepStrictEqual(
        result.observations.map((o) => [o.backend, o.mode, o.outcome]),
        shortCircuited ? [[HEALTHY, "intercept", "delivered"]] : []
      )
    }
    if (c.failure?.code === "timeout") assert.isBelow(elapsed, timeoutMs + margin)

    const faultyPostsNow = Effect.map(httpMessages(faulty.log), (ms) => ms.filter((m) => m.eventId === ids.fault))
    // The server may still be writing its log line of the last POST.
    yield* waitUntilEffect(
      "the faulty event's POSTs in the log",
      Effect.map(faultyPostsNow, (ms) => ms.length >= c.posts)
    )
    const faultyPosts = yield* faultyPostsNow
    assert.strictEqual(faultyPosts.length, c.posts, "POSTs of the faulty event")
    if (c.posts === 2 && c.observes !== true) {
      assert.strictEqual(faultyPosts[0]!.body, faultyPosts[1]!.body, "the retry sends the identical body")
    }
    if (c.bearer === true) {
      for (const post of faultyPosts) assert.deepStrictEqual(post.authorization, [`Bearer ${token}`])
    }
    if (c.dropped === true) yield* waitForLog(faulty.log, (e) => e.event === "closed")
    assert.deepStrictEqual(
      (yield* httpMessages(faulty.log)).filter((m) => m.path !== "/hooks"),
      [],
      "redirects are never followed"
    )

    // The next event, same layer.
    const after = yield* hooks.dispatch("tool.before", toolBefore(ids.next))
    assert.deepStrictEqual(failures(after.errors), [])
    assert.strictEqual(after.decision.permission, "ask")
    assert.deepStrictEqual(after.decision.messages, ["next"])
    assert.deepStrictEqual(after.observations.map((o) => [o.backend, o.mode, o.outcome]), observedByFaulty)
    const nextPosts = (yield* httpMessages(faulty.log)).filter((m) => m.eventId === ids.next)
    assert.deepStrictEqual(
      nextPosts.map((m) => m.method),
      c.observes === true ? ["hooks/intercept", "hooks/observe"] : ["hooks/intercept"]
    )
    yield* close
  })

describe.concurrent("HTTP fault matrix", () => {
  for (const c of matrix) it.scopedLive(`${c.name}, ${c.policy}`, () => run(c))
})
