#!/usr/bin/env node
// A stdio AHP backend for the real-host suite: at `tool.batch.after` it answers `flow stop`
// when a result of the batch (the event's `items`) holds something shaped like a GitHub
// token, so Claude Code ends the turn before the model sees it; otherwise no effect. It
// shows the one place where Claude Code lets a policy keep a failed call's output (which
// PostToolUseFailure cannot rewrite) from the next model request. Plain Node ESM, one
// JSON-RPC message per stdin line; it exits when stdin ends.
import { createInterface } from "node:readline"

const token = /\bgh[pousr]_[A-Za-z0-9]{30,}\b/
const reason = "a tool result holds a credential: the turn stops before the model sees it"

const texts = (items) =>
  Array.isArray(items)
    ? items.flatMap((item) =>
      typeof item?.text === "string"
        ? [item.text]
        : Array.isArray(item?.parts)
        ? item.parts.flatMap((part) => (typeof part?.text === "string" ? [part.text] : []))
        : []
    )
    : []

const answer = (message) => {
  if (message.method === "hooks/capabilities") {
    return {
      protocolVersion: "draft",
      manifest: {
        events: [],
        gaps: [],
        transports: ["stdio"],
        authentication: [],
        toolPaths: [],
        contentCategories: [],
        limits: {},
        managedPolicy: { scopes: ["user"], disableable: true }
      }
    }
  }
  const event = message.params?.event
  const stop = event?.type === "tool.batch.after" && texts(event.items).some((text) => token.test(text))
  return { protocolVersion: "draft", effects: stop ? [{ type: "flow", operation: "stop", reason }] : [] }
}

const lines = createInterface({ input: process.stdin, crlfDelay: Infinity })
lines.on("line", (line) => {
  let message
  try {
    message = JSON.parse(line)
  } catch {
    return
  }
  if (message === null || typeof message !== "object" || message.id === undefined) return
  process.stdout.write(`${JSON.stringify({ jsonrpc: "2.0", id: message.id, result: answer(message) })}\n`)
})
