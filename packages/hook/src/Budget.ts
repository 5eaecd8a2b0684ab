/**
 * The host's budget for one hook call, enforced at the transport: a decorator of the
 * harness's `Transports` that bounds every exchange of a call by the call's deadline and
 * records how each one ended (for the trace). The call is carried by a fiber reference, so
 * one set of connected backends (the bridge's) serves many calls, each with its own
 * deadline and record.
 *
 * When the deadline passes, the exchange in flight fails with the transport reason
 * `budget`, and every later exchange of the call fails at once the same way. The chain then
 * applies each subscription's failure policy: a fail-closed subscription denies, a fail-open
 * one is recorded. So the bridge answers before the host's own timeout, which would let the
 * action through, and a fail-closed policy still produces its denial.
 *
 * @since 0.1.0
 */
import { Transport } from "@effect-ahp/harness"
import { Cause, Clock, Duration, Effect, Exit, FiberRef, Layer, Option } from "effect"
import type { Outcome } from "./Recorder.js"

/**
 * One exchange of a call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Exchange {
  readonly backend: string
  readonly kind: "request" | "notification"
  readonly outcome: Outcome
  readonly durationMs: number
}

/**
 * One hook call: its deadline (epoch milliseconds on the effect clock) and the exchanges
 * it made, in the order they ended.
 *
 * @since 0.1.0
 * @category models
 */
export interface Call {
  readonly deadline: number
  readonly exchanges: Array<Exchange>
}

/**
 * The call the current fiber works for (none outside a hook call: exchanges are then
 * neither bounded nor recorded).
 *
 * @since 0.1.0
 * @category references
 */
export const currentCall: FiberRef.FiberRef<Call | undefined> = FiberRef.unsafeMake<Call | undefined>(undefined)

/**
 * A new call ending at `deadline`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeCall = (deadline: number): Call => ({ deadline, exchanges: [] })

/**
 * Who applies the budget, as the failure names it: the command hook dispatching alone
 * (`hook`), or the running bridge (`bridge`).
 *
 * @since 0.1.0
 * @category models
 */
export type Applier = "hook" | "bridge"

const exhausted = (applier: Applier, deadline: number) =>
  new Transport.TransportError({
    reason: "budget",
    detail: `the host's hook budget ran out (the ${applier}'s deadline was ${new Date(deadline).toISOString()})`
  })

const ended = <A>(exit: Exit.Exit<A, Transport.TransportError>, answered: (a: A) => Outcome): Outcome =>
  Exit.match(exit, {
    onSuccess: answered,
    onFailure: (cause) =>
      Option.match(Cause.failureOption(cause), {
        onNone: (): Outcome => ({ _tag: "Interrupted" }),
        onSome: (error): Outcome => ({ _tag: "Failed", error })
      })
  })

const bounded = <A>(
  applier: Applier,
  backend: string,
  kind: Exchange["kind"],
  send: Effect.Effect<A, Transport.TransportError>,
  answered: (a: A) => Outcome
): Effect.Effect<A, Transport.TransportError> =>
  Effect.flatMap(FiberRef.get(currentCall), (call) => {
    if (call === undefined) return send
    return Effect.flatMap(Clock.currentTimeMillis, (start) => {
      const remaining = call.deadline - start
      const guarded = remaining <= 0
        ? Effect.fail(exhausted(applier, call.deadline))
        : Effect.timeoutFail(send, {
          duration: Duration.millis(remaining),
          onTimeout: () => exhausted(applier, call.deadline)
        })
      return Effect.onExit(guarded, (exit) =>
        Effect.map(Clock.currentTimeMillis, (end) => {
          call.exchanges.push({ backend, kind, outcome: ended(exit, answered), durationMs: end - start })
        }))
    })
  })

/**
 * Wraps the `Transports` in context with the budget and the record of the current call;
 * `applier` is named by the failure when the budget runs out.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (applier: Applier): Layer.Layer<Transport.Transports, never, Transport.Transports> =>
  Layer.effect(
    Transport.Transports,
    Effect.map(Transport.Transports, (inner) =>
      Transport.Transports.of({
        connect: (backend) =>
          Effect.map(inner.connect(backend), (endpoint) => ({
            request: (message) =>
              bounded(
                applier,
                backend.id,
                "request",
                endpoint.request(message),
                (response) => ({ _tag: "Answered", response })
              ),
            notify: (message) =>
              bounded(applier, backend.id, "notification", endpoint.notify(message), () => ({ _tag: "Delivered" }))
          }))
      }))
  )
