/**
 * The floor under the transport rows' p50 targets: the raw stdio and HTTP loops with no
 * harness at all, run the way an Effect-native harness must run them — once as an
 * `Effect.async` in the caller's fiber, and once in a fiber forked per dispatch (what a
 * per-call deadline that can interrupt any exchange needs). Each is compared with the raw
 * loop itself, 1 backend and 1 KiB events. No targets: these rows say how much of a
 * transport row's ratio any Effect-native design pays before doing any protocol work.
 */
import { Effect, Fiber, Layer, ManagedRuntime, Runtime } from "effect"
import * as fixtures from "./fixtures.js"
import { type Batch, compare, type Pace, timeAsync, timeEffect } from "./measure.js"
import { checkAnswer, httpClient, httpServer, lineClient } from "./raw.js"
import { latencyRow, type Row } from "./report.js"

/** One raw round trip: request encoded, sent, answer read and checked. */
type RoundTrip = () => Promise<void>

/** `roundTrip` as an effect of the caller's fiber. */
const asEffect = (roundTrip: RoundTrip): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    roundTrip().then(() => resume(Effect.void), (error) => resume(Effect.die(error)))
  })

/**
 * `roundTrip` in a fiber started per dispatch on the caller's runtime and awaited (interrupted
 * if the caller is), as `Chain.run` runs its routes.
 */
const inForkedFiber = (roundTrip: RoundTrip): Effect.Effect<void> =>
  Effect.flatMap(Effect.runtime<never>(), (runtime) =>
    Effect.uninterruptibleMask((restore) => {
      const fiber = Runtime.runFork(runtime, Effect.interruptible(asEffect(roundTrip)))
      return Effect.onExit(restore(Fiber.await(fiber)), (exit) => exit._tag === "Success" ? Effect.void : Fiber.interrupt(fiber))
    }).pipe(Effect.flatten))

/** The rows of one transport: each floor against its own raw loop on separate backends. */
const rowsOf = async (
  transport: string,
  pace: Pace,
  connect: () => Promise<{ readonly roundTrip: RoundTrip; readonly close: () => Promise<void> }>
): Promise<Array<Row>> => {
  const runtime = ManagedRuntime.make(Layer.empty)
  const rows: Array<Row> = []
  for (const [label, wrap] of [["as one Effect", asEffect], ["in a fiber forked per dispatch", inForkedFiber]] as const) {
    const [floor, raw] = [await connect(), await connect()]
    try {
      const ours: Batch = timeEffect(runtime, wrap(floor.roundTrip))
      const baseline: Batch = (ops) => timeAsync(ops, raw.roundTrip)
      rows.push(latencyRow(`floor ${transport} 1 backend, 1 KiB: raw loop ${label}`, await compare(ours, baseline, pace)))
    } finally {
      await Promise.all([floor.close(), raw.close()])
    }
  }
  await runtime.dispose()
  return rows
}

/** The family: the stdio and HTTP floors. */
export const run = async (pace: Pace): Promise<Array<Row>> => {
  const event = fixtures.toolBefore(fixtures.KiB)
  const stdio = await rowsOf("stdio", pace, async () => {
    const client = lineClient("ok")
    return { roundTrip: async () => checkAnswer(await client.roundTrip(fixtures.requestLine(event)), "evt_bench"), close: client.close }
  })
  const http = await rowsOf("http", pace, async () => {
    const server = await httpServer("ok")
    const client = httpClient(server.url)
    return {
      roundTrip: async () => checkAnswer(await client.post(Buffer.from(fixtures.requestLine(event))), "evt_bench"),
      close: async () => {
        client.close()
        await server.close()
      }
    }
  })
  return [...stdio, ...http]
}
