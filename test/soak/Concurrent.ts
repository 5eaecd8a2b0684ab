/**
 * The concurrency soak: `callers` fibers dispatch `tool.before` through one `Hooks` side by
 * side for the run's time, against a persistent stdio backend and HTTP backends that
 * misbehave at random, with the sequential soak's oracle.
 *
 * Requests from concurrent callers reach a backend in no known order, so no backend follows
 * a `--sequence`: every event names what each backend does with it (`tool.input.plan`, read
 * by the scripted backend's `--keyed`), and the expected decision is `plan.replay` of that
 * one dispatch. The persistent stdio backend is shared by every caller, so it draws only
 * behaviours that leave its process serving (answers, slow answers, JSON-RPC errors, exact
 * huge numbers); a hang, a crash or garbage there would retire the child under every call in
 * flight. The HTTP backends draw from their whole catalogue (hangs, resets, 500s, bodies
 * that are not JSON or nested too deep, answers after the deadline).
 *
 * The report: dispatches, wrong decisions (must be 0), late ones (a route past its deadline
 * only because the machine was busy, the policy applied: reported apart), backend processes
 * left over after the run (must be 0) and fibers alive after it (back to the baseline).
 */
import { DispatchResult, Hooks } from "@effect-ahp/harness"
import { NodeTransports } from "@effect-ahp/node"
import type { Json } from "@effect-ahp/protocol"
import { Effect, Layer, ManagedRuntime, Supervisor } from "effect"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { scriptedBackend } from "../bench/fixtures.js"
import { type HttpServer, httpServer } from "../bench/raw.js"
import * as Epoch from "./Epoch.js"
import * as plan from "./plan.js"

/** How long and how wide to soak. */
export interface Options {
  readonly durationMs: number
  /** Dispatching fibers side by side (default 256). */
  readonly callers?: number | undefined
  /** The seed of every random choice (printed, so a run can be replayed). */
  readonly seed?: number | undefined
  /** HTTP backends behind the stdio one (default 2). */
  readonly httpBackends?: number | undefined
}

/** What the concurrency soak found. */
export interface Report {
  readonly seed: number
  readonly callers: number
  readonly elapsedMs: number
  readonly dispatches: number
  readonly wrongDecisions: number
  readonly wrongSamples: ReadonlyArray<string>
  readonly late: number
  readonly lateSamples: ReadonlyArray<string>
  readonly processesStarted: number
  readonly processesLeft: ReadonlyArray<number>
  readonly fibersBaseline: number
  readonly fibersAfter: number
  /** The checks that failed (empty when the soak passed). */
  readonly failed: ReadonlyArray<string>
}

/** What the shared persistent child may be asked to do without ending it for the other callers. */
const sharedSafe = new Set(["ok", "allow", "ask", "deny", "merge", "slow", "error", "huge numbers"])

const eligible = (kind: plan.Kind): ReadonlyArray<plan.Behaviour> =>
  plan.behaviours.filter((b) => b.kinds.includes(kind) && (kind !== "stdio" || sharedSafe.has(b.name)))

/** The backends: one persistent stdio, then `http` HTTP ones, each with a random failure policy. */
const backendsOf = (rng: plan.Random, http: number) =>
  [{ kind: "stdio" as const }, ...Array.from({ length: http }, () => ({ kind: "http" as const }))].map((b, i) => ({
    id: `com.example.concurrent.b${i}`,
    kind: b.kind,
    policy: rng.chance(0.5) ? "fail-open" as const : "fail-closed" as const,
    eligible: eligible(b.kind)
  }))

type Backend = ReturnType<typeof backendsOf>[number]

/** One dispatch's plan: the behaviour each backend is to show it, as a one-request `BackendPlan`. */
const planDispatch = (rng: plan.Random, backends: ReadonlyArray<Backend>): Array<plan.BackendPlan> =>
  backends.map((b) => {
    const behaviour = plan.weighted(rng, b.eligible)
    return {
      id: b.id,
      kind: b.kind,
      policy: b.policy,
      sequence: [behaviour],
      sequenceArg: behaviour.entry.replace("MERGE_KEY", plan.mergeKey(b.id, 0)),
      grandchild: false,
      uploads: []
    }
  })

const eventOf = (plans: ReadonlyArray<plan.BackendPlan>, n: number): Json.JsonObject => ({
  session: { id: "sess_concurrent" },
  tool: {
    name: "Bash",
    kind: "shell",
    input: { command: "make", plan: Object.fromEntries(plans.map((p) => [p.id, p.sequenceArg])) },
    origin: "native"
  },
  call: { id: `call_${n}` },
  path: "native"
})

const registrationOf = (backends: ReadonlyArray<Backend>, transports: ReadonlyArray<Json.JsonObject>) => ({
  protocolVersion: "draft",
  hooks: backends.map((b, i) => ({
    id: b.id,
    transport: transports[i]!,
    subscriptions: [{
      mode: "intercept",
      events: ["tool.before"],
      timeoutMs: plan.timeoutMs,
      failurePolicy: b.policy,
      content: { default: "body" }
    }]
  }))
})

/** Runs the concurrency soak. */
export const run = async (options: Options): Promise<Report> => {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31)
  const callers = options.callers ?? 256
  const rng = plan.random(seed)
  const started = Date.now()
  // set once the backends are up: their start-up on a loaded machine is not the run's time
  let deadline = Infinity
  const dir = mkdtempSync(join(tmpdir(), "ahp-concurrent-soak-"))
  const supervisor = Supervisor.unsafeTrack()
  const fibersBaseline = Effect.runSync(supervisor.value).length
  const backends = backendsOf(rng, options.httpBackends ?? 2)
  const log = (b: Backend) => join(dir, `${b.id}.log`)
  const servers: Array<HttpServer> = []
  const wrongSamples: Array<string> = []
  const lateSamples: Array<string> = []
  let dispatches = 0
  let wrong = 0
  let late = 0
  let processesStarted = 0
  let processesLeft: Array<number> = []
  try {
    const transports: Array<Json.JsonObject> = []
    for (const b of backends) {
      const args = ["--keyed", b.id, "--log", log(b)]
      if (b.kind === "http") {
        const server = await httpServer("ok", ...args)
        servers.push(server)
        transports.push({ type: "http", url: server.url })
      } else {
        transports.push({
          type: "stdio",
          command: process.execPath,
          args: [scriptedBackend, "stdio", "ok", ...args],
          lifecycle: "persistent"
        })
      }
    }
    const runtime = ManagedRuntime.make(
      Hooks.layerUnknown(registrationOf(backends, transports), { observationTimeoutMs: plan.timeoutMs }).pipe(
        Layer.provide(NodeTransports.layerNode())
      )
    )
    // every caller dispatches at least once, however late it got to run
    const caller = async () => {
      do {
        const n = dispatches++
        const plans = planDispatch(rng, backends)
        const expected = plan.replay(plans, new Map())
        const huge = new Set(plan.hugeKeys(plans))
        const outcome = await runtime.runPromise(
          Effect.either(Effect.supervised(Hooks.dispatchUnknown("tool.before", eventOf(plans, n)), supervisor))
        )
        if (outcome._tag === "Left") {
          wrong++
          if (wrongSamples.length < 10) wrongSamples.push(`dispatch ${n}: failed: ${outcome.left.message}`)
          continue
        }
        const result: DispatchResult.DispatchResult = outcome.right
        const found = Epoch.problems(result, expected, huge)
        if (found.length === 0) continue
        const steps = expected.steps.join("; ")
        if (Epoch.onlyLate(result, expected, (lateRoutes) => plan.replay(plans, new Map(), false, lateRoutes))) {
          late++
          if (lateSamples.length < 10) lateSamples.push(`dispatch ${n} [${steps}]: ${found.join("; ")}`)
        } else {
          wrong++
          if (wrongSamples.length < 10) wrongSamples.push(`dispatch ${n} [${steps}]: ${found.join("; ")}`)
        }
      } while (Date.now() < deadline)
    }
    try {
      deadline = Date.now() + options.durationMs
      await Promise.all(Array.from({ length: callers }, caller))
    } finally {
      await runtime.dispose()
    }
  } finally {
    await Promise.all(servers.map((s) => s.close()))
    const pids = backends.flatMap((b) => Epoch.logEntries(log(b)).filter((e) => e.event === "start").map((e) => e.pid))
    processesStarted = new Set(pids).size
    processesLeft = Epoch.running([...new Set(pids)])
    rmSync(dir, { recursive: true, force: true })
  }
  const fibersAfter = Effect.runSync(supervisor.value).length
  const failed = [
    ...(wrong > 0 ? ["wrong decisions"] : []),
    ...(processesLeft.length > 0 ? ["child processes left over"] : []),
    ...(fibersAfter > fibersBaseline ? ["live fibers above the baseline"] : []),
    ...(dispatches === 0 ? ["no dispatch ran"] : []),
    ...(dispatches > 0 && dispatches === late ? ["no dispatch was decided in time"] : [])
  ]
  return {
    seed,
    callers,
    elapsedMs: Date.now() - started,
    dispatches,
    wrongDecisions: wrong,
    wrongSamples,
    late,
    lateSamples,
    processesStarted,
    processesLeft,
    fibersBaseline,
    fibersAfter,
    failed
  }
}

/** The report as text. */
export const format = (r: Report): string =>
  [
    `concurrency soak: ${
      (r.elapsedMs / 60_000).toFixed(2)
    } min, seed ${r.seed}, ${r.callers} callers through one Hooks`,
    `dispatches: ${r.dispatches}`,
    `wrong decisions: ${r.wrongDecisions}`,
    ...r.wrongSamples.map((w) => `  ${w}`),
    `late on a busy machine (a route past its deadline, the policy applied): ${r.late}`,
    ...r.lateSamples.map((w) => `  ${w}`),
    `backend processes left over: ${r.processesLeft.length} of ${r.processesStarted} started`,
    `live fibers after the run: ${r.fibersAfter} (baseline ${r.fibersBaseline})`,
    `result: ${r.failed.length === 0 ? "PASS" : `FAIL (${r.failed.join(", ")})`}`
  ].join("\n")
