/**
 * Many sessions at once, as a host serving many agents: 1, 16 and 256 callers dispatching
 * concurrently through one `Hooks`.
 *
 * - HTTP, one backend, 1 KiB `tool.before`: each caller dispatches one call after another.
 *   Baseline: raw undici (a keep-alive `Agent`, as ours) with as many callers, each posting
 *   the encoded request and checking the answer. Throughput (median per round; target
 *   ours ≥ 0.7 × raw, so the ratio baseline/ours ≤ 1.43) and p99.
 * - stdio, 8 persistent backends, each intercepting its own event type and answering after
 *   its own service time (1 to 8 ms, `late=<ms>`): the spec allows one outstanding request
 *   per persistent backend, so calls to one backend queue. Every round is a burst: all the
 *   callers start together, caller `i` calling backend `i mod 8`, so the `n`th caller of
 *   a backend is at position `n` of its queue. FIFO means each backend's calls end in the
 *   order they started; no convoy means each place in a backend's queue adds about that
 *   backend's own service time (measured with 1 caller), whatever the other backends do.
 *   Baseline: the same backends driven raw, a FIFO promise chain per child.
 */
import { Hooks } from "@effect-ahp/harness"
import { Arbitraries, EventType, type Json } from "@effect-ahp/protocol"
import { FastCheck } from "effect"
import { performance } from "node:perf_hooks"
import * as Undici from "undici"
import * as fixtures from "./fixtures.js"
import { type Batch, compare, type Pace, quantile, timeAsync, timeEffect } from "./measure.js"
import { checkAnswer, httpServer, lineClient } from "./raw.js"
import { quantityRow, type Row, tailRow, throughputRow } from "./report.js"

const concurrencies = [1, 16, 256] as const

/** `callers` callers running `each(perCaller)` at once; their latencies together. */
const concurrently = async (callers: number, ops: number, each: Batch): Promise<ReadonlyArray<number>> =>
  (await Promise.all(Array.from({ length: callers }, () => each(Math.ceil(ops / callers))))).flat()

/** The HTTP rows: one backend per side, ours and raw undici at each concurrency. */
const httpRows = async (pace: Pace): Promise<Array<Row>> => {
  const [forOurs, forRaw] = [await httpServer("ok"), await httpServer("ok")]
  const event = fixtures.toolBefore(fixtures.KiB)
  const runtime = fixtures.nodeHooks(fixtures.registration([{ type: "http", url: forOurs.url }]))
  const agent = new Undici.Agent()
  const rows: Array<Row> = []
  try {
    const dispatch = timeEffect(runtime, (await runtime.runPromise(Hooks.Hooks)).dispatchUnknown("tool.before", event))
    const post = async () => {
      const response = await Undici.request(forRaw.url, {
        dispatcher: agent,
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: fixtures.requestLine(event)
      })
      checkAnswer(await response.body.text(), "evt_bench")
    }
    for (const callers of concurrencies) {
      const ops = Math.max(pace.ops, callers * 16)
      const comparison = await compare(
        (n) => concurrently(callers, n, dispatch),
        (n) => concurrently(callers, n, (k) => timeAsync(k, post)),
        { ...pace, ops }
      )
      const name = `sessions http 1 backend, ${callers} concurrent caller(s), 1 KiB`
      rows.push(throughputRow(name, comparison, 1.43), tailRow(name, comparison, "p99"))
    }
  } finally {
    await runtime.dispose()
    await agent.close()
    await Promise.all([forOurs.close(), forRaw.close()])
  }
  return rows
}

/** The 8 stdio backends' event types (interceptable, one per backend). */
const types = EventType.interceptableEventTypes.slice(0, 8)

/** A backend's service time, ms (backend `k` answers after `k + 1` ms). */
const serviceMs = (backend: number) => backend + 1

/** A valid event of `type` (the smallest of a fixed sample), with the bench's id. */
const eventOf = (type: EventType.InterceptableEventType): Json.JsonObject => {
  const sample = FastCheck.sample(Arbitraries.event(type), { seed: 7, numRuns: 20 }) as Array<Json.JsonObject>
  const smallest = sample.reduce((a, b) => JSON.stringify(a).length <= JSON.stringify(b).length ? a : b)
  return { ...smallest, id: "evt_bench" }
}

/** One call of a burst: its backend, its position in that backend's queue, its latency and when it ended. */
interface Call {
  readonly backend: number
  readonly position: number
  readonly latencyUs: number
  readonly ended: number
}

/** Starts `callers` calls at once (caller `i` to backend `i mod 8`) and records each. */
const burst = async (callers: number, call: (backend: number) => Promise<void>): Promise<Array<Call>> => {
  let ended = 0
  return Promise.all(Array.from({ length: callers }, async (_, i) => {
    const backend = i % types.length
    const start = performance.now()
    await call(backend)
    return {
      backend,
      position: Math.floor(i / types.length) + 1,
      latencyUs: (performance.now() - start) * 1000,
      ended: ended++
    }
  }))
}

/** The calls of one burst that ended before a call that started ahead of them in the same backend's queue. */
const outOfOrder = (calls: ReadonlyArray<Call>): number =>
  calls.filter((c) => calls.some((d) => d.backend === c.backend && d.position < c.position && d.ended > c.ended)).length

/**
 * Per backend, the time each further place in its queue adds — the least-squares slope of
 * latency over queue position — divided by the backend's own service time (its latency
 * with 1 caller); the largest over the backends. ≈ 1 when a backend's queue is FIFO and
 * only its own calls hold it; a convoy (a call waiting on other backends' calls) makes the
 * fast backends' slopes several times their service time.
 */
const worstSlopeFactor = (calls: ReadonlyArray<Call>, service: ReadonlyArray<number>): number =>
  Math.max(...types.map((_, backend) => {
    const own = calls.filter((c) => c.backend === backend)
    const mean = (f: (c: Call) => number) => own.reduce((sum, c) => sum + f(c), 0) / own.length
    const [x, y] = [mean((c) => c.position), mean((c) => c.latencyUs)]
    const slope = mean((c) => (c.position - x) * (c.latencyUs - y)) / mean((c) => (c.position - x) ** 2)
    return slope / service[backend]!
  }))

type Side = "ours" | "raw"

/** Runs `measure` for both sides in alternating order, after one discarded round. */
const alternate = async (rounds: number, measure: (side: Side, keep: boolean) => Promise<void>): Promise<void> => {
  for (let round = -1; round < rounds; round++) {
    const order: ReadonlyArray<Side> = round % 2 === 0 ? ["ours", "raw"] : ["raw", "ours"]
    for (const side of order) await measure(side, round >= 0)
  }
}

/** A row whose ratio is baseline/ours (throughputs). */
const throughputQuantityRow = (name: string, ours: number, baseline: number): Row => ({
  ...quantityRow(name, ours, baseline, "events/s"),
  ratio: Number((baseline / ours).toPrecision(4)),
  ratioOf: "baseline/ours"
})

/**
 * The stdio rows: 8 backends per side. With 1 caller, one call to each backend in turn
 * (each backend's own service time); with more, bursts; the sides alternate.
 */
const stdioRows = async (rounds: number): Promise<Array<Row>> => {
  const events = types.map(eventOf)
  const registration = {
    protocolVersion: "draft",
    hooks: types.map((type, k) => ({
      id: fixtures.backendId(k),
      transport: fixtures.stdioTransport(`late=${serviceMs(k)}`),
      subscriptions: [{
        mode: "intercept",
        events: [type],
        timeoutMs: 30_000,
        failurePolicy: "fail-open",
        content: { default: "metadata" }
      }]
    }))
  }
  const runtime = fixtures.nodeHooks(registration)
  const clients = types.map((_, k) => lineClient(`late=${serviceMs(k)}`))
  const lines = events.map((e) => fixtures.requestLine(e))
  const rows: Array<Row> = []
  try {
    const hooks = await runtime.runPromise(Hooks.Hooks)
    const ours = async (backend: number) => {
      const result = await runtime.runPromise(hooks.dispatchUnknown(types[backend]!, events[backend]!))
      if (result.errors.length > 0) throw new Error(`bench call failed: ${result.errors[0]!.code}`)
    }
    // One outstanding request per child, as the spec allows: a FIFO chain per child.
    const queues: Array<Promise<unknown>> = clients.map(() => Promise.resolve())
    const raw = async (backend: number) => {
      const next = queues[backend]!.then(() => clients[backend]!.roundTrip(lines[backend]!))
      queues[backend] = next
      checkAnswer(await next, "evt_bench")
    }
    const sides = { ours, raw }
    const name = (callers: number) => `sessions stdio 8 backends (1-8 ms each), ${callers} concurrent caller(s)`

    const single = { ours: types.map(() => [] as Array<number>), raw: types.map(() => [] as Array<number>) }
    const sweeps = { ours: [] as Array<number>, raw: [] as Array<number> }
    await alternate(rounds, async (side, keep) => {
      const sweep = performance.now()
      for (let backend = 0; backend < types.length; backend++) {
        const start = performance.now()
        await sides[side](backend)
        if (keep) single[side][backend]!.push((performance.now() - start) * 1000)
      }
      if (keep) sweeps[side].push(performance.now() - sweep)
    })
    const service = { ours: single.ours.map((l) => quantile(l, 0.5)), raw: single.raw.map((l) => quantile(l, 0.5)) }
    const sweepRate = (side: Side) => quantile(sweeps[side].map((ms) => (types.length * 1000) / ms), 0.5)
    rows.push(
      throughputQuantityRow(`${name(1)}: throughput`, sweepRate("ours"), sweepRate("raw")),
      ...types.map((_, k) =>
        quantityRow(
          `${name(1)}: backend ${k + 1} (${serviceMs(k)} ms) single-call latency`,
          service.ours[k]!,
          service.raw[k]!,
          "µs"
        )
      )
    )

    for (const callers of concurrencies.filter((c) => c > 1)) {
      const calls = { ours: [] as Array<Call>, raw: [] as Array<Call> }
      const disorder = { ours: 0, raw: 0 }
      const rates = { ours: [] as Array<number>, raw: [] as Array<number> }
      await alternate(rounds, async (side, keep) => {
        const start = performance.now()
        const made = await burst(callers, sides[side])
        if (!keep) return
        rates[side].push((callers * 1000) / (performance.now() - start))
        calls[side].push(...made)
        disorder[side] += outOfOrder(made)
      })
      rows.push(
        throughputQuantityRow(`${name(callers)}: throughput`, quantile(rates.ours, 0.5), quantile(rates.raw, 0.5)),
        quantityRow(`${name(callers)}: calls ended out of FIFO order`, disorder.ours, disorder.raw, "calls"),
        quantityRow(
          `${name(callers)}: worst backend's latency per queue position / its own service time`,
          worstSlopeFactor(calls.ours, service.ours),
          worstSlopeFactor(calls.raw, service.raw),
          "×"
        )
      )
    }
  } finally {
    await runtime.dispose()
    await Promise.all(clients.map((c) => c.close()))
  }
  return rows
}

/** The family: HTTP then stdio. */
export const run = async (pace: Pace): Promise<Array<Row>> => [...(await httpRows(pace)), ...(await stdioRows(6))]
