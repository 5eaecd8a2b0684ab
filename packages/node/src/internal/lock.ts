/**
 * A first-in, first-out lock for one holder at a time, for the persistent stdio lifecycle's
 * one pending request per child. It does what `Semaphore.withPermits(1)` does, without the
 * semaphore's asynchronous acquisition when the lock is free, which would otherwise be a
 * step of every exchange between I/O waits.
 *
 * The lock is taken and released while the caller cannot be interrupted; only the wait for
 * it is interruptible. Waiters queue in arrival order and a release hands the lock to the
 * first waiter still waiting (the lock never becomes free in between, so a newcomer cannot
 * overtake the queue) and wakes that one only. A waiter interrupted while waiting leaves
 * the queue; one interrupted after it was handed the lock, before it could run, passes the
 * lock on to the next.
 *
 * @internal
 */
import * as Effect from "effect/Effect"

/** A fiber waiting for the lock. */
interface Waiter {
  /** Set once the lock was handed to this waiter. */
  granted: boolean
  /** Set once this waiter stopped waiting (interrupted): a release skips it. */
  cancelled: boolean
  /** Resumes the waiting fiber, once it waits. */
  wake: (() => void) | undefined
  next: Waiter | undefined
}

/** @internal */
export class Lock {
  private held = false
  private head: Waiter | undefined = undefined
  private tail: Waiter | undefined = undefined

  /**
   * Runs `self` holding the lock, waiting (interruptibly, in turn) while another fiber holds
   * it. `onFailure` runs, still holding the lock, when `self` fails or is interrupted (what
   * an interrupted exchange must undo before the next holder goes on).
   */
  readonly withLock = <A, E, R>(self: Effect.Effect<A, E, R>, onFailure?: () => void): Effect.Effect<A, E, R> =>
    this.withLockOf(() => self, onFailure)

  /**
   * `withLock` of the effect `make` returns once the lock is held, so what it reads is read
   * by the holder: a free lock is taken and `make` called in the mask's own step (no
   * suspension of their own).
   */
  readonly withLockOf = <A, E, R>(make: () => Effect.Effect<A, E, R>, onFailure?: () => void): Effect.Effect<A, E, R> =>
    Effect.uninterruptibleMask((restore) => {
      if (!this.held) {
        const self = make()
        this.held = true
        return this.holding(restore(self), onFailure)
      }
      const waiter: Waiter = { granted: false, cancelled: false, wake: undefined, next: undefined }
      this.enqueue(waiter)
      return Effect.zipRight(
        Effect.onInterrupt(restore(this.await(waiter)), () => this.leave(waiter)),
        this.holding(restore(Effect.suspend(make)), onFailure)
      )
    })

  /**
   * Runs `self`, which holds the lock, and releases the lock however it ends. Called in
   * `withLock`'s uninterruptible region, so matching the outcome is what `ensuring` would
   * do, without the extra mask and release step on every exchange.
   */
  private holding<A, E, R>(self: Effect.Effect<A, E, R>, onFailure: (() => void) | undefined): Effect.Effect<A, E, R> {
    return Effect.matchCauseEffect(self, {
      onFailure: (cause) => {
        onFailure?.()
        this.handOver()
        return Effect.failCause(cause)
      },
      onSuccess: (value) => {
        this.handOver()
        return Effect.succeed(value)
      }
    })
  }

  /** Completes once the lock was handed to `waiter`. */
  private await(waiter: Waiter): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      if (waiter.granted) return resume(Effect.void)
      waiter.wake = () => resume(Effect.void)
    })
  }

  /** An interrupted waiter leaves: it is skipped if still queued, or passes the lock on if it was handed it. */
  private leave(waiter: Waiter): Effect.Effect<void> {
    return Effect.sync(() => {
      if (waiter.granted) this.handOver()
      else waiter.cancelled = true
    })
  }

  private enqueue(waiter: Waiter): void {
    if (this.tail === undefined) this.head = waiter
    else this.tail.next = waiter
    this.tail = waiter
  }

  /** Hands the lock to the first waiter still waiting, or frees it when there is none. */
  private handOver(): void {
    let waiter = this.head
    while (waiter !== undefined && waiter.cancelled) waiter = waiter.next
    if (waiter === undefined) {
      this.head = this.tail = undefined
      this.held = false
      return
    }
    this.head = waiter.next
    if (this.head === undefined) this.tail = undefined
    waiter.next = undefined
    waiter.granted = true
    waiter.wake?.()
  }
}
