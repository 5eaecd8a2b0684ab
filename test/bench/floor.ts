/**
 * The floor under the transport rows' p50 targets, 1 backend and 1 KiB events, each floor
 * compared with the raw loop itself. The raw stdio and HTTP loops with no harness at all,
 * run the way an Effect-native harness must run them — once as an `Effect.async` in the
 * caller's fiber, and once in a fiber forked per dispatch (what a per-call deadline that
 * can interrupt any exchange needs). Then the protocol's own work around the raw loop, in
 * the caller's fiber with no forked fiber, lock, deadline or progress `Ref`: the event validated,
 * projected for the subscriber, the step's capabilities computed, the request encoded, the
 * answer parsed, staged and settled, with the harness's own pure functions (target 1.25).
 * Last, ours against that protocol-work floor: what the harness's machinery adds (target 1.2).
 */
import { Boundary, Grant, Hooks, Projection, Registry, Settlement, Staging } from "@effect-ahp/harness"
import { Common, Decoder, Event, Framing, Intercept, Json } from "@effect-ahp/protocol"
import { Effect, Either, Fiber, Layer, ManagedRuntime, Runtime, type Schema } from "effect"
import * as fixtures from "./fixtures.js"
import { type Batch, compare, type Pace, timeAsync, timeEffect } from "./measure.js"
import { checkAnswer, httpClient, httpServer, lineClient } from "./raw.js"
import { latencyRow, type Row } from "./report.js"

/** A connection to one backend: sends a request line and resolves with the answer's text. */
type Send = (line: string) => Promise<string>

const event = fixtures.toolBefore(fixtures.KiB)
const line = fixtures.requestLine(event)

/** One raw round trip: the encoded request sent, the answer read and checked. */
const roundTrip = (send: Send) => async (): Promise<void> => checkAnswer(await send(line), "evt_bench")

/** The raw round trip as an effect of the caller's fiber. */
const rawAsEffect = (send: Send): Effect.Effect<void> => Effect.promise(roundTrip(send))

/**
 * The raw round trip in a fiber started per dispatch on the caller's runtime and awaited
 * (interrupted if the caller is), as `Chain.run` runs its routes.
 */
const rawInForkedFiber = (send: Send): Effect.Effect<void> =>
  Effect.flatMap(Effect.runtime<never>(), (runtime) =>
    Effect.uninterruptibleMask((restore) => {
      const fiber = Runtime.runFork(runtime, Effect.interruptible(rawAsEffect(send)))
      return Effect.onExit(restore(Fiber.await(fiber)), (exit) =>
        exit._tag === "Success" ? Effect.void : Fiber.interrupt(fiber))
    }).pipe(Effect.flatten))

const grant = Grant.full()
const boundary = Boundary.of("tool.before")
const validate = Decoder.validator(Event.schemaFor("tool.before") as Schema.Schema<unknown, unknown>)

/** The one intercept route of the stdio and HTTP rows (its transport does not matter here). */
const route = Either.getOrThrow(Registry.compile(fixtures.registration([fixtures.inProcessTransport(0)]), grant))
  .routes("tool.before").intercept[0]!
const provenance = { backend: route.backend.id, subscription: route.label, requestId: "evt_bench" }

/** What one dispatch must do around the round trip, with nothing of the harness's machinery. */
const protocolWork = (send: Send): Effect.Effect<Settlement.Decision> =>
  Effect.suspend(() => {
    const accepted: Json.JsonObject = { ...event, id: "evt_bench", type: "tool.before" }
    const issues = validate(accepted)
    if (issues.length > 0) return Effect.dieMessage(`invalid bench event: ${issues[0]!.message}`)
    const view = Projection.project(boundary, accepted, route.subscriber)
    const capabilities = Grant.forStep(grant.events["tool.before"]!.intercept!, view, { remaining: 1, count: 0 })
    const request: Json.JsonObject = {
      jsonrpc: "2.0",
      id: "evt_bench",
      method: Intercept.method,
      params: { protocolVersion: Common.protocolVersion, event: view.event, capabilities } as Json.JsonObject
    }
    const encoded = Either.getOrThrow(Framing.encodeText(request))
    return Effect.flatMap(Effect.promise(() => send(encoded)), (text) => {
      const staged = Staging.stage(Either.getOrThrow(Json.parse(text)), {
        requestId: "evt_bench",
        boundary,
        capabilities,
        view,
        selection: route.subscriber.content,
        event: accepted,
        elicitationSchema: undefined
      })
      return Either.isLeft(staged)
        ? Effect.dieMessage(`bench answer rejected: ${staged.left.detail}`)
        : Effect.succeed(Settlement.settle(Settlement.accept(Settlement.initial(), staged.right, provenance)))
    })
  })

const floors = [
  ["raw loop as one Effect", rawAsEffect, undefined],
  ["raw loop in a fiber forked per dispatch", rawInForkedFiber, undefined],
  ["protocol work around the raw loop as one Effect", protocolWork, 1.25]
] as const

/** A connection to one backend for a raw loop or a floor. */
type Connect = () => Promise<{ readonly send: Send; readonly close: () => Promise<void> }>

/** A registered backend for `Hooks` (its transport), and how to stop what serves it. */
type Serve = () => Promise<{ readonly transport: Json.JsonObject; readonly close: () => Promise<void> }>

/**
 * The rows of one transport: each floor against its own raw loop on separate backends,
 * then ours (`Hooks.dispatch`) against the protocol-work floor (what the harness adds).
 */
const rowsOf = async (transport: string, pace: Pace, connect: Connect, serve: Serve): Promise<Array<Row>> => {
  const runtime = ManagedRuntime.make(Layer.empty)
  const rows: Array<Row> = []
  const name = (label: string) => `floor ${transport} 1 backend, 1 KiB: ${label}`
  for (const [label, floorOf, target] of floors) {
    const [floor, raw] = [await connect(), await connect()]
    try {
      const ours: Batch = timeEffect(runtime, floorOf(floor.send))
      const baseline: Batch = (ops) => timeAsync(ops, roundTrip(raw.send))
      rows.push(latencyRow(name(label), await compare(ours, baseline, pace), target))
    } finally {
      await Promise.all([floor.close(), raw.close()])
    }
  }
  const [served, floor] = [await serve(), await connect()]
  const hooks = fixtures.nodeHooks(fixtures.registration([served.transport]))
  try {
    const dispatch = (await hooks.runPromise(Hooks.Hooks)).dispatchUnknown("tool.before", event)
    const comparison = await compare(timeEffect(hooks, dispatch), timeEffect(runtime, protocolWork(floor.send)), pace)
    rows.push(latencyRow(name("ours over the protocol-work floor"), comparison, 1.2))
  } finally {
    await hooks.dispose()
    await Promise.all([served.close(), floor.close()])
  }
  await runtime.dispose()
  return rows
}

/** The family: the stdio and HTTP floors. */
export const run = async (pace: Pace): Promise<Array<Row>> => {
  const stdio = await rowsOf("stdio", pace, async () => {
    const client = lineClient("ok")
    return { send: client.roundTrip, close: client.close }
  }, async () => ({ transport: fixtures.stdioTransport("ok"), close: async () => {} }))
  const http = await rowsOf("http", pace, async () => {
    const server = await httpServer("ok")
    const client = httpClient(server.url)
    return {
      send: (text) => client.post(Buffer.from(text)),
      close: async () => {
        client.close()
        await server.close()
      }
    }
  }, async () => {
    const server = await httpServer("ok")
    return { transport: { type: "http", url: server.url }, close: server.close }
  })
  return [...stdio, ...http]
}
