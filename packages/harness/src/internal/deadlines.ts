/**
 * Per-route deadlines for the chain's fiber, cheaper than `Effect.timeoutFail` per route
 * (which forks the exchange and a sleeper and races them: about 18 µs per route against
 * half a microsecond here, measured on the project VM).
 *
 * At most one deadline is armed at a time: it is armed when an exchange starts and then
 * either settled by the exchange's outcome, or it expires first — the index of its route is
 * recorded and the fiber that armed it is interrupted (its I/O is retired and awaited by
 * the caller). Settling and expiring are each synchronous, so exactly one of them happens.
 * Under the default live clock one platform timer serves every deadline of the fiber: it is
 * set when a deadline is armed earlier than the timer fires, left running when a deadline
 * settles, and when it fires it expires the armed deadline if that is due, or waits for it
 * (a platform timer per route made each exchange pay for creating, cancelling and
 * collecting one). Under any other clock (a `TestClock`) a fiber sleeps on that clock, so
 * tests control time as usual.
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
  private armed: Armed | undefined = undefined
  /** The platform timer, while one is set. */
  private timer: unknown = undefined
  /** When the platform timer fires (monotonic milliseconds). */
  private timerAt = Infinity

  constructor(private readonly clock: Clock.Clock) {}

  /** Arms the deadline of route `index` for the current fiber, then runs `effect`. */
  arm<A, E>(index: number, millis: number, effect: Effect.Effect<A, E>): Effect.Effect<A, E> {
    return Effect.withFiberRuntime((fiber) => {
      const interrupt = () => fiber.unsafeInterruptAsFork(fiber.id())
      if (this.clock === liveClock) {
        const at = millis <= maxTimerMillis ? this.now() + millis : Infinity
        this.armed = { index, at, interrupt, cancel: noop }
        if (at < this.timerAt) this.setTimer(at, millis)
        return effect
      }
      const armed: Armed = { index, at: Infinity, interrupt, cancel: noop }
      this.armed = armed
      return Effect.flatMap(
        Effect.fork(Effect.zipRight(this.clock.sleep(Duration.millis(millis)), Effect.sync(() => this.expire(armed)))),
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
    this.armed?.cancel()
    this.armed = undefined
    return true
  }

  /** Cancels the armed deadline, if any, and the platform timer. */
  disarm(): void {
    this.armed?.cancel()
    this.armed = undefined
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    this.timerAt = Infinity
  }

  /** The live clock's monotonic time in milliseconds. */
  private now(): number {
    return Number(this.clock.unsafeCurrentTimeNanos()) / 1_000_000
  }

  private setTimer(at: number, millis: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timerAt = at
    this.timer = setTimeout(this.onTimer, millis)
  }

  /** The platform timer fired: expires the armed deadline if it is due, else waits for it. */
  private readonly onTimer = (): void => {
    this.timer = undefined
    this.timerAt = Infinity
    const armed = this.armed
    if (armed === undefined || armed.at === Infinity) return
    const left = armed.at - this.now()
    if (left > 0) this.setTimer(armed.at, Math.ceil(left))
    else this.expire(armed)
  }

  /** Expires `armed` if it is still the armed deadline. */
  private expire(armed: Armed): void {
    if (this.armed !== armed) return
    this.armed = undefined
    this.expired = armed.index
    armed.interrupt()
  }
}

/** An armed deadline: its route, when it expires under the live clock, and how to act. */
interface Armed {
  readonly index: number
  readonly at: number
  readonly interrupt: () => void
  cancel: () => void
}

const noop = () => {}
