/**
 * Builders for the JSON-RPC messages the tests send.
 */
import type { Json } from "@effect-ahp/protocol"

const source = "urn:test:harness"
const time = "2026-08-24T08:51:14Z"

export const toolBeforeEvent = (id: string, input: Json.JsonObject = { command: "ls" }): Json.JsonObject => ({
  id,
  source,
  type: "tool.before",
  time,
  session: { id: "sess_1" },
  tool: { name: "Bash", kind: "shell", input, origin: "native" },
  call: { id: `call_${id}` },
  path: "native"
})

export const toolAfterEvent = (id: string, input: Json.JsonObject = {}): Json.JsonObject => ({
  id,
  source,
  type: "tool.after",
  time,
  tool: { name: "Bash", input, origin: "native" },
  outcome: "ok",
  execution: { status: "executed" },
  call: { id: `call_${id}` },
  path: "native",
  items: []
})

export const sessionStartEvent = (id: string): Json.JsonObject => ({
  id,
  source,
  type: "session.start",
  time,
  session: { id: "sess_1" }
})

export const intercept = (
  event: Json.JsonObject,
  capabilities: Json.JsonObject = { effects: ["deny"] },
  overrides: Json.JsonObject = {}
): Json.JsonObject => ({
  jsonrpc: "2.0",
  id: event.id as string,
  method: "hooks/intercept",
  params: { protocolVersion: "draft", event, capabilities },
  ...overrides
})

export const observe = (event: Json.JsonObject, protocolVersion = "draft"): Json.JsonObject => ({
  jsonrpc: "2.0",
  method: "hooks/observe",
  params: { protocolVersion, event }
})

export const textMessage = (id: string, text: string): Json.JsonObject => ({
  id,
  role: "user",
  parts: [{ id: `${id}_p`, kind: "text", mediaType: "text/plain", selection: "body", text }]
})

/** Every capability `tool.before` can carry. */
export const toolBeforeAll: Json.JsonObject = {
  effects: ["deny", "allow", "ask", "modify", "inject", "flow", "return", "message"],
  modify: { input: { replace: true, merge: true } },
  flow: { operations: ["stop"] },
  inject: { context: { append: true, deliverAt: ["now", "next_turn"] } }
}
