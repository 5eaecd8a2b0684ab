/**
 * The audit observer, an example backend. It observes every event (`"*"`) and appends one
 * JSON line per observation to a file: when it was observed, the event's id, type, time
 * and session, and a one-line summary. Observations are notifications, so it never
 * answers anything and cannot change a decision.
 *
 * @since 0.1.0
 */
import { Backend } from "@effect-ahp/backend"
import * as Brief from "@effect-ahp/hook/Brief"
import { type Event, Json } from "@effect-ahp/protocol"
import * as FileSystem from "@effect/platform/FileSystem"
import { Clock, Effect } from "effect"

/**
 * The audit line of one observed event.
 *
 * @since 0.1.0
 * @category policy
 */
export const line = (event: Event.Event, observedAt: number): Json.JsonObject => {
  const value = event as unknown as Json.JsonObject
  return {
    observedAt: new Date(observedAt).toISOString(),
    id: event.id,
    type: event.type,
    time: event.time,
    ...(event.session !== undefined ? { session: event.session.id } : {}),
    summary: Brief.event(value)
  }
}

/**
 * The observer as a backend layer, appending to `file`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (file: string) =>
  Backend.observe("*", (event) =>
    Effect.gen(function*() {
      const fs = yield* FileSystem.FileSystem
      const now = yield* Clock.currentTimeMillis
      yield* fs.writeFileString(file, `${Json.stringify(line(event, now))}\n`, { flag: "a" })
    }))
