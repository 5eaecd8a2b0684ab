/**
 * Whole-response atomic acceptance, pure. `stage` parses and validates an intercept
 * response's envelope and every effect (strict shape, advertised kind, target, operation
 * and delivery point, continuation allowance, a value valid for the active boundary), then
 * applies the response's modifications in order over the effective event. It returns
 * either the staged response, ready to publish, or one typed rejection — never a partial
 * result: a valid `deny` inside an otherwise invalid list is not salvaged.
 *
 * @since 0.1.0
 */
import { Capabilities, Common, Content, Event, HookEffect, Issue, Json, JsonRpc, Registration } from "@effect-ahp/protocol"
import * as Either from "effect/Either"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as Boundary from "./Boundary.js"
import * as Edit from "./Edit.js"
import { getAt, setAt } from "./internal/path.js"
import type * as Projection from "./Projection.js"
import type { StagedResponse } from "./Settlement.js"

/**
 * Why a response was rejected. `protocol` codes are envelope failures; `staging` codes
 * are effect failures.
 *
 * @since 0.1.0
 * @category models
 */
export const RejectionCode = Schema.Literal(
  "malformed-response",
  "invalid-envelope",
  "id-mismatch",
  "jsonrpc-error",
  "version-mismatch",
  "missing-effects",
  "unknown-effect",
  "unknown-effect-field",
  "invalid-effect",
  "ungranted-effect",
  "ungranted-target",
  "ungranted-operation",
  "allowance-exhausted",
  "invalid-value",
  "hidden-text-replace",
  "attachment-edit",
  "unauthorized-content"
)

/**
 * @since 0.1.0
 * @category models
 */
export type RejectionCode = typeof RejectionCode.Type

/**
 * A rejected response: what was wrong and where (a JSON Pointer into the response). The
 * detail never quotes backend text.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rejection {
  readonly phase: "protocol" | "staging"
  readonly code: RejectionCode
  readonly path: string
  readonly detail: string
  /** The JSON-RPC error code, for `jsonrpc-error`. */
  readonly jsonRpcCode?: number | undefined
}

/**
 * What staging needs to know about the step.
 *
 * @since 0.1.0
 * @category models
 */
export interface Context {
  readonly requestId: JsonRpc.Id
  readonly boundary: Boundary.Boundary
  /** The capabilities advertised in this step's request. */
  readonly capabilities: Capabilities.Capabilities
  /** What this subscription could see. */
  readonly view: Pick<Projection.View, "hiddenTextTargets" | "unreadableTargets">
  readonly selection: Registration.ContentSelection
  /** The current effective event (full, not projected); valid for its type. */
  readonly event: Json.JsonObject
  /** The form schema an elicitation answer must satisfy, when the host knows it. */
  readonly elicitationSchema?: Event.RequestedSchema | undefined
}

/**
 * A response ready to publish: its validated effects and the effective event after its
 * modifications.
 *
 * @since 0.1.0
 * @category models
 */
export interface Staged extends StagedResponse {
  readonly event: Json.JsonObject
}

const reject = (
  phase: Rejection["phase"],
  code: RejectionCode,
  path: string,
  detail: string,
  jsonRpcCode?: number
): Either.Either<never, Rejection> => Either.left({ phase, code, path, detail, jsonRpcCode })

const effectOptions = { onExcessProperty: "error" } as const
const memberDecoders: Record<string, (u: unknown) => Either.Either<HookEffect.HookEffect, ParseResult.ParseError>> = {
  deny: Issue.acceptOrDecode(HookEffect.Deny, effectOptions),
  allow: Issue.acceptOrDecode(HookEffect.Allow, effectOptions),
  ask: Issue.acceptOrDecode(HookEffect.Ask, effectOptions),
  modify: Issue.acceptOrDecode(HookEffect.Modify, effectOptions),
  message: Issue.acceptOrDecode(HookEffect.Message, effectOptions),
  return: Issue.acceptOrDecode(HookEffect.Return, effectOptions),
  inject: Issue.acceptOrDecode(HookEffect.Inject, effectOptions),
  stop: Issue.acceptOrDecode(HookEffect.FlowStop, effectOptions),
  continue: Issue.acceptOrDecode(HookEffect.FlowContinue, effectOptions)
}
const isExtensions = Schema.is(Common.Extensions)
const valueDecoders = new Map<Schema.Schema<any, any>, (u: unknown) => Either.Either<unknown, unknown>>()
const decoderFor = (schema: Schema.Schema<any, any>) => {
  let decode = valueDecoders.get(schema)
  if (decode === undefined) {
    decode = Issue.acceptOrDecode(schema, effectOptions)
    valueDecoders.set(schema, decode)
  }
  return decode
}

const checkEnvelope = (response: unknown, requestId: JsonRpc.Id): Either.Either<ReadonlyArray<unknown>, Rejection> => {
  if (!Json.isObject(response)) return reject("protocol", "malformed-response", "", "the response is not a JSON object")
  if (response.jsonrpc !== "2.0") return reject("protocol", "invalid-envelope", "/jsonrpc", "jsonrpc must be \"2.0\"")
  if (!JsonRpc.sameId(response.id, requestId)) {
    return reject("protocol", "id-mismatch", "/id", "the response id does not match the request id")
  }
  if ("error" in response) {
    if ("result" in response) return reject("protocol", "invalid-envelope", "", "a response cannot carry result and error")
    const error = response.error
    const code = Json.isObject(error) && typeof error.code === "number" ? error.code : undefined
    return reject("protocol", "jsonrpc-error", "/error", `the backend answered with JSON-RPC error ${code ?? "(no code)"}`, code)
  }
  const result = response.result
  if (!Json.isObject(result)) return reject("protocol", "invalid-envelope", "/result", "result must be an object")
  if (result.protocolVersion !== "draft") {
    return reject("protocol", "version-mismatch", "/result/protocolVersion", "protocolVersion must be \"draft\"")
  }
  if ("manifest" in result) return reject("protocol", "invalid-envelope", "/result/manifest", "an intercept result carries no manifest")
  if ("extensions" in result && !isExtensions(result.extensions)) {
    return reject("protocol", "invalid-envelope", "/result/extensions", "extensions must be keyed by reverse-DNS names")
  }
  if (!Array.isArray(result.effects)) return reject("protocol", "missing-effects", "/result/effects", "effects must be an array")
  return Either.right(result.effects)
}

const classify = (effect: unknown, pointer: string): Either.Either<HookEffect.HookEffect, Rejection> => {
  if (!Json.isObject(effect)) return reject("staging", "invalid-effect", pointer, "an effect must be an object")
  if (typeof effect.type !== "string" || !(HookEffect.kinds as ReadonlyArray<string>).includes(effect.type)) {
    return reject("staging", "unknown-effect", `${pointer}/type`, "unknown effect type")
  }
  const member = effect.type === "flow" ? String(effect.operation) : effect.type
  const decode = memberDecoders[member]
  if (decode === undefined) return reject("staging", "invalid-effect", `${pointer}/operation`, "flow operation must be stop or continue")
  const decoded = decode(effect)
  if (Either.isRight(decoded)) return Either.right(decoded.right)
  const issues = Issue.fromParseError(decoded.left)
  const unknownField = issues.find((i) => i.message === "is not an allowed member here")
  if (unknownField !== undefined) {
    return reject("staging", "unknown-effect-field", pointer + unknownField.path, "unknown effect member")
  }
  const first = issues[0]
  const code: RejectionCode = first?.path.startsWith("/value") ? "invalid-value" : "invalid-effect"
  return reject("staging", code, pointer + (first?.path ?? ""), first?.message ?? "invalid effect")
}

const checkGrant = (
  effect: HookEffect.HookEffect,
  caps: Capabilities.Capabilities,
  pointer: string
): Either.Either<void, Rejection> => {
  if (!caps.effects.includes(effect.type)) {
    return reject("staging", "ungranted-effect", `${pointer}/type`, `${effect.type} was not advertised for this request`)
  }
  switch (effect.type) {
    case "modify": {
      const ops = caps.modify?.[effect.target]
      if (ops === undefined) {
        return reject("staging", "ungranted-target", `${pointer}/target`, `modify(${effect.target}) was not advertised`)
      }
      if (!ops[effect.operation]) {
        return reject("staging", "ungranted-operation", `${pointer}/operation`, `${effect.operation} of ${effect.target} was not advertised`)
      }
      return Either.void
    }
    case "flow": {
      if (!caps.flow?.operations.includes(effect.operation)) {
        return reject("staging", "ungranted-operation", `${pointer}/operation`, `flow ${effect.operation} was not advertised`)
      }
      if (effect.operation === "continue" && Json.toNumber(caps.flow.remainingContinuations ?? 0) <= 0) {
        return reject("staging", "allowance-exhausted", pointer, "no continuation allowance remains")
      }
      return Either.void
    }
    case "inject":
      return caps.inject?.context.deliverAt.includes(effect.deliverAt)
        ? Either.void
        : reject("staging", "ungranted-operation", `${pointer}/deliverAt`, `delivery ${effect.deliverAt} was not advertised`)
    default:
      return Either.void
  }
}

const checkReturn = (boundary: Boundary.Boundary, value: Json.JsonValue, pointer: string): Either.Either<void, Rejection> => {
  if (boundary.returns === undefined) return reject("staging", "ungranted-effect", pointer, "return is not possible here")
  return Either.isRight(decoderFor(Boundary.returnSchema(boundary.returns))(value))
    ? Either.void
    : reject("staging", "invalid-value", `${pointer}/value`, `the supplied result is not a valid ${boundary.returns} value here`)
}

const applyModify = (
  effect: HookEffect.Modify,
  event: Json.JsonObject,
  ctx: Context,
  pointer: string
): Either.Either<Json.JsonObject, Rejection> => {
  const target = Boundary.targetOf(ctx.boundary, effect.target)
  if (target === undefined) return reject("staging", "ungranted-target", `${pointer}/target`, "no such target here")
  if (ctx.view.unreadableTargets.has(effect.target)) {
    return reject("staging", "unauthorized-content", pointer, `the subscription could not read ${effect.target}`)
  }
  if (effect.operation === "replace" && ctx.view.hiddenTextTargets.has(effect.target)) {
    return reject("staging", "hidden-text-replace", `${pointer}/operation`, "cannot replace a list holding text the subscription could not see")
  }
  const valuePointer = `${pointer}/value`
  if (target.value === "ElicitationAnswer") return applyElicitationAnswer(effect, event, target, ctx, valuePointer)
  const schema = Boundary.valueSchema(target)
  // A decoded modify value is a JSON value, and an object for an object target: all that
  // `Json.AnyObject` asks, so only stricter schemas need checking.
  if (schema !== Json.AnyObject && Either.isLeft(decoderFor(schema)(effect.value))) {
    return reject("staging", "invalid-value", valuePointer, `not a valid ${target.value} value for ${effect.target}`)
  }
  const current = getAt(event, target.field)
  const editProblem = (p: Edit.EditProblem) => reject("staging", p.code, valuePointer + p.path, p.detail)
  switch (target.value) {
    case "MessageList": {
      const checked = Edit.checkMessages(effect.value as ReadonlyArray<Content.Message>, (current ?? []) as ReadonlyArray<Content.Message>, ctx.selection)
      if (Either.isLeft(checked)) return editProblem(checked.left)
      return Either.right(setAt(event, target.field, Edit.applyList((current ?? []) as ReadonlyArray<Content.Message>, effect.operation, checked.right)))
    }
    case "TextPartList": {
      const checked = Edit.checkTextParts(effect.value as ReadonlyArray<Content.Part>, ctx.selection)
      if (Either.isLeft(checked)) return editProblem(checked.left)
      return Either.right(setAt(event, target.field, Edit.applyList((current ?? []) as ReadonlyArray<Content.Part>, effect.operation, checked.right)))
    }
    case "Object": {
      if (!Json.isObject(current)) return reject("staging", "invalid-value", valuePointer, `${effect.target} is not an object here`)
      const next = Edit.applyObject(current, effect.operation, effect.value as Json.JsonObject)
      // The effective event is valid, so a merge of a JSON object into a JSON object needs
      // no second walk: only stricter schemas are checked against the result.
      if (schema !== Json.AnyObject && Either.isLeft(decoderFor(schema)(next))) {
        return reject("staging", "invalid-value", valuePointer, `the resulting ${effect.target} is not valid`)
      }
      return Either.right(setAt(event, target.field, next))
    }
  }
}

const applyElicitationAnswer = (
  effect: HookEffect.Modify,
  event: Json.JsonObject,
  target: Boundary.Target,
  ctx: Context,
  valuePointer: string
): Either.Either<Json.JsonObject, Rejection> => {
  const part = getAt(event, target.field)
  const elicitation = getAt(event, ["elicitation"])
  if (!Json.isObject(elicitation) || elicitation.mode !== "form" || elicitation.action !== "accept") {
    return reject("staging", "invalid-value", valuePointer, "content can only be modified on an accepted form result")
  }
  if (!Json.isObject(part) || typeof part.text !== "string") {
    return reject("staging", "unauthorized-content", valuePointer, "the elicitation result text is not available")
  }
  const parsed = Event.parseElicitationResult(part.text)
  if (Either.isLeft(parsed)) return reject("staging", "invalid-value", valuePointer, "the current elicitation result is not a valid MCP result")
  if (!Json.isObject(effect.value)) return reject("staging", "invalid-value", valuePointer, "an elicitation answer must be an object")
  const result = parsed.right as Json.JsonObject
  const current = Json.isObject(result.content) ? result.content : {}
  const next = Edit.applyObject(current, effect.operation, effect.value)
  if (Either.isLeft(decoderFor(Boundary.ElicitationAnswer)(next))) {
    return reject("staging", "invalid-value", valuePointer, "answer values must be strings, numbers, booleans or string lists")
  }
  if (ctx.elicitationSchema !== undefined && Event.checkElicitationAnswer(ctx.elicitationSchema, next).length > 0) {
    return reject("staging", "invalid-value", valuePointer, "the answer does not satisfy the requested form schema")
  }
  const text = Json.stringify({ ...result, content: next })
  return Either.right(setAt(event, target.field, { ...part, text }))
}

/**
 * Whether a modification changed its target. A merge into an object changes it exactly
 * when one of the merged members differs, so only those are compared.
 */
const changes = (effect: HookEffect.Modify, before: unknown, after: unknown): boolean => {
  if (effect.operation !== "merge" || !Json.isObject(before) || !Json.isObject(effect.value)) {
    return !Json.equals(before as Json.JsonValue, after as Json.JsonValue)
  }
  const value = effect.value
  return Object.keys(value).some((key) => !Object.prototype.hasOwnProperty.call(before, key) || !Json.equals(before[key]!, value[key]!))
}

/**
 * Stages one intercept response against the step's context.
 *
 * @since 0.1.0
 * @category staging
 */
export const stage = (response: unknown, ctx: Context): Either.Either<Staged, Rejection> => {
  const envelope = checkEnvelope(response, ctx.requestId)
  if (Either.isLeft(envelope)) return Either.left(envelope.left)
  const raw = envelope.right
  const effects: Array<HookEffect.HookEffect> = []
  for (let i = 0; i < raw.length; i++) {
    const pointer = `/result/effects/${i}`
    const effect = classify(raw[i], pointer)
    if (Either.isLeft(effect)) return Either.left(effect.left)
    const granted = checkGrant(effect.right, ctx.capabilities, pointer)
    if (Either.isLeft(granted)) return Either.left(granted.left)
    if (effect.right.type === "return") {
      const valid = checkReturn(ctx.boundary, effect.right.value, pointer)
      if (Either.isLeft(valid)) return Either.left(valid.left)
    }
    effects.push(effect.right)
  }
  let event = ctx.event
  let operationChanged = false
  for (let i = 0; i < effects.length; i++) {
    const effect = effects[i]!
    if (effect.type !== "modify") continue
    const next = applyModify(effect, event, ctx, `/result/effects/${i}`)
    if (Either.isLeft(next)) return Either.left(next.left)
    const target = Boundary.targetOf(ctx.boundary, effect.target)
    if (target?.operation === true && !operationChanged) {
      operationChanged = changes(effect, getAt(event, target.field), getAt(next.right, target.field))
    }
    event = next.right
  }
  return Either.right({ event, effects, operationChanged })
}
