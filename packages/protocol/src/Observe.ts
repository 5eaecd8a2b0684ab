/**
 * `hooks/observe`: the one-way notification carrying a settled effective event.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { forbidden, ProtocolVersion, struct } from "./Common.js"
import * as Event from "./Event.js"

/**
 * The method name.
 *
 * @since 0.1.0
 * @category constants
 */
export const method = "hooks/observe" as const

/**
 * A `hooks/observe` notification (no id; never answered).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Notification = struct({
  jsonrpc: Schema.Literal("2.0"),
  method: Schema.Literal(method),
  params: struct({ protocolVersion: ProtocolVersion, event: Event.Event }),
  id: forbidden("a notification has no id")
}).annotations({ identifier: "ObserveNotification" })

/**
 * @since 0.1.0
 * @category models
 */
export type Notification = typeof Notification.Type
