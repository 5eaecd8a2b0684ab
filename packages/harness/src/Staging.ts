/**
 * Whole-response atomic acceptance, pure. `stage` parses and validates an intercept
 * response's envelope and every effect (strict shape, advertised kind, target, operation
 * and delivery point, continuation allowance, a value valid for the active boundary), then
 * applies the response's modifications in order over the effective event. It returns
 * either the staged response, ready to publish, or one typed rejection — never a partial
 * result: a valid `deny` inside an otherwise invalid list is not salvaged. The
 * modifications are checked one by one, applied in one pass, and their result validated
 * once: the response is published whole, never its intermediate steps. Staging is linear
 * in the size of the response and the edited target.
 *
 * @since 0.1.0
 */
import {
  Capabilities,
  Common,
  Content,
  Decoder,
  Elicitation,
  HookEffect,
  Issue,
  Json,
  JsonRpc,
  Registration
} from "@effect-ahp/protocol"
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
  "unauthorized-content",
  /** The step's deadline passed while the response was being staged (the chain reports a `timeout`). */
  "deadline-expired"
)

/**
 * @since 0.1.0
 * @category models
 */
export type RejectionCode = typeof RejectionCode.Type

/**
 * A rejected response: what was wrong and where (a JSON Pointer into the response). The
 * detail quotes backend text only for a JSON-RPC error, whose message and `data` are the
 * backend's own account of its refusal: bounded, every control and bidirectional character
 * escaped. Masking credentials in them is the transport's part (`Transport.Endpoint`).
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
  readonly view: Pick<Projection.View, "hiddenTextTargets" | "unreadableTargets"> & {
    /** The attachment references the receiver was shown, by part id (kept attachments must name these). */
    readonly references?: ReadonlyMap<string, string> | undefined
  }
  readonly selection: Registration.ContentSelection
  /** The current effective event (full, not projected); valid for its type. */
  readonly event: Json.JsonObject
  /** The form schema an elicitation answer must satisfy, when the host knows it. */
  readonly elicitationSchema?: Elicitation.RequestedSchema | undefined
  /** Whether the step's deadline has passed: staging then stops early with `deadline-expired`. */
  readonly expired?: (() => boolean) | undefined
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

const expired: Rejection = {
  phase: "staging",
  code: "deadline-expired",
  path: "",
  detail: "the deadline passed while the response was being staged"
}

const effectOptions = { onExcessProperty: "error" } as const
/** An effect member's decoder (a valid effect returned as it is), compiled on its first call. */
const memberDecoder = <A extends HookEffect.HookEffect, I>(schema: Schema.Schema<A, I>) =>
  Decoder.lazy(() => Decoder.acceptOrDecode(schema, effectOptions))
const memberDecoders: Record<string, (u: unknown) => Either.Either<HookEffect.HookEffect, ParseResult.ParseError>> = {
  deny: memberDecoder(HookEffect.Deny),
  allow: memberDecoder(HookEffect.Allow),
  ask: memberDecoder(HookEffect.Ask),
  modify: memberDecoder(HookEffect.Modify),
  message: memberDecoder(HookEffect.Message),
  return: memberDecoder(HookEffect.Return),
  inject: memberDecoder(HookEffect.Inject),
  stop: memberDecoder(HookEffect.FlowStop),
  continue: memberDecoder(HookEffect.FlowContinue)
}
const isExtensions = Decoder.lazy(() => Schema.is(Common.Extensions))
const valueDecoders = new Map<Schema.Schema<any, any>, (u: unknown) => Either.Either<unknown, unknown>>()
const decoderFor = (schema: Schema.Schema<any, any>) => {
  let decode = valueDecoders.get(schema)
  if (decode === undefined) {
    decode = Decoder.acceptOrDecode(schema, effectOptions)
    valueDecoders.set(schema, decode)
  }
  return decode
}

/** The most of a JSON-RPC error's message, and of its `data` written as JSON, that a detail quotes. */
const quotedMessageChars = 200
const quotedDataChars = 300

const cut = (text: string, max: number) => text.length <= max ? text : `${text.slice(0, max)}…`

/** What `JSON.stringify` leaves unescaped but a terminal or a reader may act on: C1 controls, DEL, bidi marks. */
const unsafe = /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g
const escapeUnsafe = (text: string) =>
  text.replace(unsafe, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

/** What a backend said in its JSON-RPC error, for the detail: `: "message" (data: …)`, bounded; empty when nothing. */
const errorAccount = (error: unknown): string => {
  if (!Json.isObject(error)) return ""
  const message = typeof error.message === "string" && error.message !== ""
    ? `: ${escapeUnsafe(JSON.stringify(cut(error.message, quotedMessageChars)))}`
    : ""
  const data = "data" in error ? Either.getOrUndefined(Json.encode(error.data)) : undefined
  return data === undefined ? message : `${message} (data: ${escapeUnsafe(cut(data, quotedDataChars))})`
}

const checkEnvelope = (response: unknown, requestId: JsonRpc.Id): Either.Either<ReadonlyArray<unknown>, Rejection> => {
  if (!Json.isObject(response)) return reject("protocol", "malformed-response", "", "the response is not a JSON object")
  if (response.jsonrpc !== "2.0") return reject("protocol", "invalid-envelope", "/jsonrpc", "jsonrpc must be \"2.0\"")
  if (!JsonRpc.sameId(response.id, requestId)) {
    return reject("protocol", "id-mismatch", "/id", "the response id does not match the request id")
  }
  if ("error" in response) {
    if ("result" in response) {
      return reject("protocol", "invalid-envelope", "", "a response cannot carry result and error")
    }
    const error = response.error
    const code = Json.isObject(error) && typeof error.code === "number" ? error.code : undefined
    return reject(
      "protocol",
      "jsonrpc-error",
      "/error",
      `the backend answered with JSON-RPC error ${code ?? "(no code)"}${errorAccount(error)}`,
      code
    )
  }
  const result = response.result
  if (!Json.isObject(result)) return reject("protocol", "invalid-envelope", "/result", "result must be an object")
  if (result.protocolVersion !== "draft") {
    return reject("protocol", "version-mismatch", "/result/protocolVersion", "protocolVersion must be \"draft\"")
  }
  if ("manifest" in result) {
    return reject("protocol", "invalid-envelope", "/result/manifest", "an intercept result carries no manifest")
  }
  if ("extensions" in result && !isExtensions(result.extensions)) {
    return reject("protocol", "invalid-envelope", "/result/extensions", "extensions must be keyed by reverse-DNS names")
  }
  if (!Array.isArray(result.effects)) {
    return reject("protocol", "missing-effects", "/result/effects", "effects must be an array")
  }
  return Either.right(result.effects)
}

const classify = (effect: unknown, pointer: string): Either.Either<HookEffect.HookEffect, Rejection> => {
  if (!Json.isObject(effect)) return reject("staging", "invalid-effect", pointer, "an effect must be an object")
  if (typeof effect.type !== "string" || !(HookEffect.kinds as ReadonlyArray<string>).includes(effect.type)) {
    return reject("staging", "unknown-effect", `${pointer}/type`, "unknown effect type")
  }
  const member = effect.type === "flow" ? String(effect.operation) : effect.type
  const decode = memberDecoders[member]
  if (decode === undefined) {
    return reject("staging", "invalid-effect", `${pointer}/operation`, "flow operation must be stop or continue")
  }
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
  const problem = Capabilities.grantProblem(caps, effect)
  return problem === undefined ? Either.void : reject("staging", problem.code, pointer + problem.path, problem.message)
}

const checkReturn = (
  boundary: Boundary.Boundary,
  value: Json.JsonValue,
  pointer: string
): Either.Either<void, Rejection> => {
  if (boundary.returns === undefined) {
    return reject("staging", "ungranted-effect", pointer, "return is not possible here")
  }
  return Either.isRight(decoderFor(Boundary.returnSchema(boundary.returns))(value))
    ? Either.void
    : reject(
      "staging",
      "invalid-value",
      `${pointer}/value`,
      `the supplied result is not a valid ${boundary.returns} value here`
    )
}

/** A modify effect of the response and its JSON Pointer. */
interface Edit {
  readonly effect: HookEffect.Modify
  readonly pointer: string
}

/**
 * The checks of one modify effect that need no edited value: its target exists here, the
 * subscription could read it, a replace hides no text, the value is valid for the target.
 */
const checkModify = (
  effect: HookEffect.Modify,
  ctx: Context,
  pointer: string
): Either.Either<Boundary.Target, Rejection> => {
  const target = Boundary.targetOf(ctx.boundary, effect.target)
  if (target === undefined) return reject("staging", "ungranted-target", `${pointer}/target`, "no such target here")
  if (ctx.view.unreadableTargets.has(effect.target)) {
    return reject("staging", "unauthorized-content", pointer, `the subscription could not read ${effect.target}`)
  }
  if (effect.operation === "replace" && ctx.view.hiddenTextTargets.has(effect.target)) {
    return reject(
      "staging",
      "hidden-text-replace",
      `${pointer}/operation`,
      "cannot replace a list holding text the subscription could not see"
    )
  }
  if (target.value === "ElicitationAnswer") {
    return Json.isObject(effect.value)
      ? Either.right(target)
      : reject("staging", "invalid-value", `${pointer}/value`, "an elicitation answer must be an object")
  }
  const schema = Boundary.valueSchema(target)
  // A decoded modify value is a JSON value, and an object for an object target: all that
  // `Json.AnyObject` asks, so only stricter schemas need checking.
  if (schema !== Json.AnyObject && Either.isLeft(decoderFor(schema)(effect.value))) {
    return reject(
      "staging",
      "invalid-value",
      `${pointer}/value`,
      `not a valid ${target.value} value for ${effect.target}`
    )
  }
  return Either.right(target)
}

/** The target's value after every edit of the response, and the members merged when none replaced. */
type Applied = Either.Either<
  { readonly value: Json.JsonValue; readonly mergedKeys?: Set<string> | undefined },
  Rejection
>

const editProblem = (p: Edit.EditProblem, pointer: string) =>
  reject("staging", p.code, `${pointer}/value${p.path}`, p.detail)

const applyMessages = (edits: ReadonlyArray<Edit>, current: ReadonlyArray<Content.Message>, ctx: Context): Applied => {
  // An edit may keep the attachments of the list it applies to: a merge keeps that list's
  // (it can add none), a replace leaves those it kept.
  let attachments = Edit.attachmentsOf(current)
  const operations: Array<Edit.Operation<ReadonlyArray<Content.Message>>> = []
  for (const { effect, pointer } of edits) {
    const checked = Edit.checkMessages(
      effect.value as ReadonlyArray<Content.Message>,
      attachments,
      ctx.selection,
      ctx.view.references
    )
    if (Either.isLeft(checked)) return editProblem(checked.left, pointer)
    if (effect.operation === "replace") attachments = Edit.attachmentsOf(checked.right)
    operations.push([effect.operation, checked.right])
  }
  return Either.right({ value: Edit.applyListAll(current, operations) as Json.JsonValue })
}

const applyTextParts = (edits: ReadonlyArray<Edit>, current: ReadonlyArray<Content.Part>, ctx: Context): Applied => {
  const operations: Array<Edit.Operation<ReadonlyArray<Content.Part>>> = []
  for (const { effect, pointer } of edits) {
    const checked = Edit.checkTextParts(effect.value as ReadonlyArray<Content.Part>, ctx.selection)
    if (Either.isLeft(checked)) return editProblem(checked.left, pointer)
    operations.push([effect.operation, checked.right])
  }
  return Either.right({ value: Edit.applyListAll(current, operations) as Json.JsonValue })
}

/** The object operations of the edits, and the members they merge when none replaces. */
const objectOperations = (edits: ReadonlyArray<Edit>) => {
  const operations: Array<Edit.Operation<Json.JsonObject>> = []
  let mergedKeys: Set<string> | undefined = new Set()
  for (const { effect } of edits) {
    const value = effect.value as Json.JsonObject
    operations.push([effect.operation, value])
    if (effect.operation === "replace") mergedKeys = undefined
    else if (mergedKeys !== undefined) { for (const key of Object.keys(value)) mergedKeys.add(key) }
  }
  return { operations, mergedKeys }
}

const applyObjects = (edits: ReadonlyArray<Edit>, current: unknown, target: Boundary.Target): Applied => {
  if (!Json.isObject(current)) {
    return reject("staging", "invalid-value", `${edits[0]!.pointer}/value`, `${target.target} is not an object here`)
  }
  const { mergedKeys, operations } = objectOperations(edits)
  const next = Edit.applyObjectAll(current, operations)
  // The effective event is valid and every value is an object, so the result is a JSON
  // object: only stricter schemas are checked against it.
  const schema = Boundary.valueSchema(target)
  if (schema !== Json.AnyObject && Either.isLeft(decoderFor(schema)(next))) {
    return reject(
      "staging",
      "invalid-value",
      `${edits[edits.length - 1]!.pointer}/value`,
      `the resulting ${target.target} is not valid`
    )
  }
  return Either.right({ value: next, mergedKeys })
}

const applyElicitationAnswer = (edits: ReadonlyArray<Edit>, target: Boundary.Target, ctx: Context): Applied => {
  const first = `${edits[0]!.pointer}/value`
  const last = `${edits[edits.length - 1]!.pointer}/value`
  const part = getAt(ctx.event, target.field)
  const elicitation = getAt(ctx.event, ["elicitation"])
  if (!Json.isObject(elicitation) || elicitation.mode !== "form" || elicitation.action !== "accept") {
    return reject("staging", "invalid-value", first, "content can only be modified on an accepted form result")
  }
  if (!Json.isObject(part) || typeof part.text !== "string") {
    return reject("staging", "unauthorized-content", first, "the elicitation result text is not available")
  }
  const parsed = Elicitation.parseResult(part.text)
  if (Either.isLeft(parsed)) {
    return reject("staging", "invalid-value", first, "the current elicitation result is not a valid MCP result")
  }
  const result = parsed.right as Json.JsonObject
  const next = Edit.applyObjectAll(
    Json.isObject(result.content) ? result.content : {},
    objectOperations(edits).operations
  )
  if (Either.isLeft(decoderFor(Boundary.ElicitationAnswer)(next))) {
    return reject("staging", "invalid-value", last, "answer values must be strings, numbers, booleans or string lists")
  }
  if (ctx.elicitationSchema !== undefined && Elicitation.checkAnswer(ctx.elicitationSchema, next).length > 0) {
    return reject("staging", "invalid-value", last, "the answer does not satisfy the requested form schema")
  }
  return Either.right({ value: { ...part, text: Json.stringify({ ...result, content: next }) } })
}

/**
 * Whether the operation target differs before and after the whole response: deeply, key
 * order aside, numbers compared by their exact value (`Json.equals`). After merges alone
 * only the merged members can differ, so only those are compared.
 */
const changed = (before: unknown, after: Json.JsonValue, mergedKeys: Set<string> | undefined): boolean => {
  if (before === undefined) return true
  if (mergedKeys === undefined || !Json.isObject(before) || !Json.isObject(after)) {
    return !Json.equals(before as Json.JsonValue, after)
  }
  for (const key of mergedKeys) {
    if (!Object.prototype.hasOwnProperty.call(before, key) || !Json.equals(before[key]!, after[key]!)) return true
  }
  return false
}

/** How many effects are processed between two looks at the deadline. */
const expiryStride = 64

/**
 * Applies the response's modifications, in order, over the effective event. A boundary
 * has at most one target, so they all edit it: each is checked on its own, then they are
 * applied in one pass and the resulting value is validated once (the response is
 * published whole, never its intermediate steps), in time linear in the sizes involved.
 */
const applyEdits = (
  edits: ReadonlyArray<Edit>,
  ctx: Context
): Either.Either<{ readonly event: Json.JsonObject; readonly operationChanged: boolean }, Rejection> => {
  let target: Boundary.Target | undefined
  for (let i = 0; i < edits.length; i++) {
    if (i % expiryStride === expiryStride - 1 && ctx.expired?.() === true) return Either.left(expired)
    const { effect, pointer } = edits[i]!
    const checked = checkModify(effect, ctx, pointer)
    if (Either.isLeft(checked)) return Either.left(checked.left)
    target = checked.right
  }
  if (target === undefined) return Either.right({ event: ctx.event, operationChanged: false })
  if (ctx.expired?.() === true) return Either.left(expired)
  const current = getAt(ctx.event, target.field)
  let applied: Applied
  switch (target.value) {
    case "MessageList":
      applied = applyMessages(edits, (current ?? []) as ReadonlyArray<Content.Message>, ctx)
      break
    case "TextPartList":
      applied = applyTextParts(edits, (current ?? []) as ReadonlyArray<Content.Part>, ctx)
      break
    case "Object":
      applied = applyObjects(edits, current, target)
      break
    case "ElicitationAnswer":
      applied = applyElicitationAnswer(edits, target, ctx)
  }
  if (Either.isLeft(applied)) return Either.left(applied.left)
  const { mergedKeys, value } = applied.right
  return Either.right({
    event: setAt(ctx.event, target.field, value),
    operationChanged: target.operation && changed(current, value, mergedKeys)
  })
}

/**
 * Stages one intercept response against the step's context. Staging looks at
 * `ctx.expired` every few effects and stops with `deadline-expired` once it holds.
 *
 * @since 0.1.0
 * @category staging
 */
export const stage = (response: unknown, ctx: Context): Either.Either<Staged, Rejection> => {
  if (ctx.expired?.() === true) return Either.left(expired)
  const envelope = checkEnvelope(response, ctx.requestId)
  if (Either.isLeft(envelope)) return Either.left(envelope.left)
  const raw = envelope.right
  const effects: Array<HookEffect.HookEffect> = []
  const edits: Array<Edit> = []
  for (let i = 0; i < raw.length; i++) {
    if (i % expiryStride === expiryStride - 1 && ctx.expired?.() === true) return Either.left(expired)
    const pointer = `/result/effects/${i}`
    const effect = classify(raw[i], pointer)
    if (Either.isLeft(effect)) return Either.left(effect.left)
    const granted = checkGrant(effect.right, ctx.capabilities, pointer)
    if (Either.isLeft(granted)) return Either.left(granted.left)
    if (effect.right.type === "return") {
      const valid = checkReturn(ctx.boundary, effect.right.value, pointer)
      if (Either.isLeft(valid)) return Either.left(valid.left)
    }
    if (effect.right.type === "modify") edits.push({ effect: effect.right, pointer })
    effects.push(effect.right)
  }
  if (edits.length === 0) return Either.right({ event: ctx.event, effects, operationChanged: false })
  return Either.map(applyEdits(edits, ctx), ({ event, operationChanged }) => ({ event, effects, operationChanged }))
}
