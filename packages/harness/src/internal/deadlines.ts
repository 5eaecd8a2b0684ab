/**
 * Per-route deadlines for the chain's fiber, cheaper than `Effect.timeoutFail` per route
 * (which forks the exchange and a sleeper and races them: about 18 µs per route against
 * half a microsecond here, measured on the project VM).
 *
 * At most one deadline is armed at a time: it is armed when an exchange starts and then
 * either settled by the exchange's outcome, or it expires first — the index of its route is
 * recorded and the fiber that armed it is interrupted (its I/O is retired and awaited by
 * the caller). Settling and expiring are each synchronous, so exactly one of them happens.
 * Under the default live clock a platform timer holds the deadline; under any other clock
 * (a `TestClock`) a fiber sleeps on that clock, so tests control time as usual.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"

// Timers exist on every JavaScript platform; the core compiles without platform typings.
declare const setTimeout: (callback: () => void, millis: number) => unknown
declare const clearTimeout: (handle: unknown) => void

/** The clock of the default runtime services (a `TestClock` is not it). */
const liveClock = Effect.runSync(Effect.clock)

/** The longest delay a timer can hold (2^31 − 1 ms); like the live clock, a longer one never expires. */
const maxTimerMillis = 2 ** 31 - 1

/** The deadlines of one chain fiber. @internal */
export class Deadlines {
  /** The index of the route whose deadline expired. */
  expired: number | undefined = undefined
  private armed: { cancel: () => void } | undefined = undefined

  constructor(private readonly clock: Clock.Clock) {}

  /** Arms the deadline of route `index` for the current fiber, then runs `effect`. */
  arm<A, E>(index: number, millis: number, effect: Effect.Effect<A, E>): Effect.Effect<A, E> {
    return Effect.withFiberRuntime((fiber) => {
      const armed = { cancel: () => {} }
      this.armed = armed
      const expire = () => {
        if (this.armed !== armed) return
        this.armed = undefined
        this.expired = index
        fiber.unsafeInterruptAsFork(fiber.id())
      }
      if (this.clock === liveClock) {
        if (millis <= maxTimerMillis) {
          const timer = setTimeout(expire, millis)
          armed.cancel = () => clearTimeout(timer)
        }
        return effect
      }
      return Effect.flatMap(
        Effect.fork(Effect.zipRight(this.clock.sleep(Duration.millis(millis)), Effect.sync(expire))),
        (sleeper) => {
          armed.cancel = () => sleeper.unsafeInterruptAsFork(fiber.id())
          return effect
        }
      )
    })
  }

  /** Settles the armed deadline: whether the exchange finished before it expired. */
  settle(): boolean {
    if (this.expired !== undefined) return false
    this.disarm()
    return true
  }

  /** Cancels the armed deadline, if any. */
  disarm(): void {
    this.armed?.cancel()
    this.armed = undefined
  }
}
