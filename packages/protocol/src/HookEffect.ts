/**
 * The eight effect kinds a backend may return from `hooks/intercept`. Effect objects are
 * closed: an unknown member rejects the effect (and, in the harness, the whole response).
 *
 * The standalone shapes cannot know the boundary, so value checks here are the generic
 * ones from the official schema; the harness validates each value against the active
 * boundary's target before accepting it.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { closed, Extensions, NonEmpty, optional, ReverseDns } from "./Common.js"
import * as Content from "./Content.js"
import * as Decoder from "./Decoder.js"
import * as Json from "./Json.js"

/**
 * `deny`: refuse the operation with a human-readable reason.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Deny = Schema.Struct({
  type: Schema.Literal("deny"),
  reason: NonEmpty,
  code: optional(ReverseDns),
  extensions: optional(Extensions)
}).annotations({ identifier: "DenyEffect", ...closed })

/**
 * @since 0.1.0
 * @category models
 */
export type Deny = typeof Deny.Type

/**
 * `allow`: suppress an ordinary permission prompt (never a managed or access policy).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Allow = Schema.Struct({ type: Schema.Literal("allow") }).annotations({
  identifier: "AllowEffect",
  ...closed
})

/**
 * @since 0.1.0
 * @category models
 */
export type Allow = typeof Allow.Type

/**
 * `ask`: require user approval before the operation runs.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Ask = Schema.Struct({ type: Schema.Literal("ask") }).annotations({ identifier: "AskEffect", ...closed })

/**
 * @since 0.1.0
 * @category models
 */
export type Ask = typeof Ask.Type

/**
 * The targets a `modify` effect can name.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModifyTarget = Schema.Literal(
  "input",
  "output",
  "prompt",
  "request",
  "response",
  "content",
  "instructions",
  "summary",
  "workspace"
)

/**
 * @since 0.1.0
 * @category models
 */
export type ModifyTarget = typeof ModifyTarget.Type

/**
 * Every modify target, in declaration order.
 *
 * @since 0.1.0
 * @category constants
 */
export const modifyTargets: ReadonlyArray<ModifyTarget> = ModifyTarget.literals

/**
 * `replace` substitutes the target; `merge` appends to lists and shallow-merges objects.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ModifyOperation = Schema.Literal("replace", "merge")

/**
 * @since 0.1.0
 * @category models
 */
export type ModifyOperation = typeof ModifyOperation.Type

const messageListTargets: ReadonlyArray<ModifyTarget> = ["prompt", "request", "response", "output"]
const textPartTargets: ReadonlyArray<ModifyTarget> = ["instructions", "summary"]
const objectTargets: ReadonlyArray<ModifyTarget> = ["input", "workspace"]

const isMessages = Decoder.lazy(() => Schema.is(Content.Messages))
const isTextParts = Decoder.lazy(() => Schema.is(Content.TextParts))

/**
 * The generic value check of the official schema (no boundary context): message lists for
 * prompt/request/response/output, text-part lists for instructions/summary, objects for
 * input/workspace, and a message list or object for content.
 *
 * @since 0.1.0
 * @category validation
 */
export const genericValueProblem = (target: ModifyTarget, value: Json.JsonValue): string | undefined => {
  if (messageListTargets.includes(target)) {
    return isMessages(value) ? undefined : `modify(${target}) takes a list of canonical messages`
  }
  if (textPartTargets.includes(target)) {
    return isTextParts(value) ? undefined : `modify(${target}) takes a list of text parts`
  }
  if (objectTargets.includes(target)) return Json.isObject(value) ? undefined : `modify(${target}) takes an object`
  return isMessages(value) || Json.isObject(value) ? undefined : "modify(content) takes a message list or an object"
}

const ModifyFields = Schema.Struct({
  type: Schema.Literal("modify"),
  target: ModifyTarget,
  operation: ModifyOperation,
  value: Json.Value
}).annotations({ ...closed })

/**
 * `modify`: replace or merge one advertised target.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Modify = ModifyFields.pipe(
  Schema.filter((effect) => {
    const problem = genericValueProblem(effect.target, effect.value)
    return problem === undefined ? undefined : { path: ["value"], message: problem }
  })
).annotations({ identifier: "ModifyEffect" })

/**
 * @since 0.1.0
 * @category models
 */
export type Modify = typeof Modify.Type

/**
 * `message`: a user-facing message.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Message = Schema.Struct({ type: Schema.Literal("message"), text: Schema.String })
  .annotations({ identifier: "MessageEffect", ...closed })

/**
 * @since 0.1.0
 * @category models
 */
export type Message = typeof Message.Type

/**
 * `return`: a supplied result that skips the original execution (not policy).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Return = Schema.Struct({ type: Schema.Literal("return"), value: Json.Value })
  .annotations({ identifier: "ReturnEffect", ...closed })

/**
 * @since 0.1.0
 * @category models
 */
export type Return = typeof Return.Type

/**
 * `flow stop`: end decision-making and further model work, with a reason.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FlowStop = Schema.Struct({
  type: Schema.Literal("flow"),
  operation: Schema.Literal("stop"),
  reason: NonEmpty
})
  .annotations({ identifier: "FlowStopEffect", ...closed })

/**
 * @since 0.1.0
 * @category models
 */
export type FlowStop = typeof FlowStop.Type

/**
 * `flow continue`: request one more step, optionally with an instruction.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FlowContinue = Schema.Struct({
  type: Schema.Literal("flow"),
  operation: Schema.Literal("continue"),
  instruction: optional(NonEmpty)
}).annotations({ identifier: "FlowContinueEffect", ...closed })

/**
 * @since 0.1.0
 * @category models
 */
export type FlowContinue = typeof FlowContinue.Type

/**
 * When injected context is delivered.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DeliverAt = Schema.Literal("now", "next_turn")

/**
 * @since 0.1.0
 * @category models
 */
export type DeliverAt = typeof DeliverAt.Type

/**
 * `inject`: append canonical messages to the model context now or at the next turn.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Inject = Schema.Struct({
  type: Schema.Literal("inject"),
  target: Schema.Literal("context"),
  operation: Schema.Literal("append"),
  deliverAt: DeliverAt,
  value: Content.Messages
}).annotations({ identifier: "InjectEffect", ...closed })

/**
 * @since 0.1.0
 * @category models
 */
export type Inject = typeof Inject.Type

/**
 * Any effect.
 *
 * @since 0.1.0
 * @category schemas
 */
export const HookEffect = Schema.Union(Deny, Allow, Ask, Modify, Message, Return, FlowStop, FlowContinue, Inject)
  .annotations({ identifier: "Effect" })

/**
 * @since 0.1.0
 * @category models
 */
export type HookEffect = typeof HookEffect.Type

/**
 * The effect kinds (the `type` member).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Kind = Schema.Literal("deny", "allow", "ask", "modify", "message", "return", "flow", "inject")

/**
 * @since 0.1.0
 * @category models
 */
export type Kind = typeof Kind.Type

/**
 * Every effect kind.
 *
 * @since 0.1.0
 * @category constants
 */
export const kinds: ReadonlyArray<Kind> = Kind.literals

/**
 * What an audit keeps of an effect: its type, and its target and operation where it has
 * them — never its content.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly type: Kind
  readonly target?: string
  readonly operation?: string
}

/**
 * An effect's summary.
 *
 * @since 0.1.0
 * @category utils
 */
export const summarize = (effect: HookEffect): Summary => {
  const described = effect as { readonly type: Kind; readonly target?: unknown; readonly operation?: unknown }
  return {
    type: described.type,
    ...(typeof described.target === "string" ? { target: described.target } : {}),
    ...(typeof described.operation === "string" ? { operation: described.operation } : {})
  }
}
