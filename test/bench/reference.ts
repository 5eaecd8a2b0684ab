/**
 * Ours against the reference transports of the transport contract
 * (`packages/node/test/contract/`): one 1 KiB `tool.before` request through a persistent
 * stdio backend and through an HTTP backend on 127.0.0.1, at the transport's own level (an
 * `Endpoint.request`, no harness). Ours: `StdioTransport` (driving `node:child_process`
 * with its own lock) and `HttpTransport` (driving an undici dispatcher). Baseline: the
 * references on `@effect/platform` — `CommandExecutor` with a `Semaphore`, `HttpClient` over
 * undici — which each bypass replaces. These rows justify each bypass against the library
 * it bypasses, beside the raw-loop rows of the stdio and http families.
 */
import type * as TransportApi from "@effect-ahp/harness/Transport"
import { Credentials, HttpTransport, StdioTransport } from "@effect-ahp/node"
import type { Json, Registration } from "@effect-ahp/protocol"
import { NodeContext, NodeHttpClient } from "@effect/platform-node"
import { Effect, Exit, Layer, ManagedRuntime, Scope } from "effect"
import * as HttpReference from "../../packages/node/test/contract/HttpReference.js"
import * as StdioReference from "../../packages/node/test/contract/StdioReference.js"
import * as fixtures from "./fixtures.js"
import { compare, type Pace, timeEffect } from "./measure.js"
import { httpServer } from "./raw.js"
import { latencyRow, type Row, tailRow } from "./report.js"

const platform = Layer.mergeAll(
  NodeContext.layer,
  HttpTransport.layerDispatcher,
  Credentials.layerTest({}),
  NodeHttpClient.layerUndici
)

type Needs = Layer.Layer.Success<typeof platform> | Scope.Scope

const maxBytes = 8 * 1024 * 1024

/** Compares two endpoints connected in one runtime on one request message. */
const endpoints = async (
  name: string,
  pace: Pace,
  connect: {
    readonly ours: Effect.Effect<TransportApi.Endpoint, never, Needs>
    readonly reference: Effect.Effect<TransportApi.Endpoint, never, Needs>
  },
  message: Json.JsonObject
): Promise<Array<Row>> => {
  const runtime = ManagedRuntime.make(platform)
  const scope = await runtime.runPromise(Scope.make())
  try {
    const [ours, reference] = await runtime.runPromise(
      Scope.extend(Effect.all([connect.ours, connect.reference]), scope)
    )
    const comparison = await compare(
      timeEffect(runtime, ours!.request(message)),
      timeEffect(runtime, reference!.request(message)),
      pace
    )
    return [latencyRow(name, comparison), tailRow(name, comparison, "p99")]
  } finally {
    await runtime.runPromise(Scope.close(scope, Exit.void))
    await runtime.dispose()
  }
}

/** The request ours sends for a 1 KiB `tool.before` event. */
const message = (): Json.JsonObject => JSON.parse(fixtures.requestLine(fixtures.toolBefore(fixtures.KiB)))

/** The family: stdio and HTTP, 1 KiB, ours against the reference transport. */
export const run = async (pace: Pace): Promise<Array<Row>> => {
  const stdio = fixtures.stdioTransport("ok") as unknown as Registration.StdioTransport
  const server = await httpServer("ok")
  try {
    return [
      ...await endpoints("stdio transport 1 KiB, vs the reference transport (CommandExecutor + Semaphore)", pace, {
        ours: StdioTransport.connect(stdio, {}),
        reference: StdioReference.connect(stdio, {
          maxLineBytes: maxBytes,
          killGrace: "1 second",
          env: StdioTransport.childEnvironment()
        })
      }, message()),
      ...await endpoints("http transport 1 KiB, vs the reference transport (HttpClient over undici)", pace, {
        ours: HttpTransport.connect({ type: "http", url: server.url }, undefined, {}, {}),
        reference: HttpReference.connect({ type: "http", url: server.url }, { maxBodyBytes: maxBytes })
      }, message())
    ]
  } finally {
    await server.close()
  }
}
