/**
 * The boundary table: for each of the 32 catalogue events, as data, whether it can be
 * intercepted, which effect kinds it can carry, each modify target with its event field and
 * value kind, the shape of a supplied `return` value, its flow operations, and where its
 * model-visible content lives (for content selection). Per-boundary Schemas are derived
 * from it, so a value is judged against the active boundary, never only the generic
 * effect envelope.
 *
 * Decisions where the specification is silent:
 * - `modify(workspace)` edits `workspace.change` (the proposed cwd/roots), an object; the
 *   facts `kind`, `prior` and `reason` are not a modification target.
 * - `return` at `user.elicitation.request` is a complete MCP `ElicitResult` object.
 * - `modify(content)` at `user.elicitation.result` edits the `content` answer object of the
 *   MCP result serialized in `elicitation.result.text`; the result is re-serialized after
 *   each accepted edit.
 *
 * @since 0.1.0
 */
import { Capabilities, Common, Content, Elicitation, Event, HookEffect, Json } from "@effect-ahp/protocol"
import * as Schema from "effect/Schema"

/**
 * The kind of value a modify target holds.
 *
 * @since 0.1.0
 * @category models
 */
export type ValueKind = "MessageList" | "TextPartList" | "Object" | "ElicitationAnswer"

/**
 * One modify target of a boundary: its event field and value kind.
 *
 * @since 0.1.0
 * @category models
 */
export interface Target {
  readonly target: HookEffect.ModifyTarget
  /** Path of the target in the event. For `ElicitationAnswer` it is the text part holding the MCP result. */
  readonly field: ReadonlyArray<string>
  readonly value: ValueKind
  /** Whether a change to this target changes the operation a candidate or an approval is bound to. */
  readonly operation: boolean
}

/**
 * The shape a supplied `return` value takes at a boundary.
 *
 * @since 0.1.0
 * @category models
 */
export type ReturnKind = "Json" | "MessageList" | "TextPartList" | "ElicitResult"

/**
 * Everything the harness needs to know about one event type.
 *
 * @since 0.1.0
 * @category models
 */
export interface Boundary {
  readonly type: Event.EventType
  readonly interceptable: boolean
  readonly effects: ReadonlyArray<HookEffect.Kind>
  readonly targets: ReadonlyArray<Target>
  readonly returns: ReturnKind | undefined
  readonly flowOperations: ReadonlyArray<Capabilities.FlowOperation>
  /** Whether `flow continue` is possible here. */
  readonly continuation: boolean
  /** Whether `inject` is possible here. */
  readonly inject: boolean
  /** Paths of model-visible content (messages, part lists or single parts); `*` walks an array. */
  readonly content: ReadonlyArray<ReadonlyArray<string>>
}

const target = (
  t: HookEffect.ModifyTarget,
  field: ReadonlyArray<string>,
  value: ValueKind,
  operation = false
): Target => ({ target: t, field, value, operation })

const targetsByEvent: Partial<Record<Event.EventType, ReadonlyArray<Target>>> = {
  "tool.before": [target("input", ["tool", "input"], "Object", true)],
  "tool.permission.request": [target("input", ["tool", "input"], "Object", true)],
  "tool.after": [target("output", ["items"], "MessageList")],
  "turn.start": [target("prompt", ["items"], "MessageList")],
  "user.message.inbound": [target("prompt", ["message", "messages"], "MessageList")],
  "model.request.before": [target("request", ["items"], "MessageList", true)],
  "model.response.after": [target("response", ["items"], "MessageList")],
  "turn.finish.before": [target("response", ["items"], "MessageList")],
  "user.message.outbound": [target("content", ["message", "messages"], "MessageList")],
  "user.elicitation.result": [target("content", ["elicitation", "result"], "ElicitationAnswer")],
  "context.compact.before": [target("instructions", ["instructions"], "TextPartList", true)],
  "context.compact.after": [target("summary", ["summary"], "TextPartList")],
  "workspace.change.before": [target("workspace", ["workspace", "change"], "Object")]
}

const returnsByEvent: Partial<Record<Event.EventType, ReturnKind>> = {
  "tool.before": "Json",
  "model.request.before": "MessageList",
  "context.compact.before": "TextPartList",
  "user.elicitation.request": "ElicitResult"
}

const contentByEvent: Partial<Record<Event.EventType, ReadonlyArray<ReadonlyArray<string>>>> = {
  "turn.progress": [["delta"]],
  "tool.progress": [["partialOutput"]],
  "context.compact.before": [["instructions"]],
  "context.compact.after": [["summary"]],
  "user.attention": [["attention", "message"], ["attention", "title"]],
  "user.elicitation.request": [["elicitation", "request"]],
  "user.elicitation.result": [["elicitation", "result"]],
  "user.message.inbound": [["message", "messages"]],
  "user.message.outbound": [["message", "messages"]],
  "file.changed": [["changes", "*", "before"], ["changes", "*", "after"]]
}

const make = (type: Event.EventType): Boundary => {
  const bounds = Capabilities.boundsOf(type)
  return {
    type,
    interceptable: bounds !== undefined,
    effects: bounds?.effects ?? [],
    targets: targetsByEvent[type] ?? [],
    returns: returnsByEvent[type],
    flowOperations: bounds?.flowOperations ?? [],
    continuation: bounds?.flowOperations.includes("continue") ?? false,
    inject: bounds?.effects.includes("inject") ?? false,
    content: [["items"], ...(contentByEvent[type] ?? [])]
  }
}

/**
 * The table, one entry per catalogue event type.
 *
 * @since 0.1.0
 * @category constants
 */
export const table: Readonly<Record<Event.EventType, Boundary>> = Object.fromEntries(
  Event.eventTypes.map((type) => [type, make(type)])
) as Record<Event.EventType, Boundary>

/**
 * The boundary of an event type.
 *
 * @since 0.1.0
 * @category accessors
 */
export const of = (type: Event.EventType): Boundary => table[type]

/**
 * The modify target of a boundary, if it has it.
 *
 * @since 0.1.0
 * @category accessors
 */
export const targetOf = (boundary: Boundary, t: HookEffect.ModifyTarget): Target | undefined =>
  boundary.targets.find((x) => x.target === t)

/**
 * A top-level MCP elicitation answer: string, number, boolean or string-array values.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitationAnswer = Schema.Record({
  key: Schema.String,
  value: Schema.Union(Schema.String, Schema.Number, Schema.Boolean, Schema.Array(Schema.String))
}).annotations({ identifier: "ElicitationAnswer" })

/**
 * The workspace change object that `modify(workspace)` edits.
 *
 * @since 0.1.0
 * @category schemas
 */
export const WorkspaceChange = Schema.Struct({
  cwd: Common.optional(Schema.String),
  workspaceRoots: Common.optional(Schema.Array(Schema.String))
}).annotations({ identifier: "WorkspaceChange" })

/**
 * The Schema a modify value of a target must satisfy at its boundary.
 *
 * @since 0.1.0
 * @category schemas
 */
export const valueSchema = (t: Target): Schema.Schema<any, any> => {
  switch (t.value) {
    case "MessageList":
      return Content.Messages
    case "TextPartList":
      return Content.TextParts
    case "ElicitationAnswer":
      return ElicitationAnswer
    case "Object":
      return t.target === "workspace" ? WorkspaceChange : Json.AnyObject
  }
}

/**
 * The Schema a supplied `return` value must satisfy at a boundary.
 *
 * @since 0.1.0
 * @category schemas
 */
export const returnSchema = (kind: ReturnKind): Schema.Schema<any, any> => {
  switch (kind) {
    case "Json":
      return Json.Value
    case "MessageList":
      return Content.Messages
    case "TextPartList":
      return Content.TextParts
    case "ElicitResult":
      return Elicitation.ElicitResult
  }
}
