/**
 * Interaction and configuration events: `config.change.before`, `config.change.after`,
 * `user.attention`, `user.elicitation.request`, `user.elicitation.result`,
 * `user.message.inbound`, `user.message.outbound` and `hook.failure`. Their payload
 * objects are closed; the envelope stays open.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { closed, NonEmpty } from "../../Common.js"
import * as Content from "../../Content.js"
import * as Json from "../../Json.js"
import { envelope, optional } from "./fields.js"

const changeFields = {
  source: NonEmpty,
  scope: NonEmpty,
  settings: Schema.Array(NonEmpty),
  summary: NonEmpty,
  path: optional(NonEmpty)
}

/** @internal */
export const ConfigChangeBefore = Schema.Struct({
  ...envelope,
  type: Schema.Literal("config.change.before"),
  change: Schema.Struct(changeFields).annotations({ identifier: "ConfigChange", ...closed })
}).annotations({ identifier: "ConfigChangeBefore" })

/** @internal */
export const ConfigChangeAfter = Schema.Struct({
  ...envelope,
  type: Schema.Literal("config.change.after"),
  change: Schema.Struct({ ...changeFields, mcpServers: optional(Schema.Array(Json.AnyObject)) }).annotations({
    identifier: "AppliedConfigChange",
    ...closed
  })
}).annotations({ identifier: "ConfigChangeAfter" })

/** @internal */
export const UserAttention = Schema.Struct({
  ...envelope,
  type: Schema.Literal("user.attention"),
  attention: Schema.Struct({ kind: NonEmpty, message: Content.TextParts, title: Content.TextParts }).annotations({
    identifier: "Attention",
    ...closed
  })
}).annotations({ identifier: "UserAttention" })

const ElicitationMode = Schema.Literal("form", "url")

/** @internal */
export const UserElicitationRequest = Schema.Struct({
  ...envelope,
  type: Schema.Literal("user.elicitation.request"),
  elicitation: Schema.Struct({
    server: NonEmpty,
    mode: ElicitationMode,
    request: optional(Content.TextPart)
  }).annotations({ identifier: "ElicitationRequest", ...closed })
}).annotations({ identifier: "UserElicitationRequest" })

/** @internal */
export const UserElicitationResult = Schema.Struct({
  ...envelope,
  type: Schema.Literal("user.elicitation.result"),
  elicitation: Schema.Struct({
    server: NonEmpty,
    mode: ElicitationMode,
    action: Schema.Literal("accept", "decline", "cancel"),
    result: optional(Content.TextPart)
  }).annotations({ identifier: "ElicitationResult", ...closed })
}).annotations({ identifier: "UserElicitationResult" })

const messagesWithRole = <R extends "user" | "assistant">(role: R) =>
  Schema.Array(
    Schema.Struct({
      ...Content.Message.fields,
      role: Schema.Literal(role).annotations({ message: () => `must be ${role}` })
    }).annotations({ identifier: `${role === "user" ? "User" : "Assistant"}Message`, ...closed })
  )

/** @internal */
export const UserMessageInbound = Schema.Struct({
  ...envelope,
  type: Schema.Literal("user.message.inbound"),
  message: Schema.Struct({ channel: NonEmpty, sender: NonEmpty, messages: messagesWithRole("user") }).annotations({
    identifier: "InboundMessage",
    ...closed
  })
}).annotations({ identifier: "UserMessageInbound" })

/** @internal */
export const UserMessageOutbound = Schema.Struct({
  ...envelope,
  type: Schema.Literal("user.message.outbound"),
  message: Schema.Struct({ channel: NonEmpty, messages: messagesWithRole("assistant") }).annotations({
    identifier: "OutboundMessage",
    ...closed
  })
}).annotations({ identifier: "UserMessageOutbound" })

/** @internal */
export const HookFailure = Schema.Struct({
  ...envelope,
  type: Schema.Literal("hook.failure"),
  parentEventId: NonEmpty,
  failure: Schema.Struct({
    backendId: NonEmpty,
    reason: NonEmpty,
    policy: Schema.Literal("fail-open", "fail-closed")
  }).annotations({ identifier: "Failure", ...closed })
}).annotations({ identifier: "HookFailure" })
