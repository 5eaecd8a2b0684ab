/**
 * The pending decision state and its laws, pure.
 *
 * - Permission: deny > ask > allow > none. Deny is sticky; ask survives a later allow; no
 *   effect is never permission.
 * - A response that changes the operation (the boundary's operation target, e.g. the tool
 *   input, differs before and after the whole response: deeply, key order aside, numbers
 *   exactly) invalidates an earlier candidate and an earlier `allow` before its own effects
 *   apply; one whose edits net out to no change keeps them. Within one response,
 *   modifications apply before its `return` is bound.
 * - A later `return` replaces the candidate; deny, stop and fail-closed discard it.
 * - Stop beats continue in either order. Continue instructions accumulate in order; the
 *   boundary requests one continuation step and consumes one allowance unit when the
 *   settled flow is continue (none when stop wins).
 * - Injections and messages accumulate in acceptance order.
 * - Interruption never adds a denial and never leaves a result that grants execution:
 *   an accepted `allow`, a candidate and a pending continuation are dropped.
 *
 * @since 0.1.0
 */
import { Common, Content, HookEffect, Intercept, Json } from "@effect-ahp/protocol"
import * as Schema from "effect/Schema"

/**
 * Where an accepted effect came from (harness-local; never sent on the wire).
 *
 * @since 0.1.0
 * @category models
 */
export interface Provenance {
  readonly backend: string
  readonly subscription: string
  /** Absent on a decision read back from its JSON form. */
  readonly requestId?: string | undefined
}

/**
 * An accepted effect with its provenance.
 *
 * @since 0.1.0
 * @category models
 */
export interface Accepted {
  readonly effect: HookEffect.HookEffect
  /** Absent on a decision read back from its JSON form. */
  readonly provenance?: Provenance | undefined
}

/**
 * Why the operation is denied. A synthetic denial comes from a fail-closed failure, never
 * from a backend.
 *
 * @since 0.1.0
 * @category models
 */
export interface Denial {
  readonly reason: string
  readonly code?: string | undefined
  readonly synthetic: boolean
  readonly provenance?: Provenance | undefined
}

/**
 * A supplied result bound to the effective operation (its value may be JSON `null`).
 *
 * @since 0.1.0
 * @category models
 */
export interface Candidate {
  readonly value: Json.JsonValue
  readonly provenance?: Provenance | undefined
}

/**
 * Accumulated context injection.
 *
 * @since 0.1.0
 * @category models
 */
export interface Injection {
  readonly deliverAt: HookEffect.DeliverAt
  readonly messages: ReadonlyArray<Content.Message>
}

/**
 * The flow state.
 *
 * @since 0.1.0
 * @category models
 */
export type Flow = "none" | "stop" | "continue"

/**
 * What pending states and decisions have in common.
 *
 * @since 0.1.0
 * @category models
 */
export interface Outcome {
  readonly permission: Intercept.Permission
  readonly denial: Denial | undefined
  readonly candidate: Candidate | undefined
  readonly flow: Flow
  readonly stopReason: string | undefined
  readonly instructions: ReadonlyArray<string>
  readonly injections: ReadonlyArray<Injection | Json.JsonValue>
  readonly messages: ReadonlyArray<string>
}

/**
 * The pending state between interceptors.
 *
 * @since 0.1.0
 * @category models
 */
export interface PendingState extends Outcome {
  readonly accepted: ReadonlyArray<Accepted>
}

/**
 * The state before any interceptor, optionally from an incoming `Intercept.State`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const initial = (incoming?: Intercept.State): PendingState => ({
  permission: incoming?.permission ?? "none",
  denial: incoming?.permission === "deny" ? { reason: "denied by the incoming state", synthetic: false } : undefined,
  candidate: incoming?.candidate === null || incoming?.candidate === undefined
    ? undefined
    : { value: incoming.candidate.value },
  flow: incoming?.flow ?? "none",
  stopReason: incoming?.flow === "stop" ? "stopped by the incoming state" : undefined,
  instructions: incoming?.instructions ?? [],
  injections: incoming?.injections ?? [],
  messages: [],
  accepted: []
})

const rank: Record<Intercept.Permission, number> = { none: 0, allow: 1, ask: 2, deny: 3 }

/**
 * The stronger of two permissions.
 *
 * @since 0.1.0
 * @category combinators
 */
export const maxPermission = (a: Intercept.Permission, b: Intercept.Permission): Intercept.Permission =>
  rank[a] >= rank[b] ? a : b

/**
 * One staged, fully validated response ready to be published.
 *
 * @since 0.1.0
 * @category models
 */
export interface StagedResponse {
  readonly effects: ReadonlyArray<HookEffect.HookEffect>
  /**
   * Whether the operation a candidate or approval is bound to differs before and after
   * this response's modifications (taken as a whole).
   */
  readonly operationChanged: boolean
}

/**
 * Publishes a staged response into the pending state.
 *
 * @since 0.1.0
 * @category combinators
 */
export const accept = (state: PendingState, staged: StagedResponse, provenance: Provenance): PendingState => {
  if (staged.effects.length === 0 && !staged.operationChanged) return state
  let permission = state.permission
  let denial = state.denial
  let candidate = state.candidate
  let flow = state.flow
  let stopReason = state.stopReason
  let accepted = state.accepted
  if (staged.operationChanged) {
    candidate = undefined
    if (permission === "allow") permission = "none"
    accepted = accepted.filter((a) => a.effect.type !== "allow" && a.effect.type !== "return")
  }
  const instructions = [...state.instructions]
  const injections = [...state.injections]
  const messages = [...state.messages]
  let returned: HookEffect.Return | undefined
  for (const effect of staged.effects) {
    switch (effect.type) {
      case "deny":
        permission = "deny"
        denial ??= { reason: effect.reason, code: effect.code, synthetic: false, provenance }
        break
      case "ask":
      case "allow":
        permission = maxPermission(permission, effect.type)
        break
      case "return":
        returned = effect
        break
      case "flow":
        if (effect.operation === "stop") {
          flow = "stop"
          stopReason ??= effect.reason
        } else {
          if (flow !== "stop") flow = "continue"
          if (effect.instruction !== undefined) instructions.push(effect.instruction)
        }
        break
      case "inject":
        injections.push({ deliverAt: effect.deliverAt, messages: effect.value })
        break
      case "message":
        messages.push(effect.text)
        break
      case "modify":
        break
    }
  }
  if (returned !== undefined) {
    candidate = { value: returned.value, provenance }
    accepted = accepted.filter((a) => a.effect.type !== "return")
  }
  const mine = staged.effects
    .filter((e) => e.type !== "return" || e === returned)
    .map((effect) => ({ effect, provenance }))
  return {
    permission,
    denial,
    candidate,
    flow,
    stopReason,
    instructions,
    injections,
    messages,
    accepted: [...accepted, ...mine]
  }
}

/**
 * The generic reason of a fail-closed synthetic denial (no backend details).
 *
 * @since 0.1.0
 * @category constants
 */
export const syntheticDenialReason = "Required policy backend unavailable"

/**
 * Applies a fail-closed operational failure: a synthetic denial.
 *
 * @since 0.1.0
 * @category combinators
 */
export const failClosed = (state: PendingState, provenance: Provenance): PendingState => ({
  ...state,
  permission: "deny",
  denial: state.denial ?? { reason: syntheticDenialReason, synthetic: true, provenance }
})

/**
 * Whether decision-making stops after this state (deny or flow stop).
 *
 * @since 0.1.0
 * @category predicates
 */
export const isShortCircuit = (state: PendingState): boolean => state.permission === "deny" || state.flow === "stop"

/**
 * The settled decision of a boundary call. Its `candidate` is the supplied result that
 * replaces execution, if any survived settlement.
 *
 * @since 0.1.0
 * @category models
 */
export interface Decision extends Outcome {
  /** Continuation allowance units consumed by this boundary (0 or 1). */
  readonly continuationsConsumed: number
  /** The accepted effects still in force, in acceptance order. */
  readonly effects: ReadonlyArray<Accepted>
}

/**
 * Settles the pending state into the decision.
 *
 * @since 0.1.0
 * @category combinators
 */
export const settle = (state: PendingState, options?: { readonly interrupted?: boolean }): Decision => {
  const interrupted = options?.interrupted === true
  const blocked = state.permission === "deny" || state.flow === "stop"
  const permission = interrupted && state.permission === "allow" ? "none" : state.permission
  const flow: Flow = interrupted && state.flow === "continue" ? "none" : state.flow
  const dropped = (a: Accepted) =>
    (a.effect.type === "return" && (blocked || interrupted)) ||
    (a.effect.type === "flow" && a.effect.operation === "continue" && (flow !== "continue")) ||
    (a.effect.type === "allow" && permission !== "allow")
  return {
    permission,
    denial: permission === "deny" ? state.denial : undefined,
    candidate: blocked || interrupted ? undefined : state.candidate,
    flow,
    stopReason: flow === "stop" ? state.stopReason : undefined,
    instructions: state.instructions,
    continuationsConsumed: flow === "continue" ? 1 : 0,
    injections: state.injections,
    messages: state.messages,
    effects: state.accepted.filter((a) => !dropped(a))
  }
}

const optional = Common.optional

const ProvenanceFromSelf = Schema.Struct({
  backend: Schema.String,
  subscription: Schema.String,
  requestId: Schema.optional(Schema.String)
})

const InjectionOrJson = Schema.Union(
  Schema.Struct({ deliverAt: HookEffect.DeliverAt, messages: Content.Messages }),
  Json.Value
)

/**
 * A decision as a value (no encoding): the type side of `Decision`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DecisionFromSelf: Schema.Schema<Decision> = Schema.Struct({
  permission: Intercept.Permission,
  denial: Schema.UndefinedOr(Schema.Struct({
    reason: Schema.String,
    code: Schema.optional(Schema.String),
    synthetic: Schema.Boolean,
    provenance: Schema.optional(ProvenanceFromSelf)
  })),
  candidate: Schema.UndefinedOr(Schema.Struct({ value: Json.Value, provenance: Schema.optional(ProvenanceFromSelf) })),
  flow: Schema.Literal("none", "stop", "continue"),
  stopReason: Schema.UndefinedOr(Schema.String),
  instructions: Schema.Array(Schema.String),
  injections: Schema.Array(Schema.typeSchema(InjectionOrJson)),
  messages: Schema.Array(Schema.String),
  continuationsConsumed: Schema.Number,
  effects: Schema.Array(Schema.Struct({
    effect: Schema.typeSchema(HookEffect.HookEffect),
    provenance: Schema.optional(ProvenanceFromSelf)
  }))
})

/**
 * The members of a decision's documented JSON form (`ahp dispatch` prints them beside the
 * event): the effects still in force, the permission as `decision`, the settled `state`
 * (absent members as `null`; a denial names the backend and subscription it came from)
 * and the messages. Request ids and the provenance of effects and candidates are not part
 * of it.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DecisionJson = Schema.Struct({
  effects: Schema.Array(HookEffect.HookEffect),
  decision: Intercept.Permission,
  state: Schema.Struct({
    permission: Intercept.Permission,
    candidate: Schema.NullOr(Schema.Struct({ value: Json.Value })),
    flow: Schema.Literal("none", "stop", "continue"),
    instructions: Schema.Array(Schema.String),
    injections: Schema.Array(InjectionOrJson),
    denial: Schema.NullOr(Schema.Struct({
      reason: Schema.String,
      code: optional(Schema.String),
      synthetic: Schema.Boolean,
      backend: optional(Schema.String),
      subscription: optional(Schema.String)
    })),
    stopReason: Schema.NullOr(Schema.String),
    continuationsConsumed: Schema.Number
  }),
  messages: Schema.Array(Schema.String)
})

/**
 * The decision read from its JSON form.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromJson = (json: typeof DecisionJson.Type): Decision => {
  const { candidate, denial } = json.state
  return {
    permission: json.state.permission,
    denial: denial === null ? undefined : {
      reason: denial.reason,
      ...(denial.code !== undefined ? { code: denial.code } : {}),
      synthetic: denial.synthetic,
      ...(denial.backend !== undefined && denial.subscription !== undefined
        ? { provenance: { backend: denial.backend, subscription: denial.subscription } }
        : {})
    },
    candidate: candidate === null ? undefined : { value: candidate.value },
    flow: json.state.flow,
    stopReason: json.state.stopReason ?? undefined,
    instructions: json.state.instructions,
    injections: json.state.injections,
    messages: json.messages,
    continuationsConsumed: json.state.continuationsConsumed,
    effects: json.effects.map((effect) => ({ effect }))
  }
}

/**
 * The JSON form of a decision.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toJson = (decision: Decision): typeof DecisionJson.Type => {
  const denial = decision.denial
  return {
    effects: decision.effects.map((accepted) => accepted.effect),
    decision: decision.permission,
    state: {
      permission: decision.permission,
      candidate: decision.candidate === undefined ? null : { value: decision.candidate.value },
      flow: decision.flow,
      instructions: decision.instructions,
      injections: decision.injections,
      denial: denial === undefined ? null : {
        reason: denial.reason,
        ...(denial.code !== undefined ? { code: denial.code } : {}),
        synthetic: denial.synthetic,
        ...(denial.provenance !== undefined
          ? { backend: denial.provenance.backend, subscription: denial.provenance.subscription }
          : {})
      },
      stopReason: decision.stopReason ?? null,
      continuationsConsumed: decision.continuationsConsumed
    },
    messages: decision.messages
  }
}

/**
 * A settled decision whose encoding is its documented JSON form (`DecisionJson`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Decision: Schema.Schema<Decision, typeof DecisionJson.Encoded> = Schema.transform(
  DecisionJson,
  DecisionFromSelf,
  { strict: true, decode: fromJson, encode: toJson }
)
