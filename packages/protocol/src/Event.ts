/**
 * The 32 AHP catalogue events, field for field as the official draft schemas declare them:
 * required and forbidden members, enums, closed payload objects and the cross-field rules.
 * Envelopes are open (unknown members are kept); nested protocol objects are closed.
 *
 * The event type names live in `EventType`, the MCP elicitation payloads in `Elicitation`;
 * both are re-exported here for convenience.
 *
 * @since 0.1.0
 */

/**
 * The 32 catalogue event type names.
 *
 * @since 0.1.0
 * @category schemas
 */
export { EventType } from "./EventType.js"

/**
 * Every catalogue event type name, in catalogue order.
 *
 * @since 0.1.0
 * @category constants
 */
export { eventTypes } from "./EventType.js"

/**
 * The 19 event types that may appear in `hooks/intercept` (the intercept request's event
 * union).
 *
 * @since 0.1.0
 * @category constants
 */
export { interceptableEventTypes } from "./EventType.js"

/**
 * An interceptable event type name.
 *
 * @since 0.1.0
 * @category models
 */
export type { InterceptableEventType } from "./EventType.js"

/**
 * Whether a value is a catalogue event type name.
 *
 * @since 0.1.0
 * @category refinements
 */
export { isEventType } from "./EventType.js"

/**
 * Whether an event type may be intercepted.
 *
 * @since 0.1.0
 * @category refinements
 */
export { isInterceptable } from "./EventType.js"

/**
 * The family of an event type: the part before the first dot (`tool` for `tool.before`),
 * as matched by `family.*` wildcards.
 *
 * @since 0.1.0
 * @category accessors
 */
export { family } from "./EventType.js"

import * as Schema from "effect/Schema"
import * as Elicitation from "./Elicitation.js"
import * as fields from "./internal/events/fields.js"
import * as interaction from "./internal/events/interaction.js"
import * as model from "./internal/events/model.js"
import * as session from "./internal/events/session.js"
import * as shared from "./internal/events/shared.js"
import * as task from "./internal/events/task.js"
import * as tool from "./internal/events/tool.js"
import * as turn from "./internal/events/turn.js"
import type { EventType } from "./EventType.js"
import * as Json from "./Json.js"

/**
 * The envelope members every event may carry (`id`, `source`, `type`, `time`, `session`,
 * `parentEventId`, `turn`, `items`, `gaps`, `native`, `extensions`, `synthesized`). Each
 * event narrows `type` and, where its schema says so, requires `session`, closes `turn`,
 * or makes `items` a required list of canonical messages (model-visible slots) instead of
 * the generic part list.
 *
 * @since 0.1.0
 * @category fields
 */
export const envelope = fields.envelope

/**
 * The deepest nesting an event may have: 510 levels, so that a request or notification
 * carrying it (the message and its `params` add two levels) stays within `Json.maxDepth`.
 * Every value a backend may place into the next event (a `modify` value, an injection) sits
 * at least as deep in the response that carries it, so an accepted response can never make
 * the next request too deep to write.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxDepth = Json.maxDepth - 2

/**
 * `model`: `{ id, provider }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Model = shared.Model

/**
 * @since 0.1.0
 * @category models
 */
export type Model = typeof Model.Type

/**
 * `attempt`: one provider attempt, `{ id, number ≥ 1, synthesized? }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Attempt = shared.Attempt

/**
 * @since 0.1.0
 * @category models
 */
export type Attempt = typeof Attempt.Type

/**
 * `error`: `{ message, class, code?, status?, native? }` of a failed tool call, model
 * attempt or turn.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EventError = shared.EventError

/**
 * @since 0.1.0
 * @category models
 */
export type EventError = typeof EventError.Type

/**
 * `execution`: `{ status: "executed" }`, or skipped with reason `supplied_result`, or
 * skipped with reason `policy` | `cancelled` | `timeout` | `other` and an optional detail.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Execution = shared.Execution

/**
 * @since 0.1.0
 * @category models
 */
export type Execution = typeof Execution.Type

/**
 * The outcome of a resolved tool call.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolOutcome = shared.ToolOutcome

/**
 * @since 0.1.0
 * @category models
 */
export type ToolOutcome = typeof ToolOutcome.Type

/**
 * `usage`: token counts and cost of an attempt or a turn (a missing count is unknown,
 * never zero).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Usage = shared.Usage

/**
 * @since 0.1.0
 * @category models
 */
export type Usage = typeof Usage.Type

/**
 * The usage of one provider attempt: kind `amount`, scope `attempt`, provenance
 * `provider` or `estimate`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AttemptUsage = shared.AttemptUsage

/**
 * @since 0.1.0
 * @category models
 */
export type AttemptUsage = typeof AttemptUsage.Type

/**
 * The usage of a turn: kind `total`, scope `turn`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TurnUsage = shared.TurnUsage

/**
 * @since 0.1.0
 * @category models
 */
export type TurnUsage = typeof TurnUsage.Type

/**
 * Where an MCP server runs: `http`/`sse` with `url`, `stdio` with `command`, `args`,
 * `cwd`, or an `_`-prefixed extension transport with `addressForm`, `address`; each
 * location member is present or explained by a `gaps` entry naming it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const McpConnection = shared.McpConnection

/**
 * @since 0.1.0
 * @category models
 */
export type McpConnection = typeof McpConnection.Type

/**
 * `mcp`: the exact MCP server and tool behind an `origin: "mcp"` tool.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Mcp = shared.Mcp

/**
 * @since 0.1.0
 * @category models
 */
export type Mcp = typeof Mcp.Type

/**
 * `tool`: `{ name, input, origin, kind?, mcp? }`; `mcp` is required exactly when
 * `origin` is `mcp`. There is no `output` member (results are the event's `items`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Tool = shared.Tool

/**
 * @since 0.1.0
 * @category models
 */
export type Tool = typeof Tool.Type

/**
 * `call`: the invocation identity `{ id, synthesized? }`, shared by every event of a call.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Call = shared.Call

/**
 * @since 0.1.0
 * @category models
 */
export type Call = typeof Call.Type

/**
 * `batch`: `{ id, callIds, synthesized? }` with distinct sibling call ids.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Batch = shared.Batch

/**
 * @since 0.1.0
 * @category models
 */
export type Batch = typeof Batch.Type

/**
 * One file changed by a tool call (`tool.after` `fileChanges`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const FileChange = shared.FileChange

/**
 * @since 0.1.0
 * @category models
 */
export type FileChange = typeof FileChange.Type

/**
 * `tokenCounts`: context size `{ before?, after? }` around a compaction.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TokenCounts = shared.TokenCounts

/**
 * @since 0.1.0
 * @category models
 */
export type TokenCounts = typeof TokenCounts.Type

/**
 * `tool.before`: a proposed call with final name and input, before any side effect and
 * before the permission stage.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolBefore = tool.ToolBefore

/**
 * @since 0.1.0
 * @category models
 */
export type ToolBefore = typeof ToolBefore.Type

/**
 * `tool.after`: the one completion of a resolved call (executed, denied or supplied);
 * `error` exactly when `outcome` is `error`, result content in `items`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolAfter = tool.ToolAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ToolAfter = typeof ToolAfter.Type

/**
 * `tool.permission.request`: the harness is about to ask for permission to run a call.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolPermissionRequest = tool.ToolPermissionRequest

/**
 * @since 0.1.0
 * @category models
 */
export type ToolPermissionRequest = typeof ToolPermissionRequest.Type

/**
 * `tool.permission.resolved`: a permission decision and who made it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolPermissionResolved = tool.ToolPermissionResolved

/**
 * @since 0.1.0
 * @category models
 */
export type ToolPermissionResolved = typeof ToolPermissionResolved.Type

/**
 * `tool.progress`: partial output of a running call.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolProgress = tool.ToolProgress

/**
 * @since 0.1.0
 * @category models
 */
export type ToolProgress = typeof ToolProgress.Type

/**
 * `tool.batch.after`: every call of a batch has resolved.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolBatchAfter = tool.ToolBatchAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ToolBatchAfter = typeof ToolBatchAfter.Type

/**
 * `session.start`: a session began, with its trigger, harness, permission mode, discovery
 * manifest and startup items.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionStart = session.SessionStart

/**
 * @since 0.1.0
 * @category models
 */
export type SessionStart = typeof SessionStart.Type

/**
 * `session.end`: a known session ending.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionEnd = session.SessionEnd

/**
 * @since 0.1.0
 * @category models
 */
export type SessionEnd = typeof SessionEnd.Type

/**
 * `turn.start`: a turn began; `items` hold the expanded prompt.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TurnStart = turn.TurnStart

/**
 * @since 0.1.0
 * @category models
 */
export type TurnStart = typeof TurnStart.Type

/**
 * `turn.finish.before`: the decision boundary before a turn finishes (may continue).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TurnFinishBefore = turn.TurnFinishBefore

/**
 * @since 0.1.0
 * @category models
 */
export type TurnFinishBefore = typeof TurnFinishBefore.Type

/**
 * `turn.end`: a turn really completed; no `error` when the outcome is `completed`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TurnEnd = turn.TurnEnd

/**
 * @since 0.1.0
 * @category models
 */
export type TurnEnd = typeof TurnEnd.Type

/**
 * `turn.progress`: one streamed delta (a single canonical message).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TurnProgress = turn.TurnProgress

/**
 * @since 0.1.0
 * @category models
 */
export type TurnProgress = typeof TurnProgress.Type

/**
 * `context.compact.before`: compaction is about to run.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContextCompactBefore = turn.ContextCompactBefore

/**
 * @since 0.1.0
 * @category models
 */
export type ContextCompactBefore = typeof ContextCompactBefore.Type

/**
 * `context.compact.after`: a generated or supplied compaction result exists (not yet
 * installed).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContextCompactAfter = turn.ContextCompactAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ContextCompactAfter = typeof ContextCompactAfter.Type

/**
 * `model.request.before`: a provider request is about to be sent.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelRequestBefore = model.ModelRequestBefore

/**
 * @since 0.1.0
 * @category models
 */
export type ModelRequestBefore = typeof ModelRequestBefore.Type

/**
 * `model.response.after`: a provider response (or a supplied result) is available.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelResponseAfter = model.ModelResponseAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ModelResponseAfter = typeof ModelResponseAfter.Type

/**
 * `model.error`: a provider attempt failed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelError = model.ModelError

/**
 * @since 0.1.0
 * @category models
 */
export type ModelError = typeof ModelError.Type

/**
 * `model.switch.before`: the selected model is about to change.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelSwitchBefore = model.ModelSwitchBefore

/**
 * @since 0.1.0
 * @category models
 */
export type ModelSwitchBefore = typeof ModelSwitchBefore.Type

/**
 * `model.switch.after`: the selected model changed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelSwitchAfter = model.ModelSwitchAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ModelSwitchAfter = typeof ModelSwitchAfter.Type

/**
 * `config.change.before`: a configuration change is proposed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ConfigChangeBefore = interaction.ConfigChangeBefore

/**
 * @since 0.1.0
 * @category models
 */
export type ConfigChangeBefore = typeof ConfigChangeBefore.Type

/**
 * `config.change.after`: a configuration change took effect.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ConfigChangeAfter = interaction.ConfigChangeAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ConfigChangeAfter = typeof ConfigChangeAfter.Type

/**
 * `user.attention`: a notification for the user (not an approval).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserAttention = interaction.UserAttention

/**
 * @since 0.1.0
 * @category models
 */
export type UserAttention = typeof UserAttention.Type

/**
 * `user.elicitation.request`: an MCP server asks the user for input; `request` is a text
 * part holding the serialized MCP request params.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserElicitationRequest = interaction.UserElicitationRequest

/**
 * @since 0.1.0
 * @category models
 */
export type UserElicitationRequest = typeof UserElicitationRequest.Type

/**
 * `user.elicitation.result`: the user's answer; `result` is a text part holding the
 * serialized MCP `ElicitResult`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserElicitationResult = interaction.UserElicitationResult

/**
 * @since 0.1.0
 * @category models
 */
export type UserElicitationResult = typeof UserElicitationResult.Type

/**
 * `user.message.inbound`: messages from an external channel (role `user`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserMessageInbound = interaction.UserMessageInbound

/**
 * @since 0.1.0
 * @category models
 */
export type UserMessageInbound = typeof UserMessageInbound.Type

/**
 * `user.message.outbound`: messages sent to an external channel (role `assistant`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserMessageOutbound = interaction.UserMessageOutbound

/**
 * @since 0.1.0
 * @category models
 */
export type UserMessageOutbound = typeof UserMessageOutbound.Type

/**
 * `hook.failure`: a backend failed on `parentEventId` and the failure policy was applied.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HookFailure = interaction.HookFailure

/**
 * @since 0.1.0
 * @category models
 */
export type HookFailure = typeof HookFailure.Type

/**
 * `task.change.before`: a task change is proposed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskChangeBefore = task.TaskChangeBefore

/**
 * @since 0.1.0
 * @category models
 */
export type TaskChangeBefore = typeof TaskChangeBefore.Type

/**
 * `task.change.after`: a task change was applied.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskChangeAfter = task.TaskChangeAfter

/**
 * @since 0.1.0
 * @category models
 */
export type TaskChangeAfter = typeof TaskChangeAfter.Type

/**
 * `workspace.change.before`: a working-directory or workspace-roots change is proposed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const WorkspaceChangeBefore = task.WorkspaceChangeBefore

/**
 * @since 0.1.0
 * @category models
 */
export type WorkspaceChangeBefore = typeof WorkspaceChangeBefore.Type

/**
 * `workspace.change.after`: a working-directory or workspace-roots change took effect.
 *
 * @since 0.1.0
 * @category schemas
 */
export const WorkspaceChangeAfter = task.WorkspaceChangeAfter

/**
 * @since 0.1.0
 * @category models
 */
export type WorkspaceChangeAfter = typeof WorkspaceChangeAfter.Type

/**
 * `file.changed`: files changed, with optional before/after snapshots.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FileChanged = task.FileChanged

/**
 * @since 0.1.0
 * @category models
 */
export type FileChanged = typeof FileChanged.Type

/**
 * Any catalogue event, discriminated by `type`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Event = Schema.Union(
  ToolBefore,
  ToolAfter,
  SessionStart,
  SessionEnd,
  ConfigChangeBefore,
  ConfigChangeAfter,
  TurnStart,
  TurnFinishBefore,
  TurnEnd,
  TurnProgress,
  ModelRequestBefore,
  ModelResponseAfter,
  ModelError,
  ModelSwitchBefore,
  ModelSwitchAfter,
  ToolPermissionRequest,
  ToolPermissionResolved,
  ToolProgress,
  ToolBatchAfter,
  ContextCompactBefore,
  ContextCompactAfter,
  TaskChangeBefore,
  TaskChangeAfter,
  UserAttention,
  UserElicitationRequest,
  UserElicitationResult,
  UserMessageInbound,
  UserMessageOutbound,
  WorkspaceChangeBefore,
  WorkspaceChangeAfter,
  FileChanged,
  HookFailure
).annotations({ identifier: "Event" })

/**
 * @since 0.1.0
 * @category models
 */
export type Event = typeof Event.Type

/**
 * An event that may appear in `hooks/intercept`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InterceptableEvent = Schema.Union(
  ToolBefore,
  ToolAfter,
  SessionStart,
  ConfigChangeBefore,
  TurnStart,
  TurnFinishBefore,
  ModelRequestBefore,
  ModelSwitchBefore,
  ToolPermissionRequest,
  ToolBatchAfter,
  ContextCompactBefore,
  ContextCompactAfter,
  TaskChangeBefore,
  UserElicitationRequest,
  UserElicitationResult,
  UserMessageInbound,
  UserMessageOutbound,
  WorkspaceChangeBefore,
  ModelResponseAfter
).annotations({ identifier: "InterceptableEvent" })

/**
 * @since 0.1.0
 * @category models
 */
export type InterceptableEvent = typeof InterceptableEvent.Type

/**
 * The schema of every event type, keyed by type name.
 *
 * @since 0.1.0
 * @category constants
 */
export const schemas = {
  "tool.before": ToolBefore,
  "tool.after": ToolAfter,
  "session.start": SessionStart,
  "session.end": SessionEnd,
  "config.change.before": ConfigChangeBefore,
  "config.change.after": ConfigChangeAfter,
  "turn.start": TurnStart,
  "turn.finish.before": TurnFinishBefore,
  "turn.end": TurnEnd,
  "turn.progress": TurnProgress,
  "model.request.before": ModelRequestBefore,
  "model.response.after": ModelResponseAfter,
  "model.error": ModelError,
  "model.switch.before": ModelSwitchBefore,
  "model.switch.after": ModelSwitchAfter,
  "tool.permission.request": ToolPermissionRequest,
  "tool.permission.resolved": ToolPermissionResolved,
  "tool.progress": ToolProgress,
  "tool.batch.after": ToolBatchAfter,
  "context.compact.before": ContextCompactBefore,
  "context.compact.after": ContextCompactAfter,
  "task.change.before": TaskChangeBefore,
  "task.change.after": TaskChangeAfter,
  "user.attention": UserAttention,
  "user.elicitation.request": UserElicitationRequest,
  "user.elicitation.result": UserElicitationResult,
  "user.message.inbound": UserMessageInbound,
  "user.message.outbound": UserMessageOutbound,
  "workspace.change.before": WorkspaceChangeBefore,
  "workspace.change.after": WorkspaceChangeAfter,
  "file.changed": FileChanged,
  "hook.failure": HookFailure
} as const satisfies { readonly [T in EventType]: Schema.Schema.AnyNoContext }

/**
 * The schema of one event type.
 *
 * @since 0.1.0
 * @category accessors
 */
export const schemaFor = <T extends EventType>(type: T): (typeof schemas)[T] => schemas[type]

/**
 * The pinned MCP `elicitation/create` params.
 *
 * @since 0.1.0
 * @category elicitation
 * @deprecated use `Elicitation.ElicitRequestParams`
 */
export const ElicitRequestParams = Elicitation.ElicitRequestParams

/**
 * @since 0.1.0
 * @category elicitation
 * @deprecated use `Elicitation.ElicitRequestParams`
 */
export type ElicitRequestParams = Elicitation.ElicitRequestParams

/**
 * The pinned MCP `ElicitResult`.
 *
 * @since 0.1.0
 * @category elicitation
 * @deprecated use `Elicitation.ElicitResult`
 */
export const ElicitResult = Elicitation.ElicitResult

/**
 * @since 0.1.0
 * @category elicitation
 * @deprecated use `Elicitation.ElicitResult`
 */
export type ElicitResult = Elicitation.ElicitResult

/**
 * A form's `requestedSchema`.
 *
 * @since 0.1.0
 * @category elicitation
 * @deprecated use `Elicitation.RequestedSchema`
 */
export const RequestedSchema = Elicitation.RequestedSchema

/**
 * @since 0.1.0
 * @category elicitation
 * @deprecated use `Elicitation.RequestedSchema`
 */
export type RequestedSchema = Elicitation.RequestedSchema

/**
 * Parses a `user.elicitation.request` body part's text.
 *
 * @since 0.1.0
 * @category elicitation
 * @deprecated use `Elicitation.parseRequest`
 */
export const parseElicitationRequest = Elicitation.parseRequest

/**
 * Parses a `user.elicitation.result` body part's text.
 *
 * @since 0.1.0
 * @category elicitation
 * @deprecated use `Elicitation.parseResult`
 */
export const parseElicitationResult = Elicitation.parseResult

/**
 * The mode of parsed request params.
 *
 * @since 0.1.0
 * @category elicitation
 * @deprecated use `Elicitation.mode`
 */
export const elicitationMode = Elicitation.mode

/**
 * Problems of an accepted form answer.
 *
 * @since 0.1.0
 * @category elicitation
 * @deprecated use `Elicitation.checkAnswer`
 */
export const checkElicitationAnswer = Elicitation.checkAnswer
