/**
 * Task, workspace and file events: `task.change.before`, `task.change.after`,
 * `workspace.change.before`, `workspace.change.after` and `file.changed`. Payload keys
 * are closed; task `change`/`prior` state stays harness-defined (open).
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { closed, NonEmpty, synthesized } from "../../Common.js"
import * as Content from "../../Content.js"
import * as Json from "../../Json.js"
import { crossField, envelope, optional, uniqueStrings } from "./fields.js"

const Operation = Schema.Literal("create", "update", "remove")

const Task = Schema.Struct({
  id: NonEmpty,
  operation: Operation,
  change: Json.AnyObject,
  prior: optional(Json.AnyObject),
  description: optional(Schema.String),
  synthesized
}).annotations({ identifier: "Task", ...closed })

/** @internal */
export const TaskChangeBefore = Schema.Struct({ ...envelope, type: Schema.Literal("task.change.before"), task: Task })
  .annotations({ identifier: "TaskChangeBefore" })

/** @internal */
export const TaskChangeAfter = Schema.Struct({ ...envelope, type: Schema.Literal("task.change.after"), task: Task })
  .annotations({ identifier: "TaskChangeAfter" })

const WorkspaceState = crossField(
  Schema.Struct({ cwd: optional(NonEmpty), workspaceRoots: optional(uniqueStrings(0)) }).annotations({ ...closed }),
  (state) =>
    state.cwd === undefined && state.workspaceRoots === undefined
      ? [{ path: [], message: "must carry cwd or workspaceRoots" }]
      : [],
  (state) => (state.cwd === undefined && state.workspaceRoots === undefined ? { cwd: "/" } : state)
).annotations({ identifier: "WorkspaceState" })

const Workspace = Schema.Struct({
  kind: Schema.Literal("cwd", "roots", "switch"),
  change: WorkspaceState,
  prior: optional(WorkspaceState),
  reason: optional(Schema.String)
}).annotations({ identifier: "Workspace", ...closed })

/** @internal */
export const WorkspaceChangeBefore = Schema.Struct({
  ...envelope,
  type: Schema.Literal("workspace.change.before"),
  workspace: Workspace
}).annotations({ identifier: "WorkspaceChangeBefore" })

/** @internal */
export const WorkspaceChangeAfter = Schema.Struct({
  ...envelope,
  type: Schema.Literal("workspace.change.after"),
  workspace: Workspace
}).annotations({ identifier: "WorkspaceChangeAfter" })

const ChangedFile = Schema.Struct({
  path: NonEmpty,
  operation: Operation,
  agentCaused: Schema.Boolean,
  before: optional(Content.Part),
  after: optional(Content.Part)
}).annotations({ identifier: "ChangedFile", ...closed })

/** @internal */
export const FileChanged = Schema.Struct({
  ...envelope,
  type: Schema.Literal("file.changed"),
  changes: Schema.Array(ChangedFile).pipe(Schema.minItems(1, { message: () => "must list at least one change" }))
}).annotations({ identifier: "FileChanged" })
