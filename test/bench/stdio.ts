/**
 * Stdio latency: one `tool.before` dispatch through 1 and 3 persistent stdio backends.
 * Ours: `Hooks.dispatch` over the Node stdio transport. Baseline: the same scripted
 * backend, started by plain `child_process.spawn` and driven by a raw loop that encodes
 * the request (as any sender must), writes the line to each child in turn and reads its
 * answer line.
 */
import { Hooks } from "@effect-ahp/harness"
import * as fixtures from "./fixtures.js"
import { type Batch, type Pace, timeAsync, timeEffect } from "./measure.js"
import { checkAnswer, lineClient } from "./raw.js"
import { type Row, transportFamily } from "./report.js"

/** Ours and the baseline for `count` backends and an event of about `bytes`. */
const pair = async (count: number, bytes: number) => {
  const event = fixtures.toolBefore(bytes)
  const transports = Array.from({ length: count }, () => fixtures.stdioTransport("ok"))
  const runtime = fixtures.nodeHooks(fixtures.registration(transports))
  const hooks = await runtime.runPromise(Hooks.Hooks)
  const ours: Batch = timeEffect(runtime, hooks.dispatchUnknown("tool.before", event))

  const clients = Array.from({ length: count }, () => lineClient("ok"))
  const baseline: Batch = (ops) =>
    timeAsync(ops, async () => {
      for (const client of clients) checkAnswer(await client.roundTrip(fixtures.requestLine(event)), "evt_bench")
    })
  const close = async () => {
    await runtime.dispose()
    await Promise.all(clients.map((c) => c.close()))
  }
  return { ours, baseline, close }
}

/** The family: 1 and 3 backends, 1 KiB and 256 KiB events, and the row with the backend on the bench's CPU. */
export const run = (pace: Pace): Promise<Array<Row>> =>
  transportFamily(pace, pair, (count, label) => `stdio ${count} persistent backend(s), ${label}`)
