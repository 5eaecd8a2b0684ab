/**
 * Shared definitions of the execution events (`execution-event.schema.json` `$defs`):
 * model, attempt, error, execution, usage, MCP descriptor, tool, call, batch, file change
 * and token counts.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { AbsoluteUri, closed, FieldGap, Int, NonEmpty, NonNegativeInt, PositiveInt, synthesized } from "../../Common.js"
import * as Content from "../../Content.js"
import * as Json from "../../Json.js"
import {
  ClosedIdentity,
  crossField,
  Currency,
  forbidden,
  NonNegativeNumber,
  optional,
  uniqueStrings
} from "./fields.js"

/** @internal */
export const Model = Schema.Struct({ id: NonEmpty, provider: NonEmpty }).annotations({ identifier: "Model", ...closed })

/** @internal */
export const Attempt = Schema.Struct({ id: NonEmpty, number: PositiveInt, synthesized }).annotations({
  identifier: "Attempt",
  ...closed
})

/** @internal */
export const EventError = Schema.Struct({
  message: NonEmpty,
  class: NonEmpty,
  code: optional(NonEmpty),
  status: optional(Schema.Union(NonEmpty, Int)),
  native: optional(Json.Value)
}).annotations({ identifier: "EventError", ...closed })

/** @internal */
export const Executed = Schema.Struct({ status: Schema.Literal("executed") }).annotations({
  identifier: "Executed",
  ...closed
})

const SuppliedResult = Schema.Struct({
  status: Schema.Literal("skipped"),
  reason: Schema.Literal("supplied_result")
}).annotations({ identifier: "SuppliedResult", ...closed })

const Skipped = Schema.Struct({
  status: Schema.Literal("skipped"),
  reason: Schema.Literal("policy", "cancelled", "timeout", "other"),
  detail: optional(NonEmpty)
}).annotations({ identifier: "Skipped", ...closed })

/** @internal */
export const Execution = Schema.Union(Executed, SuppliedResult, Skipped).annotations({ identifier: "Execution" })

/** @internal */
export const ToolOutcome = Schema.Literal("ok", "error", "denied", "cancelled", "timeout")

const Cost = Schema.Struct({
  amount: NonNegativeNumber,
  currency: Currency,
  basis: Schema.Literal("billed", "reported", "estimated")
}).annotations({ identifier: "Cost", ...closed })

const usageFields = {
  kind: Schema.Literal("amount", "total"),
  scope: Schema.Literal("attempt", "turn"),
  completeness: Schema.Literal("complete", "partial", "unknown"),
  provenance: Schema.Literal("provider", "estimate", "mixed"),
  inputTokens: optional(NonNegativeInt),
  outputTokens: optional(NonNegativeInt),
  cacheReadTokens: optional(NonNegativeInt),
  cacheWriteTokens: optional(NonNegativeInt),
  cost: optional(Cost)
}

/** @internal */
export const Usage = Schema.Struct(usageFields).annotations({ identifier: "Usage", ...closed })

/** @internal */
export const AttemptUsage = Schema.Struct({
  ...usageFields,
  kind: Schema.Literal("amount"),
  scope: Schema.Literal("attempt"),
  provenance: Schema.Literal("provider", "estimate")
}).annotations({ identifier: "AttemptUsage", ...closed })

/** @internal */
export const TurnUsage = Schema.Struct({ ...usageFields, kind: Schema.Literal("total"), scope: Schema.Literal("turn") })
  .annotations({ identifier: "TurnUsage", ...closed })

const ConnectionGaps = Schema.Array(FieldGap.annotations({ ...closed })).pipe(
  Schema.minItems(1, { message: () => "must not be empty; omit gaps when nothing is missing" })
)

type Located = { readonly gaps?: ReadonlyArray<{ readonly path: string }> }

const explained = (connection: Located, member: string): boolean =>
  (connection as Record<string, unknown>)[member] !== undefined ||
  (connection.gaps ?? []).some((gap) => gap.path === member)

/** Each location member must be present or explained by a gap whose `path` names it. */
const located = <S extends Schema.Schema.AnyNoContext>(self: S, members: ReadonlyArray<string>) =>
  crossField(
    self,
    (connection: Located) =>
      members.filter((member) => !explained(connection, member)).map((member) => ({
        path: [member],
        message: `is required unless a gap with path "${member}" explains why it is missing`
      })),
    (connection) => {
      const missing = members.filter((member) => !explained(connection, member))
      if (missing.length === 0) return connection
      const added = missing.map((path) => ({ path, reason: "not exposed by the runtime" }))
      return { ...connection, gaps: [...(connection.gaps ?? []), ...added] } as Schema.Schema.Type<S>
    }
  )

const HttpUrl = AbsoluteUri.pipe(
  Schema.pattern(/^https?:\/\//, { message: () => "must be an http:// or https:// URL" })
)

const remote = <T extends "http" | "sse">(transport: T, identifier: string) =>
  located(
    Schema.Struct({ transport: Schema.Literal(transport), url: optional(HttpUrl), gaps: optional(ConnectionGaps) })
      .annotations({ ...closed }),
    ["url"]
  ).annotations({ identifier })

const StdioConnection = located(
  Schema.Struct({
    transport: Schema.Literal("stdio"),
    command: optional(NonEmpty),
    args: optional(Schema.Array(Schema.String)),
    cwd: optional(NonEmpty),
    gaps: optional(ConnectionGaps)
  }).annotations({ ...closed }),
  ["command", "args", "cwd"]
).annotations({ identifier: "StdioConnection" })

const ExtensionTransport = Schema.String.pipe(
  Schema.pattern(/^_.+/, { message: () => "must be http, sse, stdio, or an extension transport starting with _" })
).annotations({ arbitrary: () => (fc) => fc.string().map((s) => `_x${s}`) })

const ExtensionConnection = located(
  Schema.Struct({
    transport: ExtensionTransport,
    addressForm: optional(NonEmpty),
    address: optional(NonEmpty),
    gaps: optional(ConnectionGaps)
  }).annotations({ ...closed }),
  ["addressForm", "address"]
).annotations({ identifier: "ExtensionConnection" })

/** @internal */
export const McpConnection = Schema.Union(
  remote("http", "HttpConnection"),
  remote("sse", "SseConnection"),
  StdioConnection,
  ExtensionConnection
).annotations({ identifier: "McpConnection" })

/** @internal */
export const Mcp = Schema.Struct({
  server: Schema.Struct({ id: NonEmpty, name: optional(NonEmpty) }).annotations({ ...closed }),
  toolName: NonEmpty,
  provenance: Schema.Literal("runtime", "inferred"),
  connection: McpConnection
}).annotations({ identifier: "Mcp", ...closed })

/** @internal */
export const Tool = crossField(
  Schema.Struct({
    /** The tool's name, verbatim. */
    name: NonEmpty,
    /** What kind of tool it is (`shell`, `file_read`, …): descriptive only, never authority. */
    kind: optional(NonEmpty),
    /** The call's input, a parsed JSON object. */
    input: Json.AnyObject,
    /** Whether the tool is the agent's own (`native`) or an MCP server's (`mcp`). */
    origin: Schema.Literal("native", "mcp"),
    /** The MCP server and tool, exactly when `origin` is `mcp`. */
    mcp: optional(Mcp),
    output: forbidden("must be absent: tool results belong in the event items")
  }).annotations({ ...closed }),
  (tool) => {
    if (tool.origin === "mcp" && tool.mcp === undefined) {
      return [{ path: ["mcp"], message: "is required when origin is mcp" }]
    }
    if (tool.origin === "native" && tool.mcp !== undefined) {
      return [{ path: ["mcp"], message: "must be absent when origin is native" }]
    }
    return []
  },
  (tool) => ({ ...tool, origin: tool.mcp === undefined ? ("native" as const) : ("mcp" as const) })
).annotations({ identifier: "Tool" })

/** @internal */
export const Call = ClosedIdentity.annotations({ identifier: "Call" })

/** @internal */
export const Batch = Schema.Struct({ id: NonEmpty, callIds: uniqueStrings(1), synthesized }).annotations({
  identifier: "Batch",
  ...closed
})

/** @internal */
export const FileChange = crossField(
  Schema.Struct({
    path: NonEmpty,
    change: Schema.Literal("created", "modified", "deleted", "moved"),
    previousPath: optional(NonEmpty),
    before: optional(Content.Part),
    after: optional(Content.Part)
  }).annotations({ ...closed }),
  (fileChange) => [
    ...(fileChange.change === "moved" && fileChange.previousPath === undefined
      ? [{ path: ["previousPath"], message: "is required when change is moved" }]
      : []),
    ...(fileChange.change === "created" && fileChange.before !== undefined
      ? [{ path: ["before"], message: "must be absent when change is created" }]
      : []),
    ...(fileChange.change === "deleted" && fileChange.after !== undefined
      ? [{ path: ["after"], message: "must be absent when change is deleted" }]
      : [])
  ],
  ({ after, before, ...rest }) => ({
    ...rest,
    ...(rest.change === "moved" && rest.previousPath === undefined ? { previousPath: `${rest.path}.old` } : {}),
    ...(before !== undefined && rest.change !== "created" ? { before } : {}),
    ...(after !== undefined && rest.change !== "deleted" ? { after } : {})
  })
).annotations({ identifier: "FileChange" })

/** @internal */
export const TokenCounts = Schema.Struct({ before: optional(NonNegativeInt), after: optional(NonNegativeInt) })
  .annotations({ identifier: "TokenCounts", ...closed })
