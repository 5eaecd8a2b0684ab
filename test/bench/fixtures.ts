/**
 * What every benchmark family shares: `tool.before` events of a chosen size, the
 * interceptor handlers (no effect, or a modify merge of the tool input), registrations
 * and the scripted backend that serves as the child for ours and the baselines alike.
 */
import { Grant } from "@effect-ahp/harness"
import type { Transport } from "@effect-ahp/harness"
import type { Json } from "@effect-ahp/protocol"
import { Effect } from "effect"
import { fileURLToPath } from "node:url"

/** The scripted backend (plain Node ESM). */
export const scriptedBackend = fileURLToPath(new URL("../support/scripted-backend.mjs", import.meta.url))

/** One kibibyte. */
export const KiB = 1024

const file = (i: number) => ({
  path: `src/module-${String(i).padStart(5, "0")}.ts`,
  content: `export const value${i} = ${i} // line of generated source text used as bench payload`
})

/**
 * A `tool.before` input whose JSON text is about `bytes` long: a structured tool input
 * (many small members, as an edit tool would carry), so size also means structure.
 */
export const toolBefore = (bytes: number): Json.JsonObject => {
  const base = {
    session: { id: "sess_bench" },
    tool: { name: "Edit", kind: "edit", input: { command: "apply", files: [] as Array<Json.JsonObject> }, origin: "native" },
    call: { id: "call_bench" },
    path: "native"
  }
  const fixed = JSON.stringify(base).length + 160 // id, type, time and source filled in by the harness
  const entry = JSON.stringify(file(10_000)).length + 1
  const count = Math.max(1, Math.round((bytes - fixed) / entry))
  for (let i = 0; i < count; i++) base.tool.input.files.push(file(i))
  return base as unknown as Json.JsonObject
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
export const inProcess = (handler: Handler): Transport.InProcessBackend => ({
  request: (message) => Effect.sync(() => handler(message)),
  notify: () => Effect.void
})

/** The capabilities a full grant advertises at `tool.before` (what the baseline sends too). */
export const toolBeforeCapabilities = Grant.full().events["tool.before"]!.intercept as unknown as Json.JsonObject

/** The backend id of the `i`th interceptor. */
export const backendId = (i: number) => `com.example.bench${i}`

/** A registration: one backend per transport, each intercepting `tool.before`. */
export const registration = (
  transports: ReadonlyArray<Json.JsonObject>,
  options: { readonly failurePolicy?: "fail-open" | "fail-closed"; readonly timeoutMs?: number } = {}
) => ({
  protocolVersion: "draft",
  hooks: transports.map((transport, i) => ({
    id: backendId(i),
    transport,
    subscriptions: [{
      mode: "intercept",
      events: ["tool.before"],
      timeoutMs: options.timeoutMs ?? 30_000,
      failurePolicy: options.failurePolicy ?? "fail-open",
      content: { default: "body" }
    }]
  }))
})

/** An HTTP transport placeholder for in-process backends (never dialled). */
export const inProcessTransport = (i: number): Json.JsonObject => ({ type: "http", url: `https://${backendId(i)}.invalid/hooks` })
