/**
 * HTTP latency: one `tool.before` dispatch through 1 and 3 HTTP backends on 127.0.0.1.
 * Ours: `Hooks.dispatch` over the Node HTTP transport (undici, keep-alive). Baseline: the
 * same scripted backend processes driven by `node:http` POSTs over one keep-alive
 * connection each, the request body encoded for every POST (as any sender must).
 */
import { Hooks } from "@effect-ahp/harness"
import * as fixtures from "./fixtures.js"
import { type Batch, type Pace, timeAsync, timeEffect } from "./measure.js"
import { checkAnswer, httpClient, httpServer } from "./raw.js"
import { type Row, transportFamily } from "./report.js"

/** Ours and the baseline against `count` servers and an event of about `bytes`. */
const pair = async (count: number, bytes: number) => {
  const servers = await Promise.all(Array.from({ length: count }, () => httpServer("ok")))
  const event = fixtures.toolBefore(bytes)
  const runtime = fixtures.nodeHooks(fixtures.registration(servers.map((s) => ({ type: "http", url: s.url }))))
  const hooks = await runtime.runPromise(Hooks.Hooks)
  const ours: Batch = timeEffect(runtime, hooks.dispatchUnknown("tool.before", event))

  const clients = servers.map((s) => httpClient(s.url))
  const baseline: Batch = (ops) =>
    timeAsync(ops, async () => {
      for (const client of clients) {
        checkAnswer(await client.post(Buffer.from(fixtures.requestLine(event))), "evt_bench")
      }
    })
  const close = async () => {
    await runtime.dispose()
    clients.forEach((c) => c.close())
    await Promise.all(servers.map((s) => s.close()))
  }
  return { ours, baseline, close }
}

/** The family: 1 and 3 backends, 1 KiB and 256 KiB events, and the row with the backend on the bench's CPU. */
export const run = (pace: Pace): Promise<Array<Row>> =>
  transportFamily(pace, pair, (count, label) => `http ${count} backend(s), ${label}`)
