/**
 * Per-route deadlines for the chain's fiber, cheaper than `Effect.timeoutFail` per route
 * (which forks the exchange and a sleeper and races them: about 18 µs per route against
 * half a microsecond here, measured on the project VM).
 *
 * At most one deadline is armed at a time: it is armed when an exchange starts and then
 * either settled by the exchange's outcome, or it expires first — the index of its route is
 * recorded, the fiber that armed it is interrupted and the caller waiting on that fiber is
 * woken at once (it does not wait for the interrupted exchange to finish retiring its I/O).
 * Settling and expiring are each synchronous, so exactly one of them happens. A deadline
 * is absolute: settling checks the clock, so an exchange whose response was still being
 * parsed, validated or staged when its deadline passed — while no timer could fire — is
 * not settled but expires; `due` lets long synchronous work stop early.
 *
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
import type * as Fiber from "effect/Fiber"

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
  /** Set once the caller stopped waiting (interrupted): nothing more may be settled. */
  private abandoned = false
  private armed: Armed | undefined = undefined
  /** Wakes the caller waiting on the fiber, while it waits. */
  private wake: (() => void) | undefined = undefined
  /** The platform timer, while one is set. */
  private timer: unknown = undefined
  /** When the platform timer fires (monotonic milliseconds). */
  private timerAt = Infinity

  constructor(private readonly clock: Clock.Clock) {}

  /** Arms the deadline of route `index` for the current fiber, then runs `effect`. */
  arm<A, E>(index: number, millis: number, effect: Effect.Effect<A, E>): Effect.Effect<A, E> {
    return Effect.withFiberRuntime((fiber) => {
      const interrupt = () => fiber.unsafeInterruptAsFork(fiber.id())
      const at = millis <= maxTimerMillis ? this.now() + millis : Infinity
      const armed: Armed = { index, at, interrupt, cancel: noop }
      this.armed = armed
      if (this.clock === liveClock) {
        if (at < this.timerAt) this.setTimer(at, millis)
        return effect
      }
      return Effect.flatMap(
        Effect.fork(
          Effect.zipRight(this.clock.sleep(Duration.millis(millis)), Effect.sync(() => this.expire(armed, true)))
        ),
        (sleeper) => {
          armed.cancel = () => sleeper.unsafeInterruptAsFork(fiber.id())
          return effect
        }
      )
    })
  }

  /**
   * Whether the armed deadline can no longer be met: it expired, the caller stopped
   * waiting, or the clock is past it (then it expires now, even if no timer fired yet).
   */
  readonly due = (): boolean => {
    if (this.expired !== undefined || this.abandoned) return true
    const armed = this.armed
    if (armed === undefined || this.now() <= armed.at) return false
    this.expire(armed, false)
    return true
  }

  /** Settles the armed deadline: whether the exchange finished before it expired. */
  settle(): boolean {
    if (this.due()) return false
    this.armed?.cancel()
    this.armed = undefined
    return true
  }

  /**
   * Waits until `fiber` ends or the armed deadline expires, whichever comes first: an
   * expired exchange is interrupted but not awaited.
   *
   * No canceler: a canceler makes `Effect.async` wrap the wait in an `onInterrupt` (a mask,
   * a flag round trip and a match, on every call). A waiter interrupted instead leaves its
   * observer on `fiber`, which the interrupted caller then retires: the observer goes with
   * the fiber's end, and its late resume is ignored (an async wait is resumed once).
   */
  wait(fiber: Fiber.RuntimeFiber<void>): Effect.Effect<void> {
    return Effect.async<void>((resume) => {
      const done = () => resume(Effect.void)
      this.wake = done
      fiber.addObserver(done)
    })
  }

  /** The caller stopped waiting: nothing is settled any more; cancels the deadline and the timer. */
  abandon(): void {
    this.abandoned = true
    this.disarm()
  }

  /** Cancels the armed deadline, if any, and the platform timer. */
  disarm(): void {
    this.wake = undefined
    this.armed?.cancel()
    this.armed = undefined
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    this.timerAt = Infinity
  }

  /** The clock's time in milliseconds (monotonic under the live clock). */
  now(): number {
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
    else this.expire(armed, true)
  }

  /**
   * Expires `armed` if it is still the armed deadline. When its timer fired, its fiber is
   * interrupted and the caller woken at once; when the fiber found it due itself, the
   * fiber ends without publishing and its end wakes the caller.
   */
  private expire(armed: Armed, interrupt: boolean): void {
    if (this.armed !== armed) return
    this.armed = undefined
    this.expired = armed.index
    if (interrupt) {
      armed.interrupt()
      this.wake?.()
    } else {
      armed.cancel()
    }
  }
}

/** An armed deadline: its route, when it expires (by the clock), and how to act. */
interface Armed {
  readonly index: number
  readonly at: number
  readonly interrupt: () => void
  cancel: () => void
}

const noop = () => {}
