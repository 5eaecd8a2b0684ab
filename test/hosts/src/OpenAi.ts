/**
 * The OpenAI Responses API as Codex streams it (`POST /v1/responses`): server-sent
 * `response.created`, one `response.output_item.done` (a `function_call` whose arguments
 * are the input as JSON, or an assistant `message`), `response.completed` with usage.
 * Agent requests are those without a structured-output format (Codex's approval reviewer
 * asks for one); a tool result is a `function_call_output` input item.
 */
import { field, list, sse, type Step, type ToolResult, type Vendor } from "./FakeModel.js"

const outputText = (output: unknown): string =>
  typeof output === "string"
    ? output
    : list(output).map((part) => (typeof field(part, "text") === "string" ? String(field(part, "text")) : "")).join("")

const encode = (step: Step, n: number): string => {
  const item = step._tag === "Tool"
    ? {
      type: "function_call",
      id: `fc_${n}`,
      call_id: `call_${n}`,
      name: step.name,
      arguments: JSON.stringify(step.input)
    }
    : {
      type: "message",
      id: `msg_${n}`,
      role: "assistant",
      status: "completed",
      content: [{ type: "output_text", text: step.text, annotations: [] }]
    }
  return [
    sse("response.created", { type: "response.created", response: { id: `resp_${n}` } }),
    sse("response.output_item.done", { type: "response.output_item.done", output_index: 0, item }),
    sse("response.completed", {
      type: "response.completed",
      response: {
        id: `resp_${n}`,
        usage: {
          input_tokens: 10,
          input_tokens_details: null,
          output_tokens: 5,
          output_tokens_details: null,
          total_tokens: 15
        }
      }
    })
  ].join("")
}

const results = (body: unknown): ReadonlyArray<ToolResult> =>
  list(field(body, "input")).flatMap((item): Array<ToolResult> =>
    field(item, "type") === "function_call_output"
      ? [{ callId: String(field(item, "call_id")), text: outputText(field(item, "output")), isError: false }]
      : []
  )

/** Whether a request is Codex's approval reviewer's: it asks for a structured answer. */
export const isReview = (body: unknown): boolean => field(field(body, "text"), "format") !== undefined

/** The OpenAI Responses vendor. */
export const vendor: Vendor = {
  name: "openai",
  path: "/v1/responses",
  callId: (n) => `call_${n}`,
  encode,
  isAgent: (body) => !isReview(body),
  results
}
