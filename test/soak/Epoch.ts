/**
 * One soak epoch: start the planned backends, build the Hooks service over the Node
 * transports, dispatch `tool.before` events one after another and check each decision
 * against the replayed expectation, then close everything and find the backend processes
 * that outlived it. Some dispatches get an `interrupt` that fires after a few milliseconds,
 * some are abandoned by interrupting the dispatching fiber; either ends the epoch once it
 * took effect, since the backends' request numbering is then no longer known.
 */
import { Hooks } from "@effect-ahp/harness"
import { NodeTransports } from "@effect-ahp/node"
import type { Json } from "@effect-ahp/protocol"
import { Duration, Effect, Layer, ManagedRuntime, Option, type Supervisor } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { scriptedBackend } from "../bench/fixtures.js"
import { httpServer, type HttpServer } from "../bench/raw.js"
import { alive } from "../support/e2e.js"
import * as plan from "./plan.js"

/** What the epochs found so far (shared by every lane). */
export interface Tally {
  epochs: number
  dispatches: number
  interrupted: number
  abandoned: number
  wrong: number
  /** The first few wrong decisions, described. */
  readonly wrongSamples: Array<string>
  processesStarted: number
  /** Pids that still existed after their epoch closed. */
  readonly processesLeft: Array<number>
}

/** An empty tally. */
export const tally = (): Tally => ({
  epochs: 0,
  dispatches: 0,
  interrupted: 0,
  abandoned: 0,
  wrong: 0,
  wrongSamples: [],
  processesStarted: 0,
  processesLeft: []
})

/** What an epoch runs with. */
export interface Context {
  readonly rng: plan.Random
  /** The epoch's directory (logs, counters). */
  readonly dir: string
  readonly name: string
  /** No dispatch starts after this time (a `Date.now()` value). */
  readonly deadline: number
  /** Tracks every fiber the dispatches start. */
  readonly supervisor: Supervisor.Supervisor<unknown>
  readonly tally: Tally
}

/** The pids a scripted backend logged at start. */
const startedPids = (log: string): Array<number> =>
  existsSync(log)
    ? readFileSync(log, "utf8").split("\n").filter((l) => l.includes("\"event\":\"start\"")).map((l) => JSON.parse(l).pid)
    : []

const plans = (ctx: Context): Array<plan.BackendPlan> => {
  const length = ctx.rng.int(30, 120)
  let perEvent = false
  return Array.from({ length: ctx.rng.int(2, 4) }, (_, i) => {
    // Per-event children start a process per message: at most one such backend an epoch.
    const kind: plan.Kind = !perEvent && ctx.rng.chance(0.12) ? "per_event" : ctx.rng.chance(0.5) ? "stdio" : "http"
    perEvent ||= kind === "per_event"
    return plan.planBackend(ctx.rng, `com.example.soak.${ctx.name}.b${i}`, kind, length)
  })
}

/** Starts the HTTP servers and returns the registration entry of every backend. */
const register = async (ctx: Context, backends: ReadonlyArray<plan.BackendPlan>, servers: Array<HttpServer>) => {
  const hooks: Array<Json.JsonObject> = []
  for (const b of backends) {
    const args = ["--sequence", b.sequenceArg, "--log", join(ctx.dir, `${b.id}.log`)]
    let transport: Json.JsonObject
    if (b.kind === "http") {
      const server = await httpServer("ok", ...args)
      servers.push(server)
      transport = { type: "http", url: server.url }
    } else {
      // The counter numbers requests across the processes that serve this backend.
      const counter = ["--counter", join(ctx.dir, `${b.id}.count`)]
      const lifecycle = b.kind === "stdio" ? "persistent" : "per_event"
      transport = { type: "stdio", command: process.execPath, args: [scriptedBackend, "stdio", "ok", ...args, ...counter], lifecycle }
    }
    const subscription = {
      mode: "intercept",
      events: ["tool.before"],
      timeoutMs: plan.timeoutMs,
      failurePolicy: b.policy,
      content: { default: "body" }
    }
    hooks.push({ id: b.id, transport, subscriptions: [subscription] })
  }
  return { protocolVersion: "draft", hooks }
}

const toolBefore = (): Json.JsonObject => ({
  session: { id: "sess_soak" },
  tool: { name: "Bash", kind: "shell", input: { command: "make" }, origin: "native" },
  call: { id: "call_soak" },
  path: "native"
})

/** The comparable part of a dispatch result. */
const observe = (result: Hooks.DispatchResult): plan.Expected => {
  const input = ((result.event.tool as Json.JsonObject).input ?? {}) as Json.JsonObject
  const denial = result.decision.denial
  return {
    permission: result.decision.permission,
    denial: denial === undefined ? undefined : { synthetic: denial.synthetic, backend: denial.provenance?.backend ?? "" },
    failures: result.errors.map((e) => `${e.backend}:${e.code}`),
    merged: Object.keys(input).filter((k) => k !== "command")
  }
}

const same = (a: plan.Expected, b: plan.Expected) => JSON.stringify(a) === JSON.stringify(b)

/**
 * What is wrong with a result, if anything. An interrupted call must have stopped at a
 * route boundary of the replay, and never grants: no `allow`, no candidate, no
 * continuation.
 */
const problems = (result: Hooks.DispatchResult, expected: plan.Replay): Array<string> => {
  const actual = observe(result)
  if (!result.interrupted) {
    const decision = expected.states[expected.states.length - 1]!
    return same(actual, decision) ? [] : [`expected ${JSON.stringify(decision)}, got ${JSON.stringify(actual)}`]
  }
  const reachable = expected.states.map((s) => ({ ...s, permission: s.permission === "allow" ? "none" as const : s.permission }))
  return [
    ...(reachable.some((s) => same(s, actual)) ? [] : [`interrupted at no route boundary: ${JSON.stringify(actual)}`]),
    ...(result.decision.candidate !== undefined || result.decision.flow === "continue" ? ["an interrupted decision grants"] : [])
  ]
}

/** Dispatches until the epoch's plan, the deadline or an interruption ends it. */
const dispatchAll = async (
  ctx: Context,
  backends: ReadonlyArray<plan.BackendPlan>,
  runtime: ManagedRuntime.ManagedRuntime<Hooks.Hooks, unknown>
): Promise<void> => {
  const cursors = new Map<string, number>()
  const length = backends[0]!.sequence.length
  for (let i = 0; i < length && Date.now() < ctx.deadline; i++) {
    const expected = plan.replay(backends, cursors)
    const mode = ctx.rng.chance(0.04) ? "interrupt" : ctx.rng.chance(0.02) ? "abandon" : "plain"
    const after = Duration.millis(ctx.rng.int(0, 40))
    const dispatch = Effect.flatMap(Hooks.Hooks, (hooks) =>
      hooks.dispatchUnknown("tool.before", toolBefore(), mode === "interrupt" ? { interrupt: Effect.sleep(after) } : undefined))
    const run = mode === "abandon" ? Effect.timeoutOption(dispatch, after) : Effect.asSome(dispatch)
    const outcome = await runtime.runPromise(Effect.either(Effect.supervised(run, ctx.supervisor)))
    ctx.tally.dispatches++
    const found = outcome._tag === "Left"
      ? [`the dispatch failed: ${outcome.left.message}`]
      : Option.isSome(outcome.right)
      ? problems(outcome.right.value, expected)
      : []
    for (const problem of found) {
      ctx.tally.wrong++
      if (ctx.tally.wrongSamples.length < 10) {
        ctx.tally.wrongSamples.push(`epoch ${ctx.name} dispatch ${i} [${expected.steps.join("; ")}]: ${problem}`)
      }
    }
    if (outcome._tag === "Right" && Option.isNone(outcome.right)) {
      ctx.tally.abandoned++
      return
    }
    if (outcome._tag === "Right" && Option.isSome(outcome.right) && outcome.right.value.interrupted) {
      ctx.tally.interrupted++
      return
    }
  }
}

/** Runs one epoch. */
export const run = async (ctx: Context): Promise<void> => {
  const backends = plans(ctx)
  const servers: Array<HttpServer> = []
  try {
    const registration = await register(ctx, backends, servers)
    const runtime = ManagedRuntime.make(
      Hooks.layer(registration, { observationTimeoutMs: plan.timeoutMs }).pipe(Layer.provide(NodeTransports.layerNode()))
    )
    try {
      await dispatchAll(ctx, backends, runtime)
    } finally {
      await runtime.dispose()
    }
  } finally {
    await Promise.all(servers.map((s) => s.close()))
    for (const b of backends) {
      const pids = startedPids(join(ctx.dir, `${b.id}.log`))
      ctx.tally.processesStarted += pids.length
      ctx.tally.processesLeft.push(...alive(pids))
    }
    ctx.tally.epochs++
  }
}
