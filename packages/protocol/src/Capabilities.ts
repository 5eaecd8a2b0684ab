/**
 * Interception capabilities: what a harness advertises it can enforce for one
 * `hooks/intercept` request, and the per-event bounds no advertisement may exceed.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as Boundaries from "./Boundaries.js"
import { MemberName, NonNegativeInt, optional, ReverseDns } from "./Common.js"
import * as HookEffect from "./HookEffect.js"
import * as arbitraries from "./internal/arbitraries.js"
import * as Json from "./Json.js"

/**
 * Which operations one modify target allows; at least one is true.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TargetOperations = Schema.Struct({ replace: Schema.Boolean, merge: Schema.Boolean }).pipe(
  Schema.filter((ops) => ops.replace || ops.merge || "at least one of replace and merge must be true")
).annotations({ identifier: "TargetOperations" })

/**
 * @since 0.1.0
 * @category models
 */
export type TargetOperations = typeof TargetOperations.Type

/**
 * Advertised modify targets and their operations.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Modify = Schema.Struct({
  input: optional(TargetOperations),
  output: optional(TargetOperations),
  prompt: optional(TargetOperations),
  request: optional(TargetOperations),
  response: optional(TargetOperations),
  content: optional(TargetOperations),
  instructions: optional(TargetOperations),
  summary: optional(TargetOperations),
  workspace: optional(TargetOperations)
}).pipe(
  Schema.filter((modify) =>
    HookEffect.modifyTargets.some((t) => modify[t] !== undefined) || "must advertise at least one target"
  )
).annotations({ identifier: "ModifyCapabilities" })

/**
 * @since 0.1.0
 * @category models
 */
export type Modify = typeof Modify.Type

/**
 * Flow operations.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FlowOperation = Schema.Literal("stop", "continue")

/**
 * @since 0.1.0
 * @category models
 */
export type FlowOperation = typeof FlowOperation.Type

const uniqueArray = <S extends Schema.Schema.Any>(item: S) =>
  Schema.Array(item).pipe(
    Schema.filter((items) => new Set(items).size === items.length || "must not contain duplicates")
  )

/**
 * Advertised flow operations; `continue` carries the remaining continuation allowance.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Flow = Schema.Struct({
  operations: uniqueArray(FlowOperation).pipe(Schema.minItems(1)),
  remainingContinuations: optional(NonNegativeInt),
  continuationCount: optional(NonNegativeInt),
  maxContinuations: optional(NonNegativeInt)
}).pipe(
  Schema.filter((flow) => {
    if (!flow.operations.includes("continue")) return undefined
    const missing = (["remainingContinuations", "continuationCount"] as const).filter((k) => flow[k] === undefined)
    return missing.map((k) => ({ path: [k], message: `is required when continue is advertised` }))
  })
).annotations({ identifier: "FlowCapabilities" })

/**
 * @since 0.1.0
 * @category models
 */
export type Flow = typeof Flow.Type

/**
 * Advertised context injection.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Inject = Schema.Struct({
  context: Schema.Struct({
    append: Schema.Literal(true),
    deliverAt: uniqueArray(HookEffect.DeliverAt).pipe(Schema.minItems(1))
  })
}).annotations({ identifier: "InjectCapabilities" })

/**
 * @since 0.1.0
 * @category models
 */
export type Inject = typeof Inject.Type

/**
 * Elicitation modes the harness supports (each present mode is supported).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Elicitation = Schema.Struct({
  form: optional(Schema.Record({ key: MemberName, value: Schema.Unknown })),
  url: optional(Schema.Record({ key: MemberName, value: Schema.Unknown }))
})

/**
 * An effect name: one of the eight core kinds, or a reverse-DNS extension name (which a
 * harness implementing this package never advertises).
 *
 * @since 0.1.0
 * @category schemas
 */
export const EffectName = Schema.Union(HookEffect.Kind, ReverseDns)

/**
 * The capabilities carried by one `hooks/intercept` request.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Capabilities = Schema.Struct({
  effects: uniqueArray(EffectName),
  modify: optional(Modify),
  flow: optional(Flow),
  inject: optional(Inject),
  elicitation: optional(Elicitation)
}).pipe(
  Schema.filter((caps) => {
    const issues: Array<{ path: ReadonlyArray<string>; message: string }> = []
    for (const block of ["modify", "flow", "inject"] as const) {
      const advertised = caps.effects.includes(block)
      if (advertised && caps[block] === undefined) {
        issues.push({ path: [block], message: `is required when ${block} is in effects` })
      }
      if (!advertised && caps[block] !== undefined) {
        issues.push({ path: [block], message: `must be absent unless ${block} is in effects` })
      }
    }
    return issues
  })
).annotations({
  identifier: "Capabilities",
  arbitrary: () => (fc) =>
    arbitraries.capabilities(fc, {
      effects: HookEffect.kinds,
      modifyTargets: HookEffect.modifyTargets,
      flowOperations: ["stop", "continue"]
    }) as any
})

/**
 * @since 0.1.0
 * @category models
 */
export type Capabilities = typeof Capabilities.Type

/**
 * The most an interceptable event can ever carry: its effect kinds, modify targets and
 * flow operations (from the official per-event capability definitions).
 *
 * @since 0.1.0
 * @category models
 */
export interface Bounds {
  readonly effects: ReadonlyArray<HookEffect.Kind>
  readonly modifyTargets: ReadonlyArray<HookEffect.ModifyTarget>
  readonly flowOperations: ReadonlyArray<FlowOperation>
}

/**
 * Per-event bounds for the 19 interceptable events, derived from `Boundaries.table`.
 *
 * @since 0.1.0
 * @category constants
 */
export const boundsByEvent: Readonly<Record<string, Bounds>> = Object.fromEntries(
  Object.entries(Boundaries.table as Record<string, Boundaries.Entry>).map(([type, entry]) => [type, {
    effects: entry.effects,
    modifyTargets: Object.keys(entry.targets) as Array<HookEffect.ModifyTarget>,
    flowOperations: entry.flow
  }])
)

/**
 * The bounds of an event type, or `undefined` when the event is observation-only.
 *
 * @since 0.1.0
 * @category accessors
 */
export const boundsOf = (eventType: string): Bounds | undefined =>
  Object.prototype.hasOwnProperty.call(boundsByEvent, eventType) ? boundsByEvent[eventType] : undefined

/**
 * Problems that make `capabilities` exceed the bounds of `eventType` (JSON Pointer paths
 * relative to the capabilities object). Empty when within bounds.
 *
 * @since 0.1.0
 * @category validation
 */
export const boundsProblems = (
  eventType: string,
  capabilities: Capabilities
): Array<{ readonly path: ReadonlyArray<string | number>; readonly message: string }> => {
  const b = boundsOf(eventType)
  if (b === undefined) return [{ path: [], message: `${eventType} is observation-only and cannot be intercepted` }]
  const problems: Array<{ readonly path: ReadonlyArray<string | number>; readonly message: string }> = []
  capabilities.effects.forEach((effect, i) => {
    if (!(b.effects as ReadonlyArray<string>).includes(effect)) {
      problems.push({ path: ["effects", i], message: `${effect} is not permitted at ${eventType}` })
    }
  })
  for (const target of HookEffect.modifyTargets) {
    if (capabilities.modify?.[target] !== undefined && !b.modifyTargets.includes(target)) {
      problems.push({ path: ["modify", target], message: `modify(${target}) is not permitted at ${eventType}` })
    }
  }
  capabilities.flow?.operations.forEach((op, i) => {
    if (!b.flowOperations.includes(op)) {
      problems.push({ path: ["flow", "operations", i], message: `flow ${op} is not permitted at ${eventType}` })
    }
  })
  return problems
}

/**
 * Why capabilities do not grant an effect: `ungranted-effect` (its kind is not in
 * `effects`), `ungranted-target` (a modify target without `modify.<target>`),
 * `ungranted-operation` (a modify operation, flow operation or delivery time not
 * advertised) or `allowance-exhausted` (a `flow continue` with no continuation left).
 *
 * @since 0.1.0
 * @category models
 */
export const GrantCode = Schema.Literal(
  "ungranted-effect",
  "ungranted-target",
  "ungranted-operation",
  "allowance-exhausted"
)

/**
 * @since 0.1.0
 * @category models
 */
export type GrantCode = typeof GrantCode.Type

/**
 * An effect the capabilities do not grant: the code, a JSON Pointer into the effect (the
 * member at fault, `""` for the effect as a whole) and a message naming only the effect
 * kind, target, operation or delivery time — never a value.
 *
 * @since 0.1.0
 * @category models
 */
export interface GrantProblem {
  readonly code: GrantCode
  readonly path: string
  readonly message: string
}

/**
 * The one capability check: whether `capabilities` (as advertised in a request) grant
 * `effect`, or why not. Shape and value checks are the effect schema's; this checks only
 * authority:
 *
 * - its kind must be advertised in `effects`;
 * - a `modify` needs `modify.<target>.<operation>` to be `true`;
 * - a `flow` needs its operation in `flow.operations`, and `continue` also needs a positive
 *   `remainingContinuations`;
 * - an `inject` needs its `deliverAt` in `inject.context.deliverAt`.
 *
 * The harness rejects a response holding an ungranted effect with this problem; the backend
 * SDK refuses to send one.
 *
 * @since 0.1.0
 * @category validation
 */
export const grantProblem = (capabilities: Capabilities, effect: HookEffect.HookEffect): GrantProblem | undefined => {
  if (!(capabilities.effects as ReadonlyArray<string>).includes(effect.type)) {
    return { code: "ungranted-effect", path: "/type", message: `${effect.type} is not granted` }
  }
  switch (effect.type) {
    case "modify": {
      const operations = capabilities.modify?.[effect.target]
      if (operations === undefined) {
        return { code: "ungranted-target", path: "/target", message: `modify(${effect.target}) is not granted` }
      }
      return operations[effect.operation]
        ? undefined
        : {
          code: "ungranted-operation",
          path: "/operation",
          message: `modify(${effect.target}) ${effect.operation} is not granted`
        }
    }
    case "flow": {
      const flow = capabilities.flow
      if (flow === undefined || !flow.operations.includes(effect.operation)) {
        return { code: "ungranted-operation", path: "/operation", message: `flow ${effect.operation} is not granted` }
      }
      return effect.operation === "continue" && Json.toNumber(flow.remainingContinuations ?? 0) < 1
        ? {
          code: "allowance-exhausted",
          path: "",
          message: "flow continue is not granted: the continuation allowance is exhausted"
        }
        : undefined
    }
    case "inject":
      return capabilities.inject?.context.deliverAt.includes(effect.deliverAt)
        ? undefined
        : { code: "ungranted-operation", path: "/deliverAt", message: `inject at ${effect.deliverAt} is not granted` }
    default:
      return undefined
  }
}

/**
 * Whether `capabilities` grant `effect` (`grantProblem` finds nothing).
 *
 * @since 0.1.0
 * @category validation
 */
export const isGranted = (capabilities: Capabilities, effect: HookEffect.HookEffect): boolean =>
  grantProblem(capabilities, effect) === undefined
