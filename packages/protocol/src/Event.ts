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
import * as Decoder from "./Decoder.js"
import type { EventType } from "./EventType.js"
import * as fields from "./internal/events/fields.js"
import * as interaction from "./internal/events/interaction.js"
import * as model from "./internal/events/model.js"
import * as session from "./internal/events/session.js"
import * as shared from "./internal/events/shared.js"
import * as task from "./internal/events/task.js"
import * as tool from "./internal/events/tool.js"
import * as turn from "./internal/events/turn.js"
import type * as Issue from "./Issue.js"
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

type ToolBeforeSchema_ = typeof tool.ToolBefore

/**
 * The type of the `ToolBefore` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ToolBeforeSchema extends ToolBeforeSchema_ {}

/**
 * `tool.before`: a proposed call with final name and input, before any side effect and
 * before the permission stage.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolBefore: ToolBeforeSchema = tool.ToolBefore

/**
 * @since 0.1.0
 * @category models
 */
export type ToolBefore = typeof ToolBefore.Type

type ToolAfterSchema_ = typeof tool.ToolAfter

/**
 * The type of the `ToolAfter` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ToolAfterSchema extends ToolAfterSchema_ {}

/**
 * `tool.after`: the one completion of a resolved call (executed, denied or supplied);
 * `error` exactly when `outcome` is `error`, result content in `items`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolAfter: ToolAfterSchema = tool.ToolAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ToolAfter = typeof ToolAfter.Type

type ToolPermissionRequestSchema_ = typeof tool.ToolPermissionRequest

/**
 * The type of the `ToolPermissionRequest` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ToolPermissionRequestSchema extends ToolPermissionRequestSchema_ {}

/**
 * `tool.permission.request`: the harness is about to ask for permission to run a call.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolPermissionRequest: ToolPermissionRequestSchema = tool.ToolPermissionRequest

/**
 * @since 0.1.0
 * @category models
 */
export type ToolPermissionRequest = typeof ToolPermissionRequest.Type

type ToolPermissionResolvedSchema_ = typeof tool.ToolPermissionResolved

/**
 * The type of the `ToolPermissionResolved` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ToolPermissionResolvedSchema extends ToolPermissionResolvedSchema_ {}

/**
 * `tool.permission.resolved`: a permission decision and who made it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolPermissionResolved: ToolPermissionResolvedSchema = tool.ToolPermissionResolved

/**
 * @since 0.1.0
 * @category models
 */
export type ToolPermissionResolved = typeof ToolPermissionResolved.Type

type ToolProgressSchema_ = typeof tool.ToolProgress

/**
 * The type of the `ToolProgress` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ToolProgressSchema extends ToolProgressSchema_ {}

/**
 * `tool.progress`: partial output of a running call.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolProgress: ToolProgressSchema = tool.ToolProgress

/**
 * @since 0.1.0
 * @category models
 */
export type ToolProgress = typeof ToolProgress.Type

type ToolBatchAfterSchema_ = typeof tool.ToolBatchAfter

/**
 * The type of the `ToolBatchAfter` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ToolBatchAfterSchema extends ToolBatchAfterSchema_ {}

/**
 * `tool.batch.after`: every call of a batch has resolved.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ToolBatchAfter: ToolBatchAfterSchema = tool.ToolBatchAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ToolBatchAfter = typeof ToolBatchAfter.Type

type SessionStartSchema_ = typeof session.SessionStart

/**
 * The type of the `SessionStart` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface SessionStartSchema extends SessionStartSchema_ {}

/**
 * `session.start`: a session began, with its trigger, harness, permission mode, discovery
 * manifest and startup items.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionStart: SessionStartSchema = session.SessionStart

/**
 * @since 0.1.0
 * @category models
 */
export type SessionStart = typeof SessionStart.Type

type SessionEndSchema_ = typeof session.SessionEnd

/**
 * The type of the `SessionEnd` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface SessionEndSchema extends SessionEndSchema_ {}

/**
 * `session.end`: a known session ending.
 *
 * @since 0.1.0
 * @category schemas
 */
export const SessionEnd: SessionEndSchema = session.SessionEnd

/**
 * @since 0.1.0
 * @category models
 */
export type SessionEnd = typeof SessionEnd.Type

type TurnStartSchema_ = typeof turn.TurnStart

/**
 * The type of the `TurnStart` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface TurnStartSchema extends TurnStartSchema_ {}

/**
 * `turn.start`: a turn began; `items` hold the expanded prompt.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TurnStart: TurnStartSchema = turn.TurnStart

/**
 * @since 0.1.0
 * @category models
 */
export type TurnStart = typeof TurnStart.Type

type TurnFinishBeforeSchema_ = typeof turn.TurnFinishBefore

/**
 * The type of the `TurnFinishBefore` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface TurnFinishBeforeSchema extends TurnFinishBeforeSchema_ {}

/**
 * `turn.finish.before`: the decision boundary before a turn finishes (may continue).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TurnFinishBefore: TurnFinishBeforeSchema = turn.TurnFinishBefore

/**
 * @since 0.1.0
 * @category models
 */
export type TurnFinishBefore = typeof TurnFinishBefore.Type

type TurnEndSchema_ = typeof turn.TurnEnd

/**
 * The type of the `TurnEnd` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface TurnEndSchema extends TurnEndSchema_ {}

/**
 * `turn.end`: a turn really completed; no `error` when the outcome is `completed`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TurnEnd: TurnEndSchema = turn.TurnEnd

/**
 * @since 0.1.0
 * @category models
 */
export type TurnEnd = typeof TurnEnd.Type

type TurnProgressSchema_ = typeof turn.TurnProgress

/**
 * The type of the `TurnProgress` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface TurnProgressSchema extends TurnProgressSchema_ {}

/**
 * `turn.progress`: one streamed delta (a single canonical message).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TurnProgress: TurnProgressSchema = turn.TurnProgress

/**
 * @since 0.1.0
 * @category models
 */
export type TurnProgress = typeof TurnProgress.Type

type ContextCompactBeforeSchema_ = typeof turn.ContextCompactBefore

/**
 * The type of the `ContextCompactBefore` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ContextCompactBeforeSchema extends ContextCompactBeforeSchema_ {}

/**
 * `context.compact.before`: compaction is about to run.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContextCompactBefore: ContextCompactBeforeSchema = turn.ContextCompactBefore

/**
 * @since 0.1.0
 * @category models
 */
export type ContextCompactBefore = typeof ContextCompactBefore.Type

type ContextCompactAfterSchema_ = typeof turn.ContextCompactAfter

/**
 * The type of the `ContextCompactAfter` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ContextCompactAfterSchema extends ContextCompactAfterSchema_ {}

/**
 * `context.compact.after`: a generated or supplied compaction result exists (not yet
 * installed).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContextCompactAfter: ContextCompactAfterSchema = turn.ContextCompactAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ContextCompactAfter = typeof ContextCompactAfter.Type

type ModelRequestBeforeSchema_ = typeof model.ModelRequestBefore

/**
 * The type of the `ModelRequestBefore` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ModelRequestBeforeSchema extends ModelRequestBeforeSchema_ {}

/**
 * `model.request.before`: a provider request is about to be sent.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelRequestBefore: ModelRequestBeforeSchema = model.ModelRequestBefore

/**
 * @since 0.1.0
 * @category models
 */
export type ModelRequestBefore = typeof ModelRequestBefore.Type

type ModelResponseAfterSchema_ = typeof model.ModelResponseAfter

/**
 * The type of the `ModelResponseAfter` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ModelResponseAfterSchema extends ModelResponseAfterSchema_ {}

/**
 * `model.response.after`: a provider response (or a supplied result) is available.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelResponseAfter: ModelResponseAfterSchema = model.ModelResponseAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ModelResponseAfter = typeof ModelResponseAfter.Type

type ModelErrorSchema_ = typeof model.ModelError

/**
 * The type of the `ModelError` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ModelErrorSchema extends ModelErrorSchema_ {}

/**
 * `model.error`: a provider attempt failed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelError: ModelErrorSchema = model.ModelError

/**
 * @since 0.1.0
 * @category models
 */
export type ModelError = typeof ModelError.Type

type ModelSwitchBeforeSchema_ = typeof model.ModelSwitchBefore

/**
 * The type of the `ModelSwitchBefore` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ModelSwitchBeforeSchema extends ModelSwitchBeforeSchema_ {}

/**
 * `model.switch.before`: the selected model is about to change.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelSwitchBefore: ModelSwitchBeforeSchema = model.ModelSwitchBefore

/**
 * @since 0.1.0
 * @category models
 */
export type ModelSwitchBefore = typeof ModelSwitchBefore.Type

type ModelSwitchAfterSchema_ = typeof model.ModelSwitchAfter

/**
 * The type of the `ModelSwitchAfter` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ModelSwitchAfterSchema extends ModelSwitchAfterSchema_ {}

/**
 * `model.switch.after`: the selected model changed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModelSwitchAfter: ModelSwitchAfterSchema = model.ModelSwitchAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ModelSwitchAfter = typeof ModelSwitchAfter.Type

type ConfigChangeBeforeSchema_ = typeof interaction.ConfigChangeBefore

/**
 * The type of the `ConfigChangeBefore` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ConfigChangeBeforeSchema extends ConfigChangeBeforeSchema_ {}

/**
 * `config.change.before`: a configuration change is proposed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ConfigChangeBefore: ConfigChangeBeforeSchema = interaction.ConfigChangeBefore

/**
 * @since 0.1.0
 * @category models
 */
export type ConfigChangeBefore = typeof ConfigChangeBefore.Type

type ConfigChangeAfterSchema_ = typeof interaction.ConfigChangeAfter

/**
 * The type of the `ConfigChangeAfter` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface ConfigChangeAfterSchema extends ConfigChangeAfterSchema_ {}

/**
 * `config.change.after`: a configuration change took effect.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ConfigChangeAfter: ConfigChangeAfterSchema = interaction.ConfigChangeAfter

/**
 * @since 0.1.0
 * @category models
 */
export type ConfigChangeAfter = typeof ConfigChangeAfter.Type

type UserAttentionSchema_ = typeof interaction.UserAttention

/**
 * The type of the `UserAttention` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface UserAttentionSchema extends UserAttentionSchema_ {}

/**
 * `user.attention`: a notification for the user (not an approval).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserAttention: UserAttentionSchema = interaction.UserAttention

/**
 * @since 0.1.0
 * @category models
 */
export type UserAttention = typeof UserAttention.Type

type UserElicitationRequestSchema_ = typeof interaction.UserElicitationRequest

/**
 * The type of the `UserElicitationRequest` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface UserElicitationRequestSchema extends UserElicitationRequestSchema_ {}

/**
 * `user.elicitation.request`: an MCP server asks the user for input; `request` is a text
 * part holding the serialized MCP request params.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserElicitationRequest: UserElicitationRequestSchema = interaction.UserElicitationRequest

/**
 * @since 0.1.0
 * @category models
 */
export type UserElicitationRequest = typeof UserElicitationRequest.Type

type UserElicitationResultSchema_ = typeof interaction.UserElicitationResult

/**
 * The type of the `UserElicitationResult` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface UserElicitationResultSchema extends UserElicitationResultSchema_ {}

/**
 * `user.elicitation.result`: the user's answer; `result` is a text part holding the
 * serialized MCP `ElicitResult`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserElicitationResult: UserElicitationResultSchema = interaction.UserElicitationResult

/**
 * @since 0.1.0
 * @category models
 */
export type UserElicitationResult = typeof UserElicitationResult.Type

type UserMessageInboundSchema_ = typeof interaction.UserMessageInbound

/**
 * The type of the `UserMessageInbound` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface UserMessageInboundSchema extends UserMessageInboundSchema_ {}

/**
 * `user.message.inbound`: messages from an external channel (role `user`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserMessageInbound: UserMessageInboundSchema = interaction.UserMessageInbound

/**
 * @since 0.1.0
 * @category models
 */
export type UserMessageInbound = typeof UserMessageInbound.Type

type UserMessageOutboundSchema_ = typeof interaction.UserMessageOutbound

/**
 * The type of the `UserMessageOutbound` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface UserMessageOutboundSchema extends UserMessageOutboundSchema_ {}

/**
 * `user.message.outbound`: messages sent to an external channel (role `assistant`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const UserMessageOutbound: UserMessageOutboundSchema = interaction.UserMessageOutbound

/**
 * @since 0.1.0
 * @category models
 */
export type UserMessageOutbound = typeof UserMessageOutbound.Type

type HookFailureSchema_ = typeof interaction.HookFailure

/**
 * The type of the `HookFailure` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface HookFailureSchema extends HookFailureSchema_ {}

/**
 * `hook.failure`: a backend failed on `parentEventId` and the failure policy was applied.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HookFailure: HookFailureSchema = interaction.HookFailure

/**
 * @since 0.1.0
 * @category models
 */
export type HookFailure = typeof HookFailure.Type

type TaskChangeBeforeSchema_ = typeof task.TaskChangeBefore

/**
 * The type of the `TaskChangeBefore` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface TaskChangeBeforeSchema extends TaskChangeBeforeSchema_ {}

/**
 * `task.change.before`: a task change is proposed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskChangeBefore: TaskChangeBeforeSchema = task.TaskChangeBefore

/**
 * @since 0.1.0
 * @category models
 */
export type TaskChangeBefore = typeof TaskChangeBefore.Type

type TaskChangeAfterSchema_ = typeof task.TaskChangeAfter

/**
 * The type of the `TaskChangeAfter` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface TaskChangeAfterSchema extends TaskChangeAfterSchema_ {}

/**
 * `task.change.after`: a task change was applied.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TaskChangeAfter: TaskChangeAfterSchema = task.TaskChangeAfter

/**
 * @since 0.1.0
 * @category models
 */
export type TaskChangeAfter = typeof TaskChangeAfter.Type

type WorkspaceChangeBeforeSchema_ = typeof task.WorkspaceChangeBefore

/**
 * The type of the `WorkspaceChangeBefore` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface WorkspaceChangeBeforeSchema extends WorkspaceChangeBeforeSchema_ {}

/**
 * `workspace.change.before`: a working-directory or workspace-roots change is proposed.
 *
 * @since 0.1.0
 * @category schemas
 */
export const WorkspaceChangeBefore: WorkspaceChangeBeforeSchema = task.WorkspaceChangeBefore

/**
 * @since 0.1.0
 * @category models
 */
export type WorkspaceChangeBefore = typeof WorkspaceChangeBefore.Type

type WorkspaceChangeAfterSchema_ = typeof task.WorkspaceChangeAfter

/**
 * The type of the `WorkspaceChangeAfter` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface WorkspaceChangeAfterSchema extends WorkspaceChangeAfterSchema_ {}

/**
 * `workspace.change.after`: a working-directory or workspace-roots change took effect.
 *
 * @since 0.1.0
 * @category schemas
 */
export const WorkspaceChangeAfter: WorkspaceChangeAfterSchema = task.WorkspaceChangeAfter

/**
 * @since 0.1.0
 * @category models
 */
export type WorkspaceChangeAfter = typeof WorkspaceChangeAfter.Type

type FileChangedSchema_ = typeof task.FileChanged

/**
 * The type of the `FileChanged` schema, named so that declarations using it stay small.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface FileChangedSchema extends FileChangedSchema_ {}

/**
 * `file.changed`: files changed, with optional before/after snapshots.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FileChanged: FileChangedSchema = task.FileChanged

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
 * The event of one event type (a union of events for a union of types).
 *
 * @since 0.1.0
 * @category models
 */
export type EventOf<T extends EventType> = Extract<Event, { readonly type: T }>

/**
 * An event as a host supplies it to the harness: the envelope's `type` comes from the
 * boundary called, and `id`, `time` and `source` may be left for the harness to fill in.
 * Each event type has its input named (`ToolBeforeInput`, …), so compiler messages about
 * an input name it instead of spelling the whole event out.
 *
 * @since 0.1.0
 * @category inputs
 */
export type Input<E extends Event = Event> = E extends unknown ? Omit<E, "type" | "id" | "time" | "source"> & {
    readonly id?: string
    readonly time?: string
    readonly source?: string
  }
  : never

/**
 * A `tool.before` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ToolBeforeInput extends Input<ToolBefore> {}

/**
 * A `tool.after` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ToolAfterInput extends Input<ToolAfter> {}

/**
 * A `session.start` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface SessionStartInput extends Input<SessionStart> {}

/**
 * A `session.end` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface SessionEndInput extends Input<SessionEnd> {}

/**
 * A `config.change.before` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ConfigChangeBeforeInput extends Input<ConfigChangeBefore> {}

/**
 * A `config.change.after` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ConfigChangeAfterInput extends Input<ConfigChangeAfter> {}

/**
 * A `turn.start` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface TurnStartInput extends Input<TurnStart> {}

/**
 * A `turn.finish.before` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface TurnFinishBeforeInput extends Input<TurnFinishBefore> {}

/**
 * A `turn.end` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface TurnEndInput extends Input<TurnEnd> {}

/**
 * A `turn.progress` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface TurnProgressInput extends Input<TurnProgress> {}

/**
 * A `model.request.before` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ModelRequestBeforeInput extends Input<ModelRequestBefore> {}

/**
 * A `model.response.after` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ModelResponseAfterInput extends Input<ModelResponseAfter> {}

/**
 * A `model.error` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ModelErrorInput extends Input<ModelError> {}

/**
 * A `model.switch.before` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ModelSwitchBeforeInput extends Input<ModelSwitchBefore> {}

/**
 * A `model.switch.after` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ModelSwitchAfterInput extends Input<ModelSwitchAfter> {}

/**
 * A `tool.permission.request` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ToolPermissionRequestInput extends Input<ToolPermissionRequest> {}

/**
 * A `tool.permission.resolved` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ToolPermissionResolvedInput extends Input<ToolPermissionResolved> {}

/**
 * A `tool.progress` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ToolProgressInput extends Input<ToolProgress> {}

/**
 * A `tool.batch.after` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ToolBatchAfterInput extends Input<ToolBatchAfter> {}

/**
 * A `context.compact.before` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ContextCompactBeforeInput extends Input<ContextCompactBefore> {}

/**
 * A `context.compact.after` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface ContextCompactAfterInput extends Input<ContextCompactAfter> {}

/**
 * A `task.change.before` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface TaskChangeBeforeInput extends Input<TaskChangeBefore> {}

/**
 * A `task.change.after` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface TaskChangeAfterInput extends Input<TaskChangeAfter> {}

/**
 * A `user.attention` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface UserAttentionInput extends Input<UserAttention> {}

/**
 * A `user.elicitation.request` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface UserElicitationRequestInput extends Input<UserElicitationRequest> {}

/**
 * A `user.elicitation.result` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface UserElicitationResultInput extends Input<UserElicitationResult> {}

/**
 * A `user.message.inbound` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface UserMessageInboundInput extends Input<UserMessageInbound> {}

/**
 * A `user.message.outbound` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface UserMessageOutboundInput extends Input<UserMessageOutbound> {}

/**
 * A `workspace.change.before` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface WorkspaceChangeBeforeInput extends Input<WorkspaceChangeBefore> {}

/**
 * A `workspace.change.after` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface WorkspaceChangeAfterInput extends Input<WorkspaceChangeAfter> {}

/**
 * A `file.changed` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface FileChangedInput extends Input<FileChanged> {}

/**
 * A `hook.failure` event as a host supplies it (`Input`).
 *
 * @since 0.1.0
 * @category inputs
 */
export interface HookFailureInput extends Input<HookFailure> {}

/**
 * The named input of every event type, keyed by type name.
 *
 * @since 0.1.0
 * @category inputs
 */
export interface Inputs {
  readonly "tool.before": ToolBeforeInput
  readonly "tool.after": ToolAfterInput
  readonly "session.start": SessionStartInput
  readonly "session.end": SessionEndInput
  readonly "config.change.before": ConfigChangeBeforeInput
  readonly "config.change.after": ConfigChangeAfterInput
  readonly "turn.start": TurnStartInput
  readonly "turn.finish.before": TurnFinishBeforeInput
  readonly "turn.end": TurnEndInput
  readonly "turn.progress": TurnProgressInput
  readonly "model.request.before": ModelRequestBeforeInput
  readonly "model.response.after": ModelResponseAfterInput
  readonly "model.error": ModelErrorInput
  readonly "model.switch.before": ModelSwitchBeforeInput
  readonly "model.switch.after": ModelSwitchAfterInput
  readonly "tool.permission.request": ToolPermissionRequestInput
  readonly "tool.permission.resolved": ToolPermissionResolvedInput
  readonly "tool.progress": ToolProgressInput
  readonly "tool.batch.after": ToolBatchAfterInput
  readonly "context.compact.before": ContextCompactBeforeInput
  readonly "context.compact.after": ContextCompactAfterInput
  readonly "task.change.before": TaskChangeBeforeInput
  readonly "task.change.after": TaskChangeAfterInput
  readonly "user.attention": UserAttentionInput
  readonly "user.elicitation.request": UserElicitationRequestInput
  readonly "user.elicitation.result": UserElicitationResultInput
  readonly "user.message.inbound": UserMessageInboundInput
  readonly "user.message.outbound": UserMessageOutboundInput
  readonly "workspace.change.before": WorkspaceChangeBeforeInput
  readonly "workspace.change.after": WorkspaceChangeAfterInput
  readonly "file.changed": FileChangedInput
  readonly "hook.failure": HookFailureInput
}

/**
 * The input of one event type (a union of inputs for a union of types).
 *
 * @since 0.1.0
 * @category inputs
 */
export type InputOf<T extends EventType> = Inputs[T]

/**
 * The schema of one event type.
 *
 * @since 0.1.0
 * @category accessors
 */
export const schemaFor = <T extends EventType>(type: T): (typeof schemas)[T] => schemas[type]

const validators = new Map<EventType, (input: unknown) => Array<Issue.Issue>>()

/**
 * The validator of one event type's schema (`Decoder.validator`), built once per type and
 * shared by every caller: the harness checks each dispatched event with it, and
 * `ahp validate` each event file, so both find the same problems.
 *
 * @since 0.1.0
 * @category accessors
 */
export const validatorFor = (type: EventType): (input: unknown) => Array<Issue.Issue> => {
  let validate = validators.get(type)
  if (validate === undefined) {
    validate = Decoder.validator(schemas[type] as Schema.Schema<unknown, unknown>)
    validators.set(type, validate)
  }
  return validate
}
