/**
 * Hook payload → AHP event, shared by the hosts (Codex copies Claude Code's dialect: the
 * same event names and snake_case fields). Payloads are decoded with tolerant Schemas
 * (unknown members kept, optional members absent, `null` where captures show it), then
 * built into events whose identities are deterministic: the event id digests the whole
 * payload, a missing call or turn id digests what identifies the call or turn, and every
 * synthesized identity says so.
 *
 * @internal
 */
import type { Capabilities, Event } from "@effect-ahp/protocol"
import { Common, Decoder, Issue, Json } from "@effect-ahp/protocol"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import type * as Host from "../Host.js"
import { PayloadError } from "../Host.js"
import * as HostEvents from "../HostEvents.js"
import { identifier } from "./digest.js"

/** What differs between hosts when building events. @internal */
export interface Dialect {
  readonly host: HostEvents.HostName
  /** Prefix of synthesized event ids. */
  readonly prefix: string
  readonly source: string
  readonly harness: string
  readonly manifest: Json.JsonObject
  readonly events: Readonly<Record<string, HostEvents.HostEvent>>
  readonly capabilities: (event: HostEvents.HostEvent) => Capabilities.Capabilities | undefined
}

const opt = Common.optional
const NullableText = Schema.NullOr(Schema.String)
const NonEmpty = Schema.String.pipe(Schema.minLength(1, { message: () => "must be a non-empty string" }))

const common = {
  hook_event_name: opt(Schema.String),
  session_id: opt(Schema.String),
  transcript_path: opt(NullableText),
  cwd: opt(Schema.String),
  permission_mode: opt(NullableText),
  prompt_id: opt(Schema.String),
  turn_id: opt(Schema.String),
  model: opt(NullableText),
  agent_id: opt(Schema.String),
  agent_type: opt(Schema.String)
}

const toolCall = {
  tool_name: NonEmpty,
  tool_input: Json.AnyObject.annotations({ message: () => "must be a JSON object" }),
  tool_use_id: opt(Schema.String)
}

const stop = { stop_hook_active: opt(Schema.Boolean), last_assistant_message: opt(NullableText) }

const payloads = {
  PreToolUse: Schema.Struct({ ...common, ...toolCall }),
  PermissionRequest: Schema.Struct({
    ...common,
    ...toolCall,
    permission_suggestions: opt(Schema.Array(Json.AnyObject))
  }),
  PostToolUse: Schema.Struct({ ...common, ...toolCall, tool_response: opt(Json.Value), duration_ms: opt(Json.Value) }),
  PostToolUseFailure: Schema.Struct({
    ...common,
    ...toolCall,
    error: opt(NullableText),
    is_interrupt: opt(Schema.Boolean),
    duration_ms: opt(Json.Value)
  }),
  PermissionDenied: Schema.Struct({ ...common, ...toolCall, reason: opt(NullableText) }),
  PostToolBatch: Schema.Struct({
    ...common,
    tool_calls: Schema.Array(Schema.Struct({ ...toolCall, tool_response: opt(Json.Value) })).pipe(
      Schema.minItems(1, { message: () => "must list at least one call" })
    )
  }),
  UserPromptSubmit: Schema.Struct({ ...common, prompt: Schema.String }),
  Stop: Schema.Struct({ ...common, ...stop }),
  SubagentStop: Schema.Struct({ ...common, ...stop, agent_transcript_path: opt(NullableText) }),
  StopFailure: Schema.Struct({ ...common, error: opt(NullableText), error_details: opt(NullableText), ...stop }),
  Interrupt: Schema.Struct(common),
  SessionStart: Schema.Struct({ ...common, source: opt(NullableText) }),
  SubagentStart: Schema.Struct(common),
  SessionEnd: Schema.Struct({ ...common, reason: opt(NullableText) }),
  PreCompact: Schema.Struct({ ...common, trigger: opt(NullableText), custom_instructions: opt(NullableText) }),
  PostCompact: Schema.Struct({ ...common, trigger: opt(NullableText), compact_summary: opt(NullableText) }),
  "agent-turn-complete": Schema.Struct({
    type: Schema.Literal("agent-turn-complete"),
    "thread-id": NonEmpty,
    "turn-id": NonEmpty,
    cwd: opt(Schema.String),
    client: opt(Schema.String),
    "input-messages": opt(Schema.Array(Schema.String)),
    "last-assistant-message": opt(NullableText)
  }),
  Notification: Schema.Struct({
    ...common,
    message: opt(NullableText),
    title: opt(NullableText),
    notification_type: opt(NullableText)
  })
} as const

type Payloads = { readonly [K in keyof typeof payloads]: typeof payloads[K]["Type"] }
type Common = Schema.Struct.Type<typeof common>
type ToolCall = Schema.Struct.Type<typeof toolCall>

/** Each payload's decoder, compiled on its first call (a hook process maps one payload). */
const decoders = Object.fromEntries(
  Object.entries(payloads).map((
    [name, schema]
  ) => [name, Decoder.lazy(() => Decoder.make(schema as Schema.Schema<any, any>))])
) as { readonly [K in keyof Payloads]: (u: unknown) => Either.Either<Payloads[K], Array<Issue.Issue>> }

const kinds: Readonly<Record<string, string>> = {
  Bash: "shell",
  PowerShell: "shell",
  shell: "shell",
  local_shell: "shell",
  exec_command: "shell",
  unified_exec: "shell",
  write_stdin: "shell",
  Read: "file_read",
  NotebookRead: "file_read",
  view_image: "file_read",
  Write: "file_write",
  Edit: "file_edit",
  MultiEdit: "file_edit",
  NotebookEdit: "file_edit",
  apply_patch: "file_edit",
  Glob: "search",
  Grep: "search",
  LS: "search",
  WebSearch: "search",
  web_search: "search",
  WebFetch: "fetch",
  Task: "task",
  Agent: "task",
  spawn_agent: "task"
}

/** The descriptive kind of a tool: `mcp` for MCP tools, `other` for tools it does not know. @internal */
export const kindOf = (name: string): string =>
  mcpName(name) !== undefined ? "mcp" : Object.prototype.hasOwnProperty.call(kinds, name) ? kinds[name]! : "other"

/** Server and tool of an MCP tool name `mcp__<server>__<tool>`. @internal */
export const mcpName = (name: string): { readonly server: string; readonly tool: string } | undefined => {
  const match = /^mcp__(.+?)__(.+)$/.exec(name)
  return match === null ? undefined : { server: match[1]!, tool: match[2]! }
}

const unreported = (dialect: Dialect) => `${dialect.harness} does not report the MCP server's address to hooks`

const toolOf = (dialect: Dialect, name: string, input: Json.JsonObject): Json.JsonObject => {
  const mcp = mcpName(name)
  if (mcp === undefined) return { name, kind: kindOf(name), input, origin: "native" }
  return {
    name,
    kind: "mcp",
    input,
    origin: "mcp",
    mcp: {
      server: { id: mcp.server, name: mcp.server },
      toolName: mcp.tool,
      provenance: "inferred",
      connection: {
        transport: "_unreported",
        gaps: [{ path: "addressForm", reason: unreported(dialect) }, { path: "address", reason: unreported(dialect) }]
      }
    }
  }
}

const pathOf = (name: string) => (mcpName(name) === undefined ? "native" : "mcp")

const text = (id: string, role: string, body: string): Json.JsonObject => ({
  id,
  role,
  parts: [{ id: `${id}.text`, kind: "text", mediaType: "text/plain", selection: "body", text: body }]
})

const textPart = (id: string, body: string): Json.JsonObject => ({
  id,
  kind: "text",
  mediaType: "text/plain",
  selection: "body",
  text: body
})

const present = (value: string | null | undefined): value is string => typeof value === "string" && value !== ""

const sessionOf = (p: Common): Json.JsonObject | undefined => {
  if (!present(p.session_id)) return undefined
  const agent = present(p.agent_id)
    ? { id: p.agent_id, ...(present(p.agent_type) ? { type: p.agent_type } : {}) }
    : present(p.agent_type)
    ? { id: p.agent_type, type: p.agent_type }
    : undefined
  return {
    id: p.session_id,
    ...(present(p.cwd) ? { cwd: p.cwd } : {}),
    ...(present(p.model) ? { model: p.model } : {}),
    ...(agent !== undefined ? { agent } : {})
  }
}

const turnOf = (p: Common, ...identifying: ReadonlyArray<Json.JsonValue>): Json.JsonObject => {
  const native = p.turn_id ?? p.prompt_id
  return present(native)
    ? { id: native }
    : { id: identifier("turn", p.session_id ?? null, ...identifying), synthesized: true }
}

const nativeTurn = (p: Common): Json.JsonObject | undefined => {
  const native = p.turn_id ?? p.prompt_id
  return present(native) ? { id: native } : undefined
}

const callOf = (p: Common, call: ToolCall): Json.JsonObject =>
  present(call.tool_use_id)
    ? { id: call.tool_use_id }
    : {
      id: identifier("call", p.session_id ?? null, p.turn_id ?? p.prompt_id ?? null, call.tool_name, call.tool_input),
      synthesized: true
    }

const toolFields = (dialect: Dialect, p: Common, call: ToolCall): Json.JsonObject => ({
  call: callOf(p, call),
  tool: toolOf(dialect, call.tool_name, call.tool_input),
  path: pathOf(call.tool_name)
})

const outputText = (response: Json.JsonValue | undefined): string =>
  response === undefined ? "" : typeof response === "string" ? response : Json.stringify(response)

/**
 * The event-level message of a failed call: Claude Code's first line `Exit code N` of a
 * shell failure, else a generic one — the tool's own text (which may hold what a
 * redactor masks) is the event's `items`, never the error object.
 */
const failureMessage = (error: string | null | undefined): string => {
  const first = present(error) ? error.split("\n", 1)[0]! : ""
  return /^Exit code \d+$/.test(first) ? first : "the tool failed"
}

/** How Claude Code words the result of a call a PreToolUse hook denied. */
const hookDenial = (tool: string) => `PreToolUse:${tool} hook error: `

/**
 * The outcome of one call of a batch, from the result the model saw (Claude Code reports
 * no outcome per call): a PreToolUse hook's denial, a shell failure (`Exit code N`), or ok.
 */
const batchOutcome = (call: ToolCall & { readonly tool_response?: Json.JsonValue | undefined }): Json.JsonObject => {
  const result = outputText(call.tool_response)
  if (result.startsWith(hookDenial(call.tool_name))) {
    return { outcome: "denied", execution: { status: "skipped", reason: "policy", detail: "denied by a hook" } }
  }
  return { outcome: /^Exit code \d+(?:\n|$)/.test(result) ? "error" : "ok", execution: { status: "executed" } }
}

const durationOf = (value: Json.JsonValue | undefined): Json.JsonObject =>
  typeof value === "number" && Number.isFinite(value) && value >= 0 ? { durationMs: value } : {}

const harnessGap = (dialect: Dialect) => ({
  path: "harness.version",
  reason: `${dialect.harness} does not report its version to hooks`
})

type Built = Either.Either<Json.JsonObject, ReadonlyArray<Issue.Issue>>

const built = (fields: Json.JsonObject): Built => Either.right(fields)
const missing = (path: string, message: string): Built => Either.left([{ path, message }])

const sessionRequired = (p: Common, fields: (session: Json.JsonObject) => Json.JsonObject): Built => {
  const session = sessionOf(p)
  return session === undefined ? missing("/session_id", "is required for this event") : built(fields(session))
}

const sessionTrigger = (source: string | null | undefined) =>
  source === "resume" || source === "clear" || source === "compact" || source === "fork" ? source : "startup"

const sessionOutcome = (reason: string | null | undefined) =>
  reason === "other" || !present(reason) ? "unknown" : "completed"

/** The event fields of each host event, from its decoded payload. */
const builders: { readonly [K in keyof Payloads]: (dialect: Dialect, p: Payloads[K], id: string) => Built } = {
  PreToolUse: (d, p) => built(toolFields(d, p, p)),
  PermissionRequest: (d, p) =>
    built({ ...toolFields(d, p, p), suggestions: p.permission_suggestions ?? [], sandboxBypass: false }),
  PostToolUse: (d, p, id) =>
    built({
      ...toolFields(d, p, p),
      outcome: "ok",
      execution: { status: "executed" },
      items: [text(`${id}.output`, "tool", outputText(p.tool_response))],
      ...durationOf(p.duration_ms)
    }),
  PostToolUseFailure: (d, p, id) =>
    built({
      ...toolFields(d, p, p),
      outcome: p.is_interrupt === true ? "cancelled" : "error",
      execution: { status: "executed" },
      items: present(p.error) ? [text(`${id}.output`, "tool", p.error)] : [],
      ...(p.is_interrupt === true ? {} : { error: { class: "tool", message: failureMessage(p.error) } }),
      ...durationOf(p.duration_ms)
    }),
  PermissionDenied: (d, p) => built({ ...toolFields(d, p, p), decision: "deny", decidedBy: "classifier" }),
  PostToolBatch: (d, p, id) =>
    built({
      batch: {
        id: identifier("batch", p.session_id ?? null, p.tool_calls as unknown as Json.JsonValue),
        synthesized: true
      },
      calls: p.tool_calls.map((call) => ({ ...toolFields(d, p, call), ...batchOutcome(call) })),
      items: p.tool_calls.map((call, i) => textPart(`${id}.result.${i}`, outputText(call.tool_response))),
      gaps: [{
        path: "calls",
        reason: `${d.harness} reports each call's result, not its outcome: read from the result`
      }]
    }),
  UserPromptSubmit: (_, p, id) =>
    built({ turn: turnOf(p, p.prompt), trigger: "user", items: [text(`${id}.prompt`, "user", p.prompt)] }),
  Stop: (_, p, id) => turnFinish(p, id),
  SubagentStop: (_, p, id) => turnFinish(p, id),
  StopFailure: (_, p, id) =>
    built({
      turn: turnOf(p, p.last_assistant_message ?? null),
      outcome: "failed",
      continuationCount: 0,
      items: present(p.last_assistant_message) ? [text(`${id}.response`, "assistant", p.last_assistant_message)] : [],
      error: {
        class: present(p.error) ? p.error : "error",
        message: present(p.error_details) ? p.error_details : present(p.error) ? p.error : "the turn failed"
      }
    }),
  Interrupt: (_, p) => built({ turn: turnOf(p), outcome: "cancelled", continuationCount: 0, items: [] }),
  SessionStart: (d, p) => sessionStart(d, p, sessionTrigger(p.source)),
  SubagentStart: (d, p) => sessionStart(d, p, "startup"),
  SessionEnd: (_, p) =>
    sessionRequired(p, (session) => ({
      session,
      outcome: sessionOutcome(p.reason),
      reason: present(p.reason) ? p.reason : "unknown"
    })),
  PreCompact: (_, p, id) =>
    built({
      trigger: p.trigger === "manual" ? "manual" : "auto",
      items: [],
      ...(present(p.custom_instructions)
        ? { instructions: [textPart(`${id}.instructions`, p.custom_instructions)] }
        : {})
    }),
  PostCompact: (d, p, id) =>
    built({
      summary: present(p.compact_summary) ? [textPart(`${id}.summary`, p.compact_summary)] : [],
      removed: [],
      execution: { status: "executed" },
      ...(present(p.compact_summary)
        ? {}
        : { gaps: [{ path: "summary", reason: `${d.harness} does not report the summary to this hook` }] })
    }),
  "agent-turn-complete": (_, p, id) =>
    built({
      session: { id: p["thread-id"], ...(present(p.cwd) ? { cwd: p.cwd } : {}) },
      turn: { id: p["turn-id"] },
      outcome: "completed",
      continuationCount: 0,
      items: [
        ...(p["input-messages"] ?? []).map((message, i) => text(`${id}.input.${i}`, "user", message)),
        ...(present(p["last-assistant-message"])
          ? [text(`${id}.response`, "assistant", p["last-assistant-message"])]
          : [])
      ]
    }),
  Notification: (_, p, id) =>
    built({
      attention: {
        kind: present(p.notification_type) ? p.notification_type : "notification",
        message: present(p.message) ? [textPart(`${id}.message`, p.message)] : [],
        title: present(p.title) ? [textPart(`${id}.title`, p.title)] : []
      }
    })
}

const turnFinish = (p: Payloads["Stop"], id: string): Built =>
  built({
    turn: turnOf(p, p.last_assistant_message ?? null),
    outcome: "completed",
    continuationCount: p.stop_hook_active === true ? 1 : 0,
    items: present(p.last_assistant_message) ? [text(`${id}.response`, "assistant", p.last_assistant_message)] : []
  })

const sessionStart = (d: Dialect, p: Common, trigger: string): Built =>
  sessionRequired(p, (session) => ({
    session,
    trigger,
    ...(trigger === "clear" || trigger === "fork"
      ? { resumedFrom: { id: identifier("session", p.session_id ?? null, "origin"), synthesized: true } }
      : {}),
    permissionMode: present(p.permission_mode) ? p.permission_mode : "default",
    harness: { name: d.host, version: "unknown" },
    manifest: d.manifest,
    items: [],
    gaps: [
      harnessGap(d),
      ...(present(p.permission_mode)
        ? []
        : [{ path: "permissionMode", reason: `${d.harness} does not report the permission mode at this event` }])
    ]
  }))

const isBuilt = (name: string): name is keyof Payloads => Object.prototype.hasOwnProperty.call(builders, name)

/** Maps a parsed hook payload for a host. @internal */
export const map = (
  dialect: Dialect,
  payload: Json.JsonValue,
  options: Host.MapOptions
): Either.Either<Host.Mapped | Host.PassThrough, PayloadError> => {
  if (!Json.isObject(payload)) return Either.left(new PayloadError({ reason: "not-an-object", issues: [] }))
  const name = HostEvents.nameOf(payload)
  const event = typeof name === "string" && Object.prototype.hasOwnProperty.call(dialect.events, name)
    ? dialect.events[name]!
    : undefined
  if (event === undefined) {
    return Either.left(
      new PayloadError({
        reason: "unknown-event",
        ...(typeof name === "string" ? { hostEvent: name } : {}),
        issues: [{ path: "/hook_event_name", message: `is not a ${dialect.harness} hook event` }]
      })
    )
  }
  if (event.type === undefined || !isBuilt(event.name)) return Either.right({ _tag: "PassThrough", event })
  const type: Event.EventType = event.type
  const invalid = (issues: ReadonlyArray<Issue.Issue>) =>
    new PayloadError({ reason: "invalid", hostEvent: event.name, type, issues })
  const decoded = (decoders[event.name] as (u: unknown) => Either.Either<unknown, Array<Issue.Issue>>)(payload)
  if (Either.isLeft(decoded)) return Either.left(invalid(decoded.left))
  const id = identifier(dialect.prefix, dialect.host, payload)
  const p = decoded.right as Common
  const fields = (builders[event.name] as (d: Dialect, p: unknown, id: string) => Built)(dialect, decoded.right, id)
  if (Either.isLeft(fields)) return Either.left(invalid(fields.left))
  const session = sessionOf(p)
  const turn = nativeTurn(p)
  const input: Json.JsonObject = {
    id,
    source: options.source ?? dialect.source,
    type,
    time: options.time,
    ...(session !== undefined ? { session } : {}),
    ...(turn !== undefined ? { turn } : {}),
    ...fields.right,
    ...(options.includeNative ? { native: payload } : {})
  }
  return Either.right({ _tag: "Event", event, type, input, capabilities: dialect.capabilities(event), payload })
}
