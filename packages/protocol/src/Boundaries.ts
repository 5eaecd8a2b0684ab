/**
 * The boundary table of the interceptable events, as one `as const` value: per event type,
 * the effect kinds a response may carry, each modify target with its event field, value
 * kind and whether it is the operation an approval binds to, the flow operations, and the
 * shape of a supplied `return` value. Everything boundary-specific is derived from it: the
 * capability bounds (`Capabilities.boundsOf`), the harness's boundary Schemas, and
 * `EffectAt<T>`, the type of the effects a backend may answer at `T`, so a `tool.after`
 * handler returning `allow`, or a `tool.before` one returning `modify(output)` or a string
 * `modify(input)`, does not compile.
 *
 * Decisions where the specification is silent:
 * - `modify(workspace)` edits `workspace.change` (the proposed cwd/roots), an object; the
 *   facts `kind`, `prior` and `reason` are not a modification target.
 * - `return` at `user.elicitation.request` is a complete MCP `ElicitResult` object.
 * - `modify(content)` at `user.elicitation.result` edits the `content` answer object of the
 *   MCP result serialized in `elicitation.result.text`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Common from "./Common.js"
import * as Content from "./Content.js"
import * as Elicitation from "./Elicitation.js"
import type * as HookEffect from "./HookEffect.js"
import * as Json from "./Json.js"

/**
 * The kind of value a modify target holds.
 *
 * @since 0.1.0
 * @category models
 */
export type ValueKind = "MessageList" | "TextPartList" | "Object" | "ElicitationAnswer"

/**
 * The shape a supplied `return` value takes at a boundary.
 *
 * @since 0.1.0
 * @category models
 */
export type ReturnKind = "Json" | "MessageList" | "TextPartList" | "ElicitResult"

/**
 * The table, one entry per interceptable event type. `field` is the target's path in the
 * event (for `ElicitationAnswer`, the text part holding the MCP result); `operation` says
 * whether a change to it changes the operation a candidate or an approval is bound to.
 *
 * @since 0.1.0
 * @category constants
 */
export const table = {
  "session.start": { effects: ["inject", "message"], targets: {}, flow: [] },
  "config.change.before": { effects: ["deny", "message"], targets: {}, flow: [] },
  "turn.start": {
    effects: ["deny", "modify", "inject", "flow", "message"],
    targets: { prompt: { field: ["items"], value: "MessageList", operation: false } },
    flow: ["stop"]
  },
  "turn.finish.before": {
    effects: ["modify", "flow", "message"],
    targets: { response: { field: ["items"], value: "MessageList", operation: false } },
    flow: ["stop", "continue"]
  },
  "model.request.before": {
    effects: ["deny", "modify", "inject", "return", "flow", "message"],
    targets: { request: { field: ["items"], value: "MessageList", operation: true } },
    flow: ["stop"],
    returns: "MessageList"
  },
  "model.response.after": {
    effects: ["modify", "flow", "message"],
    targets: { response: { field: ["items"], value: "MessageList", operation: false } },
    flow: ["stop"]
  },
  "model.switch.before": { effects: ["deny", "flow", "message"], targets: {}, flow: ["stop"] },
  "tool.before": {
    effects: ["deny", "allow", "ask", "modify", "inject", "flow", "return", "message"],
    targets: { input: { field: ["tool", "input"], value: "Object", operation: true } },
    flow: ["stop"],
    returns: "Json"
  },
  "tool.after": {
    effects: ["modify", "inject", "flow", "message"],
    targets: { output: { field: ["items"], value: "MessageList", operation: false } },
    flow: ["stop", "continue"]
  },
  "tool.permission.request": {
    effects: ["allow", "deny", "modify", "flow", "message"],
    targets: { input: { field: ["tool", "input"], value: "Object", operation: true } },
    flow: ["stop"]
  },
  "tool.batch.after": { effects: ["flow", "inject", "message"], targets: {}, flow: ["stop"] },
  "context.compact.before": {
    effects: ["deny", "modify", "return", "inject", "message"],
    targets: { instructions: { field: ["instructions"], value: "TextPartList", operation: true } },
    flow: [],
    returns: "TextPartList"
  },
  "context.compact.after": {
    effects: ["inject", "modify", "message"],
    targets: { summary: { field: ["summary"], value: "TextPartList", operation: false } },
    flow: []
  },
  "task.change.before": { effects: ["deny", "message"], targets: {}, flow: [] },
  "user.elicitation.request": {
    effects: ["deny", "return", "message"],
    targets: {},
    flow: [],
    returns: "ElicitResult"
  },
  "user.elicitation.result": {
    effects: ["modify", "message"],
    targets: { content: { field: ["elicitation", "result"], value: "ElicitationAnswer", operation: false } },
    flow: []
  },
  "user.message.inbound": {
    effects: ["deny", "modify", "message"],
    targets: { prompt: { field: ["message", "messages"], value: "MessageList", operation: false } },
    flow: []
  },
  "user.message.outbound": {
    effects: ["deny", "modify", "message"],
    targets: { content: { field: ["message", "messages"], value: "MessageList", operation: false } },
    flow: []
  },
  "workspace.change.before": {
    effects: ["deny", "modify", "message"],
    targets: { workspace: { field: ["workspace", "change"], value: "Object", operation: false } },
    flow: []
  }
} as const satisfies Record<string, Entry>

/**
 * The shape of one table entry.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly effects: ReadonlyArray<HookEffect.Kind>
  readonly targets: {
    readonly [T in HookEffect.ModifyTarget]?: {
      readonly field: ReadonlyArray<string>
      readonly value: ValueKind
      readonly operation: boolean
    }
  }
  readonly flow: ReadonlyArray<"stop" | "continue">
  readonly returns?: ReturnKind
}

/**
 * An interceptable event type: a key of the table.
 *
 * @since 0.1.0
 * @category models
 */
export type Interceptable = keyof typeof table

/**
 * The table entry of an event type, or `undefined` when the event is observation-only.
 *
 * @since 0.1.0
 * @category accessors
 */
export const entryOf = (type: string): Entry | undefined =>
  Object.prototype.hasOwnProperty.call(table, type) ? (table as Record<string, Entry>)[type] : undefined

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
export const valueSchema = (target: HookEffect.ModifyTarget, kind: ValueKind): Schema.Schema<any, any> => {
  switch (kind) {
    case "MessageList":
      return Content.Messages
    case "TextPartList":
      return Content.TextParts
    case "ElicitationAnswer":
      return ElicitationAnswer
    case "Object":
      return target === "workspace" ? WorkspaceChange : Json.AnyObject
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

/** The wire value of a modify target of kind `K` (`workspace` takes a workspace change). */
type ValueOf<Target, K> = K extends "MessageList" ? Schema.Schema.Encoded<typeof Content.Messages>
  : K extends "TextPartList" ? Schema.Schema.Encoded<typeof Content.TextParts>
  : K extends "ElicitationAnswer" ? Schema.Schema.Encoded<typeof ElicitationAnswer>
  : Target extends "workspace" ? Schema.Schema.Encoded<typeof WorkspaceChange>
  : Json.JsonObject

/** The wire value of a supplied result of kind `K`. */
type ReturnOf<K> = K extends "MessageList" ? Schema.Schema.Encoded<typeof Content.Messages>
  : K extends "TextPartList" ? Schema.Schema.Encoded<typeof Content.TextParts>
  : K extends "ElicitResult" ? Schema.Schema.Encoded<typeof Elicitation.ElicitResult>
  : Json.JsonValue

/**
 * The modify effects allowed at `T`: one per target, with that target's value type.
 *
 * @since 0.1.0
 * @category models
 */
export type ModifyAt<T extends Interceptable> = {
  readonly [K in keyof (typeof table)[T]["targets"]]: {
    readonly type: "modify"
    readonly target: K
    readonly operation: HookEffect.ModifyOperation
    readonly value: (typeof table)[T]["targets"][K] extends { readonly value: infer V } ? ValueOf<K, V> : never
  }
}[keyof (typeof table)[T]["targets"]]

/** The `return` effect at `T`, with the boundary's value type. */
type ReturnAt<T extends Interceptable> = (typeof table)[T] extends { readonly returns: infer K }
  ? { readonly type: "return"; readonly value: ReturnOf<K> }
  : never

/** The flow effects at `T`. */
type FlowAt<T extends Interceptable> =
  | ("stop" extends (typeof table)[T]["flow"][number] ? HookEffect.FlowStop : never)
  | ("continue" extends (typeof table)[T]["flow"][number] ? HookEffect.FlowContinue : never)

/** The effect of one kind at `T`. */
type OfKind<T extends Interceptable, K> = K extends "deny" ? HookEffect.Deny
  : K extends "allow" ? HookEffect.Allow
  : K extends "ask" ? HookEffect.Ask
  : K extends "modify" ? ModifyAt<T>
  : K extends "message" ? HookEffect.Message
  : K extends "return" ? ReturnAt<T>
  : K extends "flow" ? FlowAt<T>
  : K extends "inject" ? HookEffect.Inject
  : never

/**
 * The effects a response may carry at the interceptable event `T`: its allowed kinds, its
 * modify targets with their value types, its flow operations and its supplied-result type.
 *
 * @since 0.1.0
 * @category models
 */
export type EffectAt<T extends Interceptable> = OfKind<T, (typeof table)[T]["effects"][number]>
