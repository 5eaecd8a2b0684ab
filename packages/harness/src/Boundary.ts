/**
 * The boundary table: for each of the 32 catalogue events, as data, whether it can be
 * intercepted, which effect kinds it can carry, each modify target with its event field and
 * value kind, the shape of a supplied `return` value, its flow operations, and where its
 * model-visible content lives (for content selection). Per-boundary Schemas are derived
 * from it, so a value is judged against the active boundary, never only the generic
 * effect envelope.
 *
 * The targets, value kinds and return kinds come from `Boundaries.table` in the protocol
 * package (where the decisions the specification leaves open are written down).
 *
 * @since 0.1.0
 */
import { Boundaries, Capabilities, Event, type HookEffect } from "@effect-ahp/protocol"
import type * as Schema from "effect/Schema"

/**
 * The kind of value a modify target holds.
 *
 * @since 0.1.0
 * @category models
 */
export type ValueKind = Boundaries.ValueKind

/**
 * One modify target of a boundary: its event field and value kind.
 *
 * @since 0.1.0
 * @category models
 */
export interface Target {
  readonly target: HookEffect.ModifyTarget
  /** Path of the target in the event. For `ElicitationAnswer` it is the text part holding the MCP result. */
  readonly field: ReadonlyArray<string>
  readonly value: ValueKind
  /** Whether a change to this target changes the operation a candidate or an approval is bound to. */
  readonly operation: boolean
}

/**
 * The shape a supplied `return` value takes at a boundary.
 *
 * @since 0.1.0
 * @category models
 */
export type ReturnKind = Boundaries.ReturnKind

/**
 * Everything the harness needs to know about one event type.
 *
 * @since 0.1.0
 * @category models
 */
export interface Boundary {
  readonly type: Event.EventType
  readonly interceptable: boolean
  readonly effects: ReadonlyArray<HookEffect.Kind>
  readonly targets: ReadonlyArray<Target>
  readonly returns: ReturnKind | undefined
  readonly flowOperations: ReadonlyArray<Capabilities.FlowOperation>
  /** Whether `flow continue` is possible here. */
  readonly continuation: boolean
  /** Whether `inject` is possible here. */
  readonly inject: boolean
  /** Paths of model-visible content (messages, part lists or single parts); `*` walks an array. */
  readonly content: ReadonlyArray<ReadonlyArray<string>>
}

const contentByEvent: Partial<Record<Event.EventType, ReadonlyArray<ReadonlyArray<string>>>> = {
  "turn.progress": [["delta"]],
  "tool.progress": [["partialOutput"]],
  "context.compact.before": [["instructions"]],
  "context.compact.after": [["summary"]],
  "user.attention": [["attention", "message"], ["attention", "title"]],
  "user.elicitation.request": [["elicitation", "request"]],
  "user.elicitation.result": [["elicitation", "result"]],
  "user.message.inbound": [["message", "messages"]],
  "user.message.outbound": [["message", "messages"]],
  "file.changed": [["changes", "*", "before"], ["changes", "*", "after"]]
}

const make = (type: Event.EventType): Boundary => {
  const bounds = Capabilities.boundsOf(type)
  return {
    type,
    interceptable: bounds !== undefined,
    effects: bounds?.effects ?? [],
    targets: Object.entries(Boundaries.entryOf(type)?.targets ?? {}).map(([t, spec]) => ({
      target: t as HookEffect.ModifyTarget,
      ...spec
    })),
    returns: Boundaries.entryOf(type)?.returns,
    flowOperations: bounds?.flowOperations ?? [],
    continuation: bounds?.flowOperations.includes("continue") ?? false,
    inject: bounds?.effects.includes("inject") ?? false,
    content: [["items"], ...(contentByEvent[type] ?? [])]
  }
}

/**
 * The table, one entry per catalogue event type.
 *
 * @since 0.1.0
 * @category constants
 */
export const table: Readonly<Record<Event.EventType, Boundary>> = Object.fromEntries(
  Event.eventTypes.map((type) => [type, make(type)])
) as Record<Event.EventType, Boundary>

/**
 * The boundary of an event type.
 *
 * @since 0.1.0
 * @category accessors
 */
export const of = (type: Event.EventType): Boundary => table[type]

/**
 * The modify target of a boundary, if it has it.
 *
 * @since 0.1.0
 * @category accessors
 */
export const targetOf = (boundary: Boundary, t: HookEffect.ModifyTarget): Target | undefined =>
  boundary.targets.find((x) => x.target === t)

/**
 * A top-level MCP elicitation answer (`Boundaries.ElicitationAnswer`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitationAnswer = Boundaries.ElicitationAnswer

/**
 * The Schema a modify value of a target must satisfy at its boundary.
 *
 * @since 0.1.0
 * @category schemas
 */
export const valueSchema = (t: Target): Schema.Schema<any, any> => Boundaries.valueSchema(t.target, t.value)

/**
 * The Schema a supplied `return` value must satisfy at a boundary.
 *
 * @since 0.1.0
 * @category schemas
 */
export const returnSchema: (kind: ReturnKind) => Schema.Schema<any, any> = Boundaries.returnSchema
