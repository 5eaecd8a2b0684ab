/**
 * Random values for property tests of policies, backends and settlement, built from the
 * Schemas (`Arbitrary.make`) and their `arbitrary` annotations:
 *
 * - `event(type, options)`: valid events of one boundary, typed by it, with attachment
 *   parts drawn freely, always (as a host dispatches them with sources) or never;
 * - `sources(event)`: bytes for each attachment part of an event, the host's sources;
 * - `capabilities(type)`: capabilities within an interceptable event's bounds;
 * - `effects`: lists of effects valid for an event and granted by given capabilities
 *   (`Capabilities.grantProblem` finds nothing in them), typed by the boundary;
 * - `ungrantedEffect`: well-formed effects the capabilities do not grant;
 * - `response` / `invalidResponse`: intercept responses, and responses a harness must
 *   reject as a whole (bad shapes, unknown or ungranted effects, nesting deeper than
 *   `Json.maxDepth`, numbers beyond double precision), each hiding a valid `deny`;
 * - `registration`: valid registration documents.
 *
 * Values are plain JSON data as a backend would send them.
 *
 * @since 0.1.0
 */
import * as Arbitrary from "effect/Arbitrary"
import * as FastCheck from "effect/FastCheck"
import type * as Schema from "effect/Schema"
import * as Boundaries from "./Boundaries.js"
import * as Capabilities from "./Capabilities.js"
import * as Event from "./Event.js"
import type * as EventType from "./EventType.js"
import * as HookEffect from "./HookEffect.js"
import * as internal from "./internal/arbitraries.js"
import { lazy } from "./internal/lazyArbitrary.js"
import * as Json from "./Json.js"
import * as Registration from "./Registration.js"

/**
 * Options of `event`: which attachment parts the drawn events carry.
 *
 * - `"any"` (the default): whatever the schema's arbitrary draws;
 * - `"some"`: at least one attachment part, every one selected as `body` with a host-local
 *   body reference and an id of its own (`attachment_0`, `attachment_1`, …), as a host
 *   dispatches parts whose bytes it supplies as sources (`sources` draws them);
 * - `"none"`: no attachment part (each drawn one becomes a text part with the same id).
 *
 * `"some"` needs an event type that can carry content parts (every event can, in `items`).
 *
 * @since 0.1.0
 * @category events
 */
export interface EventOptions {
  readonly attachments?: "any" | "some" | "none" | undefined
}

/** Whether a JSON value is an attachment part. */
const isAttachmentPart = (value: unknown): value is Json.JsonObject =>
  typeof value === "object" && value !== null && !Array.isArray(value) &&
  (value as Json.JsonObject).kind === "attachment" && typeof (value as Json.JsonObject).id === "string"

/**
 * A copy of `value` with every attachment part replaced by `replace(part, n)`, `n` counting
 * from 0; values other than arrays and plain objects (lossless numbers) are kept as they are.
 */
const mapAttachments = (
  value: unknown,
  replace: (part: Json.JsonObject, n: number) => Json.JsonObject
): { readonly value: unknown; readonly count: number } => {
  let count = 0
  const walk = (v: unknown): unknown => {
    if (isAttachmentPart(v)) return replace(v, count++)
    if (Array.isArray(v)) return v.map(walk)
    if (typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype) {
      const out: Record<string, unknown> = {}
      for (const [key, member] of Object.entries(v)) {
        // An own `__proto__` member (as a JSON parser keeps it) stays an own member.
        Object.defineProperty(out, key, { value: walk(member), enumerable: true, writable: true, configurable: true })
      }
      return out
    }
    return v
  }
  return { value: walk(value), count }
}

/** An attachment part as a host dispatches it with a source: selected as body, a host-local reference. */
const sourced = (part: Json.JsonObject, n: number): Json.JsonObject => ({
  id: `attachment_${n}`,
  kind: "attachment",
  mediaType: part.mediaType!,
  selection: "body",
  body: { ref: "host-local" }
})

/** A text part in place of an attachment. */
const unattached = (part: Json.JsonObject): Json.JsonObject => ({
  id: part.id!,
  kind: "text",
  mediaType: "text/plain",
  selection: "body",
  text: ""
})

/**
 * Valid events of one type (its schema's arbitrary), carrying attachment parts as
 * `options.attachments` says (`EventOptions`).
 *
 * @since 0.1.0
 * @category events
 */
export const event = <T extends EventType.EventType>(
  type: T,
  options?: EventOptions
): FastCheck.Arbitrary<Event.EventOf<T>> => {
  const events = Arbitrary.make(Event.schemaFor(type) as unknown as Schema.Schema<Event.EventOf<T>>)
  switch (options?.attachments ?? "any") {
    case "some":
      return events.map((e) => mapAttachments(e, sourced)).filter(({ count }) => count > 0).map(({ value }) =>
        value as Event.EventOf<T>
      )
    case "none":
      return events.map((e) => mapAttachments(e, unattached).value as Event.EventOf<T>)
    default:
      return events
  }
}

/**
 * The bytes of every attachment part of `event`, keyed by part id (up to `maxBytes` each,
 * default 64): the sources a host supplies with its dispatch (`Attachment.bytes` in the
 * harness). Empty for an event with no attachment part.
 *
 * @since 0.1.0
 * @category events
 */
export const sources = (
  event: unknown,
  options?: { readonly maxBytes?: number | undefined }
): FastCheck.Arbitrary<Record<string, Uint8Array>> => {
  const ids: Array<string> = []
  mapAttachments(event, (part) => {
    ids.push(part.id as string)
    return part
  })
  const bytes = FastCheck.uint8Array({ maxLength: options?.maxBytes ?? 64 })
  return FastCheck.tuple(...ids.map(() => bytes)).map((drawn) =>
    Object.fromEntries(ids.map((id, i) => [id, drawn[i]!]))
  )
}

/**
 * Valid events of any interceptable type.
 *
 * @since 0.1.0
 * @category events
 */
export const interceptableEvent: FastCheck.Arbitrary<Event.InterceptableEvent> = lazy(() =>
  Arbitrary.make(Event.InterceptableEvent)
)

/**
 * Capabilities within the bounds of an interceptable event type: a subset of its effect
 * kinds, modify targets and operations, flow operations (with a continuation allowance of
 * 0 to 5 when `continue` is among them) and delivery times.
 *
 * @since 0.1.0
 * @category capabilities
 */
export const capabilities = (type: EventType.InterceptableEventType): FastCheck.Arbitrary<Capabilities.Capabilities> =>
  internal.capabilities(FastCheck, Capabilities.boundsOf(type)!) as FastCheck.Arbitrary<Capabilities.Capabilities>

const text = FastCheck.string({ minLength: 1, maxLength: 12 })

/** Text-only canonical messages (no attachment: an effect cannot add one). */
const messages: FastCheck.Arbitrary<Array<Json.JsonObject>> = FastCheck.array(
  FastCheck.tuple(FastCheck.constantFrom("user", "assistant"), text),
  { minLength: 1, maxLength: 3 }
).map((entries) =>
  entries.map(([role, body], i) => ({
    id: `m${i}`,
    role,
    parts: [{ id: `m${i}_p`, kind: "text", mediaType: "text/plain", selection: "body", text: body }]
  }))
)

const textParts: FastCheck.Arbitrary<Array<Json.JsonObject>> = FastCheck.array(text, { minLength: 1, maxLength: 3 })
  .map((
    bodies
  ) => bodies.map((body, i) => ({ id: `p${i}`, kind: "text", mediaType: "text/plain", selection: "body", text: body })))

const member = FastCheck.constantFrom("command", "path", "flag", "n")
const scalar: FastCheck.Arbitrary<Json.JsonValue> = FastCheck.oneof(
  FastCheck.integer({ min: -9, max: 9 }),
  FastCheck.boolean(),
  FastCheck.constant(null),
  FastCheck.string({ maxLength: 8 })
)
const object: FastCheck.Arbitrary<Json.JsonObject> = FastCheck.dictionary(member, scalar, { maxKeys: 3 })
const answers: FastCheck.Arbitrary<Json.JsonObject> = FastCheck.dictionary(
  member,
  FastCheck.oneof(FastCheck.string({ maxLength: 8 }), FastCheck.boolean(), FastCheck.integer({ min: 0, max: 9 }))
)

/** A value valid for a modify target at an event type. */
const targetValue = (
  type: EventType.EventType,
  target: HookEffect.ModifyTarget
): FastCheck.Arbitrary<Json.JsonValue> => {
  switch (target) {
    case "input":
    case "workspace":
      return object
    case "instructions":
    case "summary":
      return textParts
    case "content":
      return type === "user.elicitation.result" ? answers : messages
    default:
      return messages
  }
}

/**
 * Options of `effects`.
 *
 * @since 0.1.0
 * @category effects
 */
export interface EffectOptions {
  /**
   * The values a `return` may supply. A supplied result must be valid for the boundary
   * (any JSON at `tool.before`, canonical messages at `model.request.before`, …); the
   * default is small JSON values.
   */
  readonly returnValue?: FastCheck.Arbitrary<Json.JsonValue> | undefined
}

const smallJson: FastCheck.Arbitrary<Json.JsonValue> = FastCheck.oneof(scalar, object)

/** The ways to draw one effect valid at an event type and granted by `granted` (none when nothing is grantable). */
const grantedChoices = (
  type: EventType.EventType,
  granted: Capabilities.Capabilities,
  options?: EffectOptions
): Array<FastCheck.Arbitrary<Json.JsonObject>> => {
  const choices: Array<FastCheck.Arbitrary<Json.JsonObject>> = []
  const boundary = Boundaries.entryOf(type)
  if (boundary === undefined) return choices
  const targets: ReadonlyArray<string> = Object.keys(boundary.targets)
  for (const kind of granted.effects) {
    if (!(boundary.effects as ReadonlyArray<string>).includes(kind)) continue
    switch (kind) {
      case "deny":
        choices.push(FastCheck.record({ type: FastCheck.constant("deny"), reason: text }))
        break
      case "allow":
      case "ask":
        choices.push(FastCheck.constant({ type: kind }))
        break
      case "message":
        choices.push(FastCheck.record({ type: FastCheck.constant("message"), text }))
        break
      case "return":
        choices.push(FastCheck.record({ type: FastCheck.constant("return"), value: options?.returnValue ?? smallJson }))
        break
      case "modify": {
        const ops = HookEffect.modifyTargets.filter((target) => targets.includes(target)).flatMap((target) =>
          (["replace", "merge"] as const).filter((op) => granted.modify?.[target]?.[op] === true).map((op) =>
            [target, op] as const
          )
        )
        if (ops.length > 0) {
          choices.push(
            FastCheck.constantFrom(...ops).chain(([target, operation]) =>
              targetValue(type, target).map((value) => ({ type: "modify", target, operation, value }))
            )
          )
        }
        break
      }
      case "flow": {
        const operations = (granted.flow?.operations ?? []).filter((op) => boundary.flow.includes(op))
        if (operations.includes("stop")) {
          choices.push(
            FastCheck.record({ type: FastCheck.constant("flow"), operation: FastCheck.constant("stop"), reason: text })
          )
        }
        if (operations.includes("continue") && Json.toNumber(granted.flow?.remainingContinuations ?? 0) > 0) {
          choices.push(FastCheck.record(
            { type: FastCheck.constant("flow"), operation: FastCheck.constant("continue"), instruction: text },
            { requiredKeys: ["type", "operation"] }
          ))
        }
        break
      }
      case "inject": {
        const times = granted.inject?.context.deliverAt ?? []
        if (times.length > 0) {
          choices.push(FastCheck.record({
            type: FastCheck.constant("inject"),
            target: FastCheck.constant("context"),
            operation: FastCheck.constant("append"),
            deliverAt: FastCheck.constantFrom(...times),
            value: messages
          }))
        }
        break
      }
    }
  }
  return choices
}

/**
 * Lists of effects valid at an event type and granted by `capabilities` (possibly empty;
 * always empty when nothing is grantable), typed by the boundary (`EffectsAt<T>`): only
 * kinds, targets and flow operations of the boundary's table entry are drawn, whatever the
 * capabilities advertise. Modify values are valid for their target; a `flow continue`
 * appears only while the allowance is positive.
 *
 * @since 0.1.0
 * @category effects
 */
export const effects = <T extends EventType.EventType>(
  type: T,
  granted: Capabilities.Capabilities,
  options?: EffectOptions & { readonly maxLength?: number | undefined }
): FastCheck.Arbitrary<Array<EffectsAt<T>>> => {
  const choices = grantedChoices(type, granted, options)
  return (choices.length === 0
    ? FastCheck.constant([])
    : FastCheck.array(FastCheck.oneof(...choices), {
      maxLength: options?.maxLength ?? 4
    })) as unknown as FastCheck.Arbitrary<Array<EffectsAt<T>>>
}

/**
 * The effects `effects` draws at `T`: `Boundaries.EffectAt<T>` for an interceptable event
 * (distributed over a union of event types), none for an observation-only one.
 *
 * @since 0.1.0
 * @category effects
 */
export type EffectsAt<T extends EventType.EventType> = T extends Boundaries.Interceptable ? Boundaries.EffectAt<T>
  : never

/** A well-formed value for a modify target, whatever the event. */
const genericValue = (target: HookEffect.ModifyTarget): FastCheck.Arbitrary<Json.JsonValue> =>
  target === "input" || target === "workspace"
    ? object
    : target === "instructions" || target === "summary"
    ? textParts
    : messages

const modifyOf = (target: HookEffect.ModifyTarget, operation: HookEffect.ModifyOperation) =>
  genericValue(target).map((value): Json.JsonObject => ({ type: "modify", target, operation, value }))

const anyOfKind: Record<HookEffect.Kind, FastCheck.Arbitrary<Json.JsonObject>> = {
  deny: FastCheck.record({ type: FastCheck.constant("deny"), reason: text }),
  allow: FastCheck.constant({ type: "allow" }),
  ask: FastCheck.constant({ type: "ask" }),
  message: FastCheck.record({ type: FastCheck.constant("message"), text }),
  return: FastCheck.record({ type: FastCheck.constant("return"), value: smallJson }),
  modify: FastCheck.constantFrom(...HookEffect.modifyTargets).chain((target) => modifyOf(target, "merge")),
  flow: FastCheck.record({ type: FastCheck.constant("flow"), operation: FastCheck.constant("stop"), reason: text }),
  inject: FastCheck.record({
    type: FastCheck.constant("inject"),
    target: FastCheck.constant("context"),
    operation: FastCheck.constant("append"),
    deliverAt: FastCheck.constantFrom("now", "next_turn"),
    value: messages
  })
}

/**
 * Well-formed effects (valid under `HookEffect.HookEffect`) that `capabilities` do not
 * grant: a kind not advertised, a modify target or operation not advertised, a flow
 * operation not advertised or a `continue` without allowance, a delivery time not
 * advertised. Capabilities within an event's bounds always leave something ungranted (no
 * event permits every modify target).
 *
 * @since 0.1.0
 * @category effects
 */
export const ungrantedEffect = (granted: Capabilities.Capabilities): FastCheck.Arbitrary<HookEffect.HookEffect> => {
  const choices: Array<FastCheck.Arbitrary<Json.JsonObject>> = HookEffect.kinds
    .filter((kind) => !(granted.effects as ReadonlyArray<string>).includes(kind))
    .map((kind) => anyOfKind[kind])
  if (granted.effects.includes("modify")) {
    for (const target of HookEffect.modifyTargets) {
      for (const operation of ["replace", "merge"] as const) {
        if (granted.modify?.[target]?.[operation] !== true) choices.push(modifyOf(target, operation))
      }
    }
  }
  if (granted.effects.includes("flow")) {
    const operations = granted.flow?.operations ?? []
    if (!operations.includes("stop")) choices.push(anyOfKind.flow)
    if (!operations.includes("continue") || Json.toNumber(granted.flow?.remainingContinuations ?? 0) < 1) {
      choices.push(FastCheck.constant({ type: "flow", operation: "continue" }))
    }
  }
  if (granted.effects.includes("inject")) {
    const times = granted.inject?.context.deliverAt ?? []
    const missing = (["now", "next_turn"] as const).filter((t) => !times.includes(t))
    if (missing.length > 0) {
      choices.push(anyOfKind.inject.map((e) => ({ ...e, deliverAt: missing[0]! })))
    }
  }
  return (choices.length > 0
    ? FastCheck.oneof(...choices)
    : Arbitrary.make(HookEffect.HookEffect).filter((e) =>
      Capabilities.grantProblem(granted, e) !== undefined
    )) as unknown as FastCheck.Arbitrary<
      HookEffect.HookEffect
    >
}

/**
 * The intercept response carrying `effects` for the request `id`.
 *
 * @since 0.1.0
 * @category responses
 */
export const response = (
  id: Json.JsonValue,
  effects: ReadonlyArray<HookEffect.HookEffect | Json.JsonValue>
): Json.JsonObject => ({
  jsonrpc: "2.0",
  id,
  result: { protocolVersion: "draft", effects: effects as Array<Json.JsonValue> }
})

/** An array nested `depth` levels deep. */
const nested = (depth: number): Json.JsonValue => {
  let value: Json.JsonValue = []
  for (let i = 1; i < depth; i++) value = [value]
  return value
}

/** Numbers beyond double precision, as a JSON parser keeps them. */
const huge: FastCheck.Arbitrary<Json.JsonValue> = FastCheck.constantFrom(
  "1e400",
  "-1e400",
  "9007199254740993",
  "123456789012345678901234567890"
)
  .map((source) => new Json.LosslessNumber(source) as unknown as Json.JsonValue)

/** An effect with an own `__proto__` member, as a JSON parser keeps it. */
const ownProto: Json.JsonValue = Object.defineProperty({ type: "message", text: "hi" }, "__proto__", {
  value: { type: "deny", reason: "smuggled" },
  enumerable: true,
  writable: true,
  configurable: true
})

/**
 * Effects no response may carry, whatever was granted: unknown kinds, unknown members,
 * wrong shapes, nesting deeper than `Json.maxDepth`, numbers beyond double precision
 * where a string or an object is required.
 *
 * @since 0.1.0
 * @category responses
 */
export const invalidEffect: FastCheck.Arbitrary<Json.JsonValue> = FastCheck.oneof(
  FastCheck.constantFrom<Json.JsonValue>(null, 1, "deny", [], {}, { type: "veto" }, {
    type: "flow",
    operation: "pause"
  }),
  FastCheck.constant<Json.JsonValue>({ type: "allow", bogus: true }),
  FastCheck.constant<Json.JsonValue>({ type: "deny" }),
  FastCheck.integer({ min: Json.maxDepth + 1, max: Json.maxDepth + 600 }).map((depth): Json.JsonValue => ({
    type: "deny",
    reason: nested(depth)
  })),
  huge.map((n): Json.JsonValue => ({ type: "deny", reason: n })),
  huge.map((n): Json.JsonValue => ({ type: "modify", target: "input", operation: "merge", value: n })),
  FastCheck.constant(null).map(() => ownProto)
)

/**
 * A response to the request `id` that must be rejected as a whole: a bad envelope, or a
 * list of valid effects with a `deny` and one invalid or ungranted effect hidden among them
 * (a harness must not salvage the deny). `valid` are effects the harness would accept.
 *
 * @since 0.1.0
 * @category responses
 */
export const invalidResponse = (
  id: Json.JsonValue,
  options: {
    readonly valid: FastCheck.Arbitrary<Array<HookEffect.HookEffect>>
    readonly granted: Capabilities.Capabilities
  }
): FastCheck.Arbitrary<Json.JsonValue> => {
  const poison = FastCheck.oneof(invalidEffect, ungrantedEffect(options.granted) as FastCheck.Arbitrary<Json.JsonValue>)
  const poisoned = FastCheck.tuple(options.valid, poison, FastCheck.nat()).map(([valid, bad, at]) => {
    const list: Array<Json.JsonValue> = [{ type: "deny", reason: "hidden" }, ...(valid as Array<Json.JsonValue>)]
    list.splice(at % (list.length + 1), 0, bad)
    return response(id, list)
  })
  const envelopes = FastCheck.constantFrom<Json.JsonValue>(
    null,
    [],
    "ok",
    { jsonrpc: "1.0", id, result: { protocolVersion: "draft", effects: [] } },
    { jsonrpc: "2.0", id: "another id", result: { protocolVersion: "draft", effects: [] } },
    { jsonrpc: "2.0", id, result: { protocolVersion: "2020", effects: [] } },
    { jsonrpc: "2.0", id, result: { protocolVersion: "draft" } },
    { jsonrpc: "2.0", id, result: { protocolVersion: "draft", effects: { type: "deny", reason: "x" } } },
    { jsonrpc: "2.0", id, error: { code: -32000, message: "no" } },
    { jsonrpc: "2.0", id, error: { code: -32000, message: "no" }, result: { protocolVersion: "draft", effects: [] } }
  )
  return FastCheck.oneof(poisoned, envelopes)
}

/**
 * Valid registration documents (the schema's arbitrary).
 *
 * @since 0.1.0
 * @category registrations
 */
export const registration: FastCheck.Arbitrary<Registration.Registration> = lazy(() =>
  Arbitrary.make(Registration.Registration)
)
