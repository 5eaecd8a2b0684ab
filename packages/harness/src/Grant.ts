/**
 * What the host can enforce, and therefore what the harness may advertise. A grant holds,
 * per event type, the static intercept capabilities (within the event's bounds) and
 * whether the event is offered for observation. Per call, a host may narrow it — never
 * widen it (checked before anything is sent) — and each request then advertises the
 * capabilities for that step: replace is withdrawn from list targets holding text the
 * subscription cannot see, unreadable targets are withdrawn, and `flow` carries the
 * remaining continuation allowance.
 *
 * @since 0.1.0
 */
import { Capabilities, Discovery, Event, HookEffect, Json } from "@effect-ahp/protocol"
import * as Either from "effect/Either"
import * as Boundary from "./Boundary.js"
import type * as Projection from "./Projection.js"

/**
 * The grant for one event type.
 *
 * @since 0.1.0
 * @category models
 */
export interface EventGrant {
  /** Intercept capabilities; absent when the host does not intercept this event. */
  readonly intercept: Capabilities.Capabilities | undefined
  readonly observe: boolean
}

/**
 * The host's grant.
 *
 * @since 0.1.0
 * @category models
 */
export interface Grant {
  readonly events: Readonly<Partial<Record<Event.EventType, EventGrant>>>
  /** The continuation limit per continuation chain (manifest `limits.maxContinuations`). */
  readonly maxContinuations: number
}

/**
 * A problem with a grant or a narrowing: JSON Pointer and message.
 *
 * @since 0.1.0
 * @category models
 */
export interface GrantProblem {
  readonly path: string
  readonly message: string
}

/**
 * Everything a boundary permits, every target with both operations.
 *
 * @since 0.1.0
 * @category constructors
 */
export const boundaryCapabilities = (
  boundary: Boundary.Boundary,
  maxContinuations: number
): Capabilities.Capabilities => {
  const caps: {
    effects: ReadonlyArray<HookEffect.Kind>
    modify?: Capabilities.Modify
    flow?: Capabilities.Flow
    inject?: Capabilities.Inject
  } = { effects: boundary.effects }
  if (boundary.targets.length > 0) {
    caps.modify = Object.fromEntries(boundary.targets.map((t) => [t.target, { replace: true, merge: true }]))
  }
  if (boundary.flowOperations.length > 0) {
    caps.flow = boundary.continuation
      ? { operations: boundary.flowOperations, remainingContinuations: maxContinuations, continuationCount: 0 }
      : { operations: boundary.flowOperations }
  }
  if (boundary.inject) caps.inject = { context: { append: true, deliverAt: ["now", "next_turn"] } }
  return caps
}

/**
 * A host that can enforce everything each boundary permits, for interception and
 * observation.
 *
 * @since 0.1.0
 * @category constructors
 */
export const full = (options?: { readonly maxContinuations?: number }): Grant => {
  const maxContinuations = options?.maxContinuations ?? 3
  return {
    maxContinuations,
    events: Object.fromEntries(
      Event.eventTypes.map((type) => {
        const boundary = Boundary.of(type)
        return [type, {
          intercept: boundary.interceptable ? boundaryCapabilities(boundary, maxContinuations) : undefined,
          observe: true
        }]
      })
    )
  }
}

const checkBounds = (type: string, caps: Capabilities.Capabilities, at: string): Array<GrantProblem> =>
  Capabilities.boundsProblems(type, caps).map((p) => ({
    path: at + p.path.map((s) => `/${s}`).join(""),
    message: p.message
  }))

/**
 * A grant from a static capability manifest (`hooks/capabilities` result shape).
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromManifest = (manifest: Discovery.Manifest): Either.Either<Grant, ReadonlyArray<GrantProblem>> => {
  const problems: Array<GrantProblem> = []
  const events: Partial<Record<Event.EventType, EventGrant>> = {}
  manifest.events.forEach((entry, i) => {
    const intercept = entry.modes.includes("intercept") ? entry.capabilities : undefined
    if (intercept !== undefined) problems.push(...checkBounds(entry.event, intercept, `/events/${i}/capabilities`))
    events[entry.event] = { intercept, observe: entry.modes.includes("observe") }
  })
  return problems.length > 0
    ? Either.left(problems)
    : Either.right({ events, maxContinuations: Json.toNumber(manifest.limits.maxContinuations ?? 0) })
}

/**
 * A grant from a map of event type to intercept capabilities; every event is offered for
 * observation.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromCapabilityMap = (
  map: Readonly<Record<string, Capabilities.Capabilities>>,
  options?: { readonly maxContinuations?: number }
): Either.Either<Grant, ReadonlyArray<GrantProblem>> => {
  const problems: Array<GrantProblem> = []
  const events: Partial<Record<Event.EventType, EventGrant>> = {}
  for (const type of Event.eventTypes) events[type] = { intercept: undefined, observe: true }
  for (const [type, caps] of Object.entries(map)) {
    if (!Event.isEventType(type)) {
      problems.push({ path: `/${type}`, message: `${type} is not a catalogue event type` })
      continue
    }
    problems.push(...checkBounds(type, caps, `/${type}`))
    events[type] = { intercept: caps, observe: true }
  }
  const maxContinuations = options?.maxContinuations ??
    Math.max(
      0,
      ...Object.values(map).map((c) => Json.toNumber(c.flow?.maxContinuations ?? c.flow?.remainingContinuations ?? 0))
    )
  return problems.length > 0 ? Either.left(problems) : Either.right({ events, maxContinuations })
}

/**
 * Checks that a per-call narrowing stays within the static capabilities and returns it.
 *
 * @since 0.1.0
 * @category narrowing
 */
export const narrow = (
  granted: Capabilities.Capabilities,
  narrowing: Capabilities.Capabilities
): Either.Either<Capabilities.Capabilities, ReadonlyArray<GrantProblem>> => {
  const problems: Array<GrantProblem> = []
  narrowing.effects.forEach((effect, i) => {
    if (!granted.effects.includes(effect)) problems.push({ path: `/effects/${i}`, message: `${effect} is not granted` })
  })
  for (const t of HookEffect.modifyTargets) {
    const ops = narrowing.modify?.[t]
    if (ops === undefined) continue
    const allowed = granted.modify?.[t]
    if (allowed === undefined) problems.push({ path: `/modify/${t}`, message: `modify(${t}) is not granted` })
    else {
      if (ops.replace && !allowed.replace) {
        problems.push({ path: `/modify/${t}/replace`, message: "replace is not granted" })
      }
      if (ops.merge && !allowed.merge) problems.push({ path: `/modify/${t}/merge`, message: "merge is not granted" })
    }
  }
  narrowing.flow?.operations.forEach((op, i) => {
    if (!granted.flow?.operations.includes(op)) {
      problems.push({ path: `/flow/operations/${i}`, message: `flow ${op} is not granted` })
    }
  })
  const remaining = narrowing.flow?.remainingContinuations
  const grantedRemaining = granted.flow?.remainingContinuations
  if (remaining !== undefined && grantedRemaining !== undefined && remaining > grantedRemaining) {
    problems.push({ path: "/flow/remainingContinuations", message: "cannot exceed the granted continuation allowance" })
  }
  narrowing.inject?.context.deliverAt.forEach((at, i) => {
    if (!granted.inject?.context.deliverAt.includes(at)) {
      problems.push({ path: `/inject/context/deliverAt/${i}`, message: `delivery ${at} is not granted` })
    }
  })
  for (const mode of ["form", "url"] as const) {
    if (narrowing.elicitation?.[mode] !== undefined && granted.elicitation?.[mode] === undefined) {
      problems.push({ path: `/elicitation/${mode}`, message: `elicitation ${mode} is not granted` })
    }
  }
  return problems.length > 0 ? Either.left(problems) : Either.right(narrowing)
}

/**
 * The continuation allowance at one step.
 *
 * @since 0.1.0
 * @category models
 */
export interface Allowance {
  readonly remaining: number
  readonly count: number
}

/**
 * The capabilities advertised to one subscription at one step: the call's capabilities
 * adjusted to what the subscription can see, with the current continuation allowance.
 * Returns `undefined` only if nothing at all could be advertised.
 *
 * @since 0.1.0
 * @category narrowing
 */
export const forStep = (
  call: Capabilities.Capabilities,
  view: Pick<Projection.View, "hiddenTextTargets" | "unreadableTargets">,
  allowance: Allowance
): Capabilities.Capabilities => {
  let effects = call.effects
  let modify: Record<string, Capabilities.TargetOperations> | undefined
  if (call.modify !== undefined) {
    modify = {}
    for (const t of HookEffect.modifyTargets) {
      const ops = call.modify[t]
      if (ops === undefined || view.unreadableTargets.has(t)) continue
      const replace = ops.replace && !view.hiddenTextTargets.has(t)
      if (replace || ops.merge) modify[t] = { replace, merge: ops.merge }
    }
    if (Object.keys(modify).length === 0) {
      modify = undefined
      effects = effects.filter((e) => e !== "modify")
    }
  }
  const flow = call.flow === undefined
    ? undefined
    : call.flow.operations.includes("continue")
    ? {
      ...call.flow,
      remainingContinuations: Math.min(
        allowance.remaining,
        Json.toNumber(call.flow.remainingContinuations ?? allowance.remaining)
      ),
      continuationCount: allowance.count
    }
    : call.flow
  return {
    effects,
    ...(modify !== undefined ? { modify: modify as Capabilities.Modify } : {}),
    ...(flow !== undefined ? { flow } : {}),
    ...(call.inject !== undefined ? { inject: call.inject } : {}),
    ...(call.elicitation !== undefined ? { elicitation: call.elicitation } : {})
  }
}
