/**
 * The catalogue's event type names: the 32 types, the 19 interceptable ones, and their
 * families. A leaf module (it depends on nothing else here), so the modules that need only
 * the names — discovery manifests, registration selectors, grants — do not load the event
 * schemas, and `Event.ts` can depend on them without an import cycle.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * Every catalogue event type name, in catalogue order.
 *
 * @since 0.1.0
 * @category constants
 */
export const eventTypes = [
  "tool.before",
  "tool.after",
  "session.start",
  "session.end",
  "config.change.before",
  "config.change.after",
  "turn.start",
  "turn.finish.before",
  "turn.end",
  "turn.progress",
  "model.request.before",
  "model.response.after",
  "model.error",
  "model.switch.before",
  "model.switch.after",
  "tool.permission.request",
  "tool.permission.resolved",
  "tool.progress",
  "tool.batch.after",
  "context.compact.before",
  "context.compact.after",
  "task.change.before",
  "task.change.after",
  "user.attention",
  "user.elicitation.request",
  "user.elicitation.result",
  "user.message.inbound",
  "user.message.outbound",
  "workspace.change.before",
  "workspace.change.after",
  "file.changed",
  "hook.failure"
] as const

/**
 * The 32 catalogue event type names.
 *
 * @since 0.1.0
 * @category schemas
 */
export const EventType = Schema.Literal(...eventTypes).annotations({
  identifier: "EventType",
  message: () => "must be one of the 32 catalogue event types"
})

/**
 * @since 0.1.0
 * @category models
 */
export type EventType = typeof EventType.Type

/**
 * The 19 event types that may appear in `hooks/intercept`.
 *
 * @since 0.1.0
 * @category constants
 */
export const interceptableEventTypes = [
  "tool.before",
  "tool.after",
  "session.start",
  "config.change.before",
  "turn.start",
  "turn.finish.before",
  "model.request.before",
  "model.switch.before",
  "tool.permission.request",
  "tool.batch.after",
  "context.compact.before",
  "context.compact.after",
  "task.change.before",
  "user.elicitation.request",
  "user.elicitation.result",
  "user.message.inbound",
  "user.message.outbound",
  "workspace.change.before",
  "model.response.after"
] as const

/**
 * An interceptable event type name.
 *
 * @since 0.1.0
 * @category models
 */
export type InterceptableEventType = (typeof interceptableEventTypes)[number]

const known: ReadonlySet<string> = new Set(eventTypes)
const interceptable: ReadonlySet<string> = new Set(interceptableEventTypes)

/**
 * Whether a value is a catalogue event type name.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isEventType = (u: unknown): u is EventType => typeof u === "string" && known.has(u)

/**
 * Whether an event type may be intercepted.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isInterceptable = (type: string): type is InterceptableEventType => interceptable.has(type)

/**
 * The family of an event type: the part before the first dot.
 *
 * @since 0.1.0
 * @category accessors
 */
export const family = (type: string): string => {
  const dot = type.indexOf(".")
  return dot === -1 ? type : type.slice(0, dot)
}
