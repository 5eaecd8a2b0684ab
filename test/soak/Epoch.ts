/**
 * One soak epoch: start the planned backends, build the Hooks service over the Node
 * transports, dispatch `tool.before` events one after another and check each decision
 * against the replayed expectation, then close everything and find the backend processes
 * that outlived it. Some dispatches get an `interrupt` that fires after a few milliseconds,
 * some are abandoned by interrupting the dispatching fiber; either ends the epoch once it
 * took effect, since the backends' request numbering is then no longer known.
 *
 * Exact numbers are checked twice: in every decision's effective input, and in every
 * request and notification the backends received (their raw text, as logged), where a
 * "huge numbers" merge value must appear exactly as the backend wrote it.
 *
 * Some dispatches carry a body-selected attachment (random bytes, a new size each time):
 * the upload endpoint checks every upload's framing and bytes, and every attachment
 * reference a backend received must be one its own endpoint issued — never the host's.
 */
import { Attachment, DispatchResult, Hooks } from "@effect-ahp/harness"
import { NodeTransports } from "@effect-ahp/node"
import { Json } from "@effect-ahp/protocol"
import { Duration, Effect, Layer, ManagedRuntime, Option, type Supervisor } from "effect"
import { randomBytes } from "node:crypto"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { scriptedBackend } from "../bench/fixtures.js"
import { type HttpServer, httpServer } from "../bench/raw.js"
import { alive } from "../support/e2e.js"
import * as plan from "./plan.js"
import * as UploadEndpoint from "./UploadEndpoint.js"

/** What the epochs found so far (shared by every lane). */
export interface Tally {
  epochs: number
  dispatches: number
  interrupted: number
  abandoned: number
  wrong: number
  /** The first few wrong decisions, described. */
  readonly wrongSamples: Array<string>
  /**
   * Dispatches whose only difference from the plan is a route that went past its deadline
   * although planned to answer in time: the machine was too busy, the policy held.
   */
  late: number
  /** The first few of them, described. */
  readonly lateSamples: Array<string>
  processesStarted: number
  /** How many of the started processes were grandchildren ignoring SIGTERM. */
  grandchildren: number
  /** Occurrences of a huge-number merge value checked in what the backends received. */
  numbersChecked: number
  /** Dispatches that carried an attachment. */
  attached: number
  /** Uploads the endpoints received. */
  uploads: number
  /** Attachment references checked in what the backends received. */
  refsChecked: number
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
  late: 0,
  lateSamples: [],
  processesStarted: 0,
  grandchildren: 0,
  numbersChecked: 0,
  attached: 0,
  uploads: 0,
  refsChecked: 0,
  processesLeft: []
})

/** What an epoch runs with. */
export interface Context {
  readonly rng: plan.Random
  /** The epoch's directory (logs, counters). */
  readonly dir: string
  readonly name: string
  /** Whether another dispatch may start (the run's time is not up). */
  readonly going: () => boolean
  /** Tracks every fiber the dispatches start. */
  readonly supervisor: Supervisor.Supervisor<unknown>
  readonly tally: Tally
}

/**
 * The pids that are still running. A zombie is not: a grandchild killed after its parent
 * exited belongs to init, which on some machines (this project's VM) reaps orphans only
 * every second or two; `ps` shows it without its command line.
 */
export const running = (pids: ReadonlyArray<number>): Array<number> =>
  alive(pids).filter((pid) => {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, "utf8")
      return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3) !== "Z"
    } catch {
      return existsSync(`/proc/${pid}`) || !existsSync("/proc/self")
    }
  })

/** The entries of a scripted backend's log. */
export const logEntries = (
  log: string
): Array<{ readonly event: string; readonly pid: number; readonly [key: string]: unknown }> =>
  existsSync(log) ? readFileSync(log, "utf8").split("\n").filter((l) => l !== "").map((l) => JSON.parse(l)) : []

/** What a backend received, as raw text: stdio lines (`--log-raw`) and HTTP bodies. */
const received = (log: string): Array<string> =>
  logEntries(log).flatMap((e) =>
    e.event === "message" && typeof e.raw === "string"
      ? [e.raw]
      : e.event === "request" && typeof e.body === "string"
      ? [e.body]
      : []
  )

const recordWrong = (ctx: Context, problem: string): void => {
  ctx.tally.wrong++
  if (ctx.tally.wrongSamples.length < 10) ctx.tally.wrongSamples.push(problem)
}

/**
 * Every huge-number merge value in what the backends received must be written exactly as
 * the backend that merged it wrote it.
 */
const checkNumbers = (ctx: Context, backends: ReadonlyArray<plan.BackendPlan>): void => {
  const keys = plan.hugeKeys(backends)
  for (const b of backends) {
    for (const text of received(join(ctx.dir, `${b.id}.log`))) {
      for (const key of keys) {
        const marker = `"${key}":`
        for (let at = text.indexOf(marker); at !== -1; at = text.indexOf(marker, at + 1)) {
          ctx.tally.numbersChecked++
          const value = text.slice(at + marker.length, at + marker.length + plan.hugeValue.length)
          if (value !== plan.hugeValue) recordWrong(ctx, `epoch ${ctx.name}: ${b.id} received ${key} as ${value}`)
        }
      }
    }
  }
}

/** The host's own reference of the attachment part: no backend may ever receive it. */
const hostRef = "host-image"

/**
 * Every attachment reference a backend received must be one its own upload endpoint issued,
 * and the upload endpoint must have seen every upload framed and filled as sent.
 */
const checkReferences = (
  ctx: Context,
  backends: ReadonlyArray<plan.BackendPlan>,
  endpoint: UploadEndpoint.UploadEndpoint
): void => {
  for (const problem of endpoint.problems) recordWrong(ctx, `epoch ${ctx.name}: ${problem}`)
  ctx.tally.uploads += endpoint.received()
  for (const b of backends) {
    const issued = endpoint.issued.get(b.id) ?? new Set<string>()
    for (const text of received(join(ctx.dir, `${b.id}.log`))) {
      for (const match of text.matchAll(/"ref":"([^"]*)"/g)) {
        ctx.tally.refsChecked++
        if (!issued.has(match[1]!)) {
          recordWrong(ctx, `epoch ${ctx.name}: ${b.id} received the reference ${match[1]}, not one its endpoint issued`)
        }
      }
    }
  }
}

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
const register = async (
  ctx: Context,
  backends: ReadonlyArray<plan.BackendPlan>,
  servers: Array<HttpServer>,
  endpoint: UploadEndpoint.UploadEndpoint
) => {
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
      const hostile = ["--log-raw", ...(b.grandchild ? ["--grandchild"] : [])]
      transport = {
        type: "stdio",
        command: process.execPath,
        args: [scriptedBackend, "stdio", "ok", ...args, ...counter, ...hostile],
        lifecycle
      }
    }
    const subscription = {
      mode: "intercept",
      events: ["tool.before"],
      timeoutMs: plan.timeoutMs,
      failurePolicy: b.policy,
      content: { default: "body" },
      upload: { endpoint: endpoint.url(b.id), timeoutMs: plan.uploadTimeoutMs, maxBytes: 1 << 20 }
    }
    hooks.push({ id: b.id, transport, subscriptions: [subscription] })
  }
  return { protocolVersion: "draft", hooks }
}

/** A `tool.before` event; with `attached`, its items hold a body-selected image. */
const toolBefore = (attached: boolean): Json.JsonObject => ({
  session: { id: "sess_soak" },
  tool: { name: "Bash", kind: "shell", input: { command: "make" }, origin: "native" },
  call: { id: "call_soak" },
  path: "native",
  ...(attached
    ? {
      items: [{ id: "image1", kind: "attachment", mediaType: "image/png", selection: "body", body: { ref: hostRef } }]
    }
    : {})
})

/** The comparable part of a dispatch result. */
const observe = (result: DispatchResult.DispatchResult): plan.Expected => {
  const input = ((result.event.tool as Json.JsonObject).input ?? {}) as Json.JsonObject
  const denial = result.decision.denial
  return {
    permission: result.decision.permission,
    denial: denial === undefined
      ? undefined
      : { synthetic: denial.synthetic, backend: denial.provenance?.backend ?? "" },
    failures: result.errors.map((e) => `${e.backend}:${e.code}`),
    // `plan` is what a concurrent soak's event tells its backends to do (Concurrent.ts)
    merged: Object.keys(input).filter((k) => k !== "command" && k !== "plan")
  }
}

const same = (a: plan.Expected, b: plan.Expected) => JSON.stringify(a) === JSON.stringify(b)

/**
 * What is wrong with a result, if anything. An interrupted call must have stopped at a
 * route boundary of the replay, and never grants: no `allow`, no candidate, no
 * continuation.
 */
export const problems = (
  result: DispatchResult.DispatchResult,
  expected: plan.Replay,
  huge: ReadonlySet<string>
): Array<string> => {
  const actual = observe(result)
  const input = ((result.event.tool as Json.JsonObject).input ?? {}) as Json.JsonObject
  const changed = actual.merged.filter((key) => huge.has(key) && Json.stringify(input[key]) !== plan.hugeValue)
  if (changed.length > 0) return [`exact numbers changed in the effective input: ${changed.join(", ")}`]
  if (!result.interrupted) {
    const decision = expected.states[expected.states.length - 1]!
    if (same(actual, decision)) return []
    // The failures' details (the soak's own backends' text) say what the endpoint answered.
    const details = result.errors.map((failure) => failure.message).join("; ")
    return [`expected ${JSON.stringify(decision)}, got ${JSON.stringify(actual)} (${details})`]
  }
  const reachable = expected.states.map((s) => ({
    ...s,
    permission: s.permission === "allow" ? "none" as const : s.permission
  }))
  return [
    ...(reachable.some((s) => same(s, actual)) ? [] : [`interrupted at no route boundary: ${JSON.stringify(actual)}`]),
    ...(result.decision.candidate !== undefined || result.decision.flow === "continue"
      ? ["an interrupted decision grants"]
      : [])
  ]
}

/**
 * Whether a result that is not the planned one is the plan with some routes late: every
 * `timeout` / `upload-timeout` it shows that the plan did not expect is taken as late, and
 * the result must then be exactly what the plan gives with those routes late.
 */
export const onlyLate = (
  result: DispatchResult.DispatchResult,
  expected: plan.Replay,
  replayLate: (late: ReadonlyMap<string, "timeout" | "upload-timeout">) => plan.Replay
): boolean => {
  if (result.interrupted) return false
  const planned = new Set(expected.states[expected.states.length - 1]!.failures)
  const late = new Map<string, "timeout" | "upload-timeout">()
  for (const failure of result.errors) {
    if (
      (failure.code === "timeout" || failure.code === "upload-timeout") &&
      !planned.has(`${failure.backend}:${failure.code}`)
    ) {
      late.set(failure.backend, failure.code)
    }
  }
  if (late.size === 0) return false
  const states = replayLate(late).states
  return same(observe(result), states[states.length - 1]!)
}

/** Dispatches until the epoch's plan, the deadline or an interruption ends it. */
const dispatchAll = async (
  ctx: Context,
  backends: ReadonlyArray<plan.BackendPlan>,
  runtime: ManagedRuntime.ManagedRuntime<Hooks.Hooks, unknown>,
  endpoint: UploadEndpoint.UploadEndpoint
): Promise<void> => {
  const cursors = new Map<string, number>()
  const huge = new Set(plan.hugeKeys(backends))
  const length = backends[0]!.sequence.length
  for (let i = 0; i < length && ctx.going(); i++) {
    const attachment = ctx.rng.chance(0.3) ? randomBytes(ctx.rng.int(1, 64 * 1024)) : undefined
    const attached = attachment !== undefined
    const before = new Map(cursors)
    if (attached) {
      // The upload of each backend this dispatch's replay plays: its upload cursor.
      endpoint.expect(attachment, new Map(backends.map((b) => [b.id, before.get(`${b.id}/upload`) ?? 0])))
      ctx.tally.attached++
    }
    const expected = plan.replay(backends, cursors, attached)
    const mode = ctx.rng.chance(0.04) ? "interrupt" : ctx.rng.chance(0.02) ? "abandon" : "plain"
    const after = Duration.millis(ctx.rng.int(0, 40))
    const dispatch = Effect.flatMap(Hooks.Hooks, (hooks) =>
      hooks.dispatchUnknown("tool.before", toolBefore(attached), {
        ...(mode === "interrupt" ? { interrupt: Effect.sleep(after) } : {}),
        ...(attached ? { attachments: { image1: Attachment.bytes(attachment) } } : {})
      }))
    const run = mode === "abandon" ? Effect.timeoutOption(dispatch, after) : Effect.asSome(dispatch)
    const outcome = await runtime.runPromise(Effect.either(Effect.supervised(run, ctx.supervisor)))
    ctx.tally.dispatches++
    const found = outcome._tag === "Left"
      ? [`the dispatch failed: ${outcome.left.message}`]
      : Option.isSome(outcome.right)
      ? problems(outcome.right.value, expected, huge)
      : []
    if (
      found.length > 0 && outcome._tag === "Right" && Option.isSome(outcome.right) &&
      onlyLate(outcome.right.value, expected, (late) => plan.replay(backends, new Map(before), attached, late))
    ) {
      // The backends' numbering is no longer known (a late answer may still be counted), so
      // the epoch ends here, as after an interruption.
      ctx.tally.late++
      if (ctx.tally.lateSamples.length < 10) {
        ctx.tally.lateSamples.push(
          `epoch ${ctx.name} dispatch ${i} [${expected.steps.join("; ")}]: ${found.join("; ")}`
        )
      }
      return
    }
    for (const problem of found) {
      recordWrong(ctx, `epoch ${ctx.name} dispatch ${i} [${expected.steps.join("; ")}]: ${problem}`)
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
  const endpoint = await UploadEndpoint.start(backends)
  try {
    const registration = await register(ctx, backends, servers, endpoint)
    const runtime = ManagedRuntime.make(
      Hooks.layerUnknown(registration, { observationTimeoutMs: plan.timeoutMs }).pipe(
        Layer.provide(NodeTransports.layerNode())
      )
    )
    try {
      await dispatchAll(ctx, backends, runtime, endpoint)
    } finally {
      await runtime.dispose()
    }
  } finally {
    await Promise.all([...servers.map((s) => s.close()), endpoint.close()])
    for (const b of backends) {
      const entries = logEntries(join(ctx.dir, `${b.id}.log`))
      const pids = entries.filter((e) => e.event === "start" || e.event === "grandchild").map((e) => e.pid)
      ctx.tally.processesStarted += pids.length
      ctx.tally.grandchildren += entries.filter((e) => e.event === "grandchild").length
      ctx.tally.processesLeft.push(...running(pids))
    }
    checkNumbers(ctx, backends)
    checkReferences(ctx, backends, endpoint)
    ctx.tally.epochs++
  }
}
