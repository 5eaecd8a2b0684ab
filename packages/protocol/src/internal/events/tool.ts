/**
 * Tool events: `tool.before`, `tool.after`, `tool.permission.request`,
 * `tool.permission.resolved`, `tool.progress` and `tool.batch.after`.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { closed, NonEmpty } from "../../Common.js"
import * as Content from "../../Content.js"
import * as Json from "../../Json.js"
import {
  ClosedIdentity,
  crossField,
  envelope,
  forbidden,
  NonNegativeNumber,
  optional,
  type Problem,
  struct
} from "./fields.js"
import { Batch, Call, EventError, Execution, FileChange, Tool, ToolOutcome } from "./shared.js"

const call = {
  /** The invocation's identity, the same across every event of one tool call. */
  call: Call,
  /** The tool called: its verbatim name, its input (a JSON object), its origin. */
  tool: Tool,
  /** The tool path the event covers (`"native"`, one of the manifest's `toolPaths`). */
  path: NonEmpty,
  /** The batch the call belongs to, when the agent made several calls at once. */
  batch: optional(Batch)
}

type Resolved = {
  readonly outcome: typeof ToolOutcome.Type
  readonly execution: typeof Execution.Type
}

const deniedByPolicy = (call: Resolved): ReadonlyArray<Problem> =>
  call.outcome === "denied" && !(call.execution.status === "skipped" && call.execution.reason === "policy")
    ? [{ path: ["execution"], message: "must be skipped with reason policy when outcome is denied" }]
    : []

const policySkip = { status: "skipped", reason: "policy" } as const

/** @internal */
export const ToolBefore = struct({
  ...envelope,
  type: Schema.Literal("tool.before"),
  ...call,
  outcome: forbidden("must be absent: outcome belongs to tool.after"),
  execution: forbidden("must be absent: execution belongs to tool.after"),
  durationMs: forbidden("must be absent: durationMs belongs to tool.after"),
  fileChanges: forbidden("must be absent: fileChanges belong to tool.after")
}).annotations({ identifier: "ToolBefore" })

/** @internal */
export const ToolAfter = crossField(
  Schema.Struct({
    ...envelope,
    type: Schema.Literal("tool.after"),
    items: Content.Messages,
    outcome: ToolOutcome,
    execution: Execution,
    ...call,
    error: optional(EventError),
    durationMs: optional(NonNegativeNumber),
    fileChanges: optional(Schema.Array(FileChange))
  }),
  (event) => {
    const problems: Array<Problem> = [...deniedByPolicy(event)]
    if (event.outcome === "error" && event.error === undefined) {
      problems.push({ path: ["error"], message: "is required when outcome is error" })
    }
    if (event.outcome !== "error" && event.error !== undefined) {
      problems.push({ path: ["error"], message: "must be absent unless outcome is error" })
    }
    if (event.execution.status === "skipped") {
      if (event.durationMs !== undefined) {
        problems.push({ path: ["durationMs"], message: "must be absent when execution was skipped" })
      }
      if (event.fileChanges !== undefined) {
        problems.push({ path: ["fileChanges"], message: "must be absent when execution was skipped" })
      }
    }
    return problems
  },
  ({ durationMs, error, fileChanges, ...event }) => {
    const execution = event.outcome === "denied" ? policySkip : event.execution
    return {
      ...event,
      execution,
      ...(event.outcome === "error" ? { error: error ?? { message: "the tool failed", class: "tool" } } : {}),
      ...(execution.status === "executed" && durationMs !== undefined ? { durationMs } : {}),
      ...(execution.status === "executed" && fileChanges !== undefined ? { fileChanges } : {})
    }
  }
).annotations({ identifier: "ToolAfter" })

/** @internal */
export const ToolPermissionRequest = struct({
  ...envelope,
  type: Schema.Literal("tool.permission.request"),
  turn: optional(ClosedIdentity),
  ...call,
  suggestions: Schema.Array(Json.AnyObject),
  sandboxBypass: Schema.Boolean,
  decision: forbidden("must be absent: decision belongs to tool.permission.resolved"),
  decidedBy: forbidden("must be absent: decidedBy belongs to tool.permission.resolved"),
  outcome: forbidden("must be absent: outcome belongs to tool.after"),
  execution: forbidden("must be absent: execution belongs to tool.after")
}).annotations({ identifier: "ToolPermissionRequest" })

/** @internal */
export const ToolPermissionResolved = Schema.Struct({
  ...envelope,
  type: Schema.Literal("tool.permission.resolved"),
  turn: optional(ClosedIdentity),
  ...call,
  decision: Schema.Literal("allow", "deny"),
  decidedBy: Schema.Literal("user", "policy", "hook", "auto", "classifier")
}).annotations({ identifier: "ToolPermissionResolved" })

/** @internal */
export const ToolProgress = struct({
  ...envelope,
  type: Schema.Literal("tool.progress"),
  turn: optional(ClosedIdentity),
  ...call,
  partialOutput: Content.Message,
  backgrounded: Schema.Boolean,
  outcome: forbidden("must be absent: outcome belongs to tool.after"),
  execution: forbidden("must be absent: execution belongs to tool.after")
}).annotations({ identifier: "ToolProgress" })

const BatchCall = crossField(
  Schema.Struct({ ...call, outcome: ToolOutcome, execution: Execution }).annotations({ ...closed }),
  deniedByPolicy,
  (entry) => (entry.outcome === "denied" ? { ...entry, execution: policySkip } : entry)
).annotations({ identifier: "BatchCall" })

/** @internal */
export const ToolBatchAfter = Schema.Struct({
  ...envelope,
  type: Schema.Literal("tool.batch.after"),
  turn: optional(ClosedIdentity),
  batch: ClosedIdentity,
  calls: Schema.Array(BatchCall).pipe(Schema.minItems(1, { message: () => "must list at least one call" }))
}).annotations({ identifier: "ToolBatchAfter" })
