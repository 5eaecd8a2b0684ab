/**
 * What every benchmark family shares: `tool.before` events of a chosen size, the
 * interceptor handlers (no effect, or a modify merge of the tool input), registrations
 * and the scripted backend that serves as the child for ours and the baselines alike.
 */
import { Grant, Hooks } from "@effect-ahp/harness"
import type { Transport } from "@effect-ahp/harness"
import { NodeTransports } from "@effect-ahp/node"
import type { Json, JsonRpc } from "@effect-ahp/protocol"
import { Effect, Layer, ManagedRuntime } from "effect"
import { fileURLToPath } from "node:url"
import { nodeCommand } from "./placement.js"

/** The scripted backend (plain Node ESM). */
export const scriptedBackend = fileURLToPath(new URL("../support/scripted-backend.mjs", import.meta.url))

/** One kibibyte. */
export const KiB = 1024

const file = (i: number) => ({
  path: `src/module-${String(i).padStart(5, "0")}.ts`,
  content: `export const value${i} = ${i} // line of generated source text used as bench payload`
})

/**
 * A complete `tool.before` event (envelope filled in, so ours and the baselines start from
 * the same object) whose JSON text is about `bytes` long. The size is a structured tool
 * input — many small members, as an edit tool would carry — so size also means structure.
 */
export const toolBefore = (bytes: number): Json.JsonObject => {
  const input = { command: "apply", files: [] as Array<Json.JsonObject> }
  const event = {
    id: "evt_bench",
    type: "tool.before",
    time: "2025-01-01T00:00:00.000Z",
    source: "urn:effect-ahp:bench",
    session: { id: "sess_bench" },
    tool: { name: "Edit", kind: "edit", input, origin: "native" },
    call: { id: "call_bench" },
    path: "native"
  }
  let size = JSON.stringify(event).length
  for (let i = 0; i === 0 || size < bytes; i++) {
    const entry = file(i)
    input.files.push(entry)
    size += JSON.stringify(entry).length + 1
  }
  return event
}

/** An interceptor as a plain function from a JSON-RPC request to its response. */
export type Handler = (request: Json.JsonObject) => Json.JsonValue

const respond = (request: Json.JsonObject, effects: ReadonlyArray<Json.JsonValue>): Json.JsonValue => ({
  jsonrpc: "2.0",
  id: request.id!,
  result: { protocolVersion: "draft", effects }
})

/** Answers with no effect. */
export const noEffect = (): Handler => (request) => respond(request, [])

/** Answers with a modify merge adding one member (named after the interceptor) to the tool input. */
export const modifyMerge = (index: number): Handler => (request) =>
  respond(request, [{ type: "modify", target: "input", operation: "merge", value: { [`reviewedBy${index}`]: true } }])

/** A handler served as an in-process backend. */
export const inProcess = (handler: Handler): JsonRpc.InProcessBackend<Transport.TransportError> => ({
  request: (message) => Effect.sync(() => handler(message)),
  notify: () => Effect.void
})

/** The capabilities a full grant advertises at `tool.before` (what the baseline sends too). */
export const toolBeforeCapabilities = Grant.full().events["tool.before"]!.intercept as unknown as Json.JsonObject

/** The backend id of the `i`th interceptor. */
export const backendId = (i: number) => `com.example.bench${i}`

/** A registration: one backend per transport, each intercepting `tool.before`. */
export const registration = (transports: ReadonlyArray<Json.JsonObject>) => ({
  protocolVersion: "draft",
  hooks: transports.map((transport, i) => ({
    id: backendId(i),
    transport,
    subscriptions: [{
      mode: "intercept",
      events: ["tool.before"],
      timeoutMs: 30_000,
      failurePolicy: "fail-open",
      content: { default: "body" }
    }]
  }))
})

/** An HTTP transport placeholder for in-process backends (never dialled). */
export const inProcessTransport = (i: number): Json.JsonObject => ({
  type: "http",
  url: `https://${backendId(i)}.invalid/hooks`
})

/** A persistent stdio transport running the scripted backend with `behaviour` (placed as `nodeCommand` places it). */
export const stdioTransport = (behaviour: string): Json.JsonObject => ({
  type: "stdio",
  ...nodeCommand([scriptedBackend, "stdio", behaviour]),
  lifecycle: "persistent"
})

/** The Hooks service over in-process backends, as a runtime. */
export const inProcessHooks = (
  registration: unknown,
  backends: Readonly<Record<string, JsonRpc.InProcessBackend<Transport.TransportError>>>
) => ManagedRuntime.make(Hooks.layerTest(registration, backends))

/** The Hooks service over the Node transports, as a runtime (close it to stop every child). */
export const nodeHooks = (registration: unknown) =>
  ManagedRuntime.make(Hooks.layerUnknown(registration).pipe(Layer.provide(NodeTransports.layerNode())))

/** The JSON-RPC request line ours sends for `event` at `tool.before` (the raw baselines send it too). */
export const requestLine = (event: Json.JsonObject): string =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: event.id,
    method: "hooks/intercept",
    params: { protocolVersion: "draft", event, capabilities: toolBeforeCapabilities }
  }) + "\n"
