/**
 * A deliberately slow backend, for trying deadlines and failure policies: at `tool.before`
 * and `turn.start` it waits `delay` before answering with no effect. With a subscription
 * `timeoutMs` below the delay, every call times out; the subscription's failure policy
 * then decides (fail-open: the failure is recorded and the chain goes on; fail-closed: a
 * synthetic denial).
 *
 * @since 0.1.0
 */
import { Backend } from "@effect-ahp/backend"
import { Duration, Effect, Layer } from "effect"

/**
 * The slow backend as a layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (delay: Duration.DurationInput) =>
  Layer.mergeAll(
    Backend.intercept("tool.before", () => Effect.as(Effect.sleep(delay), [])),
    Backend.intercept("turn.start", () => Effect.as(Effect.sleep(delay), []))
  )
