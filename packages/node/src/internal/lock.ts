/**
 * A lock for one holder at a time, for the persistent stdio lifecycle's one pending request
 * per child. It does what `Semaphore.withPermits(1)` does, without the semaphore's
 * asynchronous acquisition when the lock is free: on the project VM that acquisition and
 * its release cost about 10 µs of every exchange between I/O waits.
 *
 * The lock is taken and released while the caller cannot be interrupted; only the wait for
 * it is interruptible. A release wakes every waiter and each tries again, so a waiter that
 * was interrupted after being woken cannot leave the others waiting.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/** @internal */
export class Lock {
  private held = false
  private readonly waiters = new Set<() => void>()

  /** Runs `self` holding the lock, waiting (interruptibly) while another fiber holds it. */
  readonly withLock = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.uninterruptibleMask((restore) => {
      const attempt: Effect.Effect<A, E, R> = Effect.suspend(() => {
        if (this.held) return Effect.zipRight(restore(this.released), attempt)
        this.held = true
        return Effect.ensuring(restore(self), this.release)
      })
      return attempt
    })

  /** Completes at the next release. */
  private readonly released: Effect.Effect<void> = Effect.async<void>((resume) => {
    const wake = () => resume(Effect.void)
    this.waiters.add(wake)
    return Effect.sync(() => void this.waiters.delete(wake))
  })

  private readonly release: Effect.Effect<void> = Effect.sync(() => {
    this.held = false
    const waiters = [...this.waiters]
    this.waiters.clear()
    for (const wake of waiters) wake()
  })
}
