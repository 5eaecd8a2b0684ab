/**
 * The Anthropic Messages API as Claude Code streams it (`POST /v1/messages?beta=true`):
 * server-sent `message_start`, one content block (`tool_use` with its input as one
 * `input_json_delta`, or `text`), `message_delta` with the stop reason, `message_stop`.
 * Agent requests are the ones offering tools; a tool result is a `tool_result` block of a
 * user message.
 */
import { field, list, sse, type Step, type ToolResult, type Vendor } from "./FakeModel.js"

const model = "claude-sonnet-4-5"

const blockText = (content: unknown): string =>
  typeof content === "string"
    ? content
    : list(content).map((part) => (field(part, "type") === "text" ? String(field(part, "text")) : "")).join("")

const encode = (step: Step, n: number): string => {
  const start = {
    type: "message_start",
    message: {
      id: `msg_${n}`,
      type: "message",
      role: "assistant",
      model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 1 }
    }
  }
  const block = step._tag === "Tool"
    ? [
      sse("content_block_start", {
        type: "content_block_start",
        index: 0,
        content_block: { type: "tool_use", id: `toolu_${n}`, name: step.name, input: {} }
      }),
      sse("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "input_json_delta", partial_json: JSON.stringify(step.input) }
      })
    ]
    : [
      sse("content_block_start", { type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
      sse("content_block_delta", {
        type: "content_block_delta",
        index: 0,
        delta: { type: "text_delta", text: step.text }
      })
    ]
  return [
    sse("message_start", start),
    ...block,
    sse("content_block_stop", { type: "content_block_stop", index: 0 }),
    sse("message_delta", {
      type: "message_delta",
      delta: { stop_reason: step._tag === "Tool" ? "tool_use" : "end_turn", stop_sequence: null },
      usage: { output_tokens: 5 }
    }),
    sse("message_stop", { type: "message_stop" })
  ].join("")
}

const results = (body: unknown): ReadonlyArray<ToolResult> =>
  list(field(body, "messages")).flatMap((message) =>
    list(field(message, "content")).flatMap((block): Array<ToolResult> =>
      field(block, "type") === "tool_result"
        ? [{
          callId: String(field(block, "tool_use_id")),
          text: blockText(field(block, "content")),
          isError: field(block, "is_error") === true
        }]
        : []
    )
  )

/** The Anthropic Messages vendor. */
export const vendor: Vendor = {
  name: "anthropic",
  path: "/v1/messages",
  callId: (n) => `toolu_${n}`,
  encode,
  isAgent: (body) => list(field(body, "tools")).length > 0,
  results
}
