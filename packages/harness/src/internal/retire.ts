/**
 * Retiring an interrupted exchange or delivery without letting it hold the call: its
 * fiber, interrupted once, is handed to an owner that awaits it when its scope closes,
 * and is itself awaited for a short grace only. A transport that retires its I/O promptly
 * (as its contract asks) is done within the grace, so nothing of the call is left
 * running; a slower one no longer delays the decision.
 *
 * A retiring fiber is never interrupted a second time: that would cut short the
 * finalizers retiring its I/O (a kill's grace, a reap).
 *
 * @internal
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import type * as Scope from "effect/Scope"

/** Takes over a fiber that is retiring its I/O. @internal */
export type Owner = (fiber: Fiber.RuntimeFiber<unknown, unknown>) => void

/** How long an interrupted fiber is awaited before it is left to its owner. @internal */
export const graceMillis = 100

const grace = Duration.millis(graceMillis)

/**
 * An owner for the lifetime of the current scope: a `FiberSet` of the fibers it holds,
 * awaited (never interrupted) when the scope closes. The wait is a finalizer added after
 * the set's own, so it runs first and leaves the set empty: closing a `FiberSet` interrupts
 * what it still holds, which would cut a retirement short. A fiber handed over once the set
 * is closed is left to end on its own (`FiberSet.unsafeAdd` would interrupt it again).
 *
 * @internal
 */
export const makeOwner: Effect.Effect<Owner, never, Scope.Scope> = Effect.flatMap(
  FiberSet.make<unknown, unknown>(),
  (set) => {
    let closed = false
    return Effect.as(
      Effect.addFinalizer(() => Effect.zipRight(FiberSet.awaitEmpty(set), Effect.sync(() => (closed = true)))),
      (fiber: Fiber.RuntimeFiber<unknown, unknown>) => {
        if (!closed && fiber.unsafePoll() === null) FiberSet.unsafeAdd(set, fiber)
      }
    )
  }
)

/**
 * Hands `fiber` to `owner` — first interrupting it as `interruptAs`, unless it is already
 * being interrupted — and waits until it ends, at most `graceMillis` on the current clock,
 * whatever the caller's region.
 *
 * @internal
 */
export const retire = (
  owner: Owner,
  fiber: Fiber.RuntimeFiber<unknown, unknown>,
  interruptAs: FiberId.FiberId | undefined
): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (fiber.unsafePoll() !== null) return Effect.void
    if (interruptAs !== undefined) fiber.unsafeInterruptAsFork(interruptAs)
    owner(fiber)
    return Effect.asVoid(
      Effect.raceFirst(Effect.interruptible(Fiber.await(fiber)), Effect.interruptible(Effect.sleep(grace)))
    )
  })
