/**
 * Turn and compaction events: `turn.start`, `turn.finish.before`, `turn.end`,
 * `turn.progress`, `context.compact.before` and `context.compact.after`.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { closed, NonEmpty, NonNegativeInt } from "../../Common.js"
import * as Content from "../../Content.js"
import { ClosedIdentity, crossField, envelope, forbidden, optional, struct } from "./fields.js"
import { EventError, Execution, TokenCounts, TurnUsage } from "./shared.js"

const turn = { turn: ClosedIdentity }

/** @internal */
export const TurnStart = Schema.Struct({
  ...envelope,
  type: Schema.Literal("turn.start"),
  ...turn,
  trigger: Schema.Literal("user", "continuation", "hook", "external"),
  items: Content.Messages,
  expandedFrom: optional(NonEmpty)
}).annotations({ identifier: "TurnStart" })

const TurnOutcome = Schema.Literal("completed", "failed", "cancelled", "max_iterations")

const finish = {
  ...turn,
  outcome: TurnOutcome,
  lastAssistantItem: optional(ClosedIdentity),
  continuationCount: NonNegativeInt,
  usage: optional(TurnUsage),
  items: Content.Messages
}

/** @internal */
export const TurnFinishBefore = Schema.Struct({
  ...envelope,
  type: Schema.Literal("turn.finish.before"),
  ...finish
}).annotations({ identifier: "TurnFinishBefore" })

/** @internal */
export const TurnEnd = crossField(
  Schema.Struct({ ...envelope, type: Schema.Literal("turn.end"), ...finish, error: optional(EventError) }),
  (event) =>
    event.outcome === "completed" && event.error !== undefined
      ? [{ path: ["error"], message: "must be absent when outcome is completed" }]
      : [],
  ({ error, ...event }) => (event.outcome === "completed" || error === undefined ? event : { ...event, error })
).annotations({ identifier: "TurnEnd" })

/** @internal */
export const TurnProgress = Schema.Struct({
  ...envelope,
  type: Schema.Literal("turn.progress"),
  ...turn,
  item: ClosedIdentity,
  delta: Content.Message,
  final: Schema.Boolean
}).annotations({ identifier: "TurnProgress" })

/** @internal */
export const ContextCompactBefore = struct({
  ...envelope,
  type: Schema.Literal("context.compact.before"),
  turn: optional(ClosedIdentity),
  trigger: Schema.Literal("auto", "manual", "hook"),
  items: Content.Messages,
  instructions: optional(Content.TextParts),
  tokenCounts: optional(
    struct({
      ...TokenCounts.fields,
      after: forbidden("must be absent: the size after compaction belongs to context.compact.after")
    }).annotations({ identifier: "TokenCountsBefore", ...closed })
  ),
  summary: forbidden("must be absent: summary belongs to context.compact.after"),
  removed: forbidden("must be absent: removed belongs to context.compact.after"),
  execution: forbidden("must be absent: execution belongs to context.compact.after")
}).annotations({ identifier: "ContextCompactBefore" })

/** @internal */
export const ContextCompactAfter = crossField(
  Schema.Struct({
    ...envelope,
    type: Schema.Literal("context.compact.after"),
    turn: optional(ClosedIdentity),
    items: optional(Content.Messages),
    summary: Content.TextParts,
    removed: Schema.Array(Schema.Struct({ id: NonEmpty }).annotations({ ...closed })),
    tokenCounts: optional(TokenCounts),
    execution: Execution
  }),
  (event) =>
    event.execution.status === "skipped" && event.execution.reason !== "supplied_result"
      ? [{ path: ["execution", "reason"], message: "must be supplied_result when compaction was skipped" }]
      : [],
  (event) =>
    event.execution.status === "skipped"
      ? { ...event, execution: { status: "skipped", reason: "supplied_result" } as const }
      : event
).annotations({ identifier: "ContextCompactAfter" })
