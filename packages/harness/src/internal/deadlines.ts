/**
 * Per-route deadlines for the chain's fiber, cheaper than `Effect.timeoutFail` per route,
 * which forks the exchange and a sleeper and races them (docs/performance.md).
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
 * Under the default live clock one platform timer serves every deadline armed anywhere in
 * the process (`Shared`): it is set when a deadline is armed earlier than the timer fires,
 * left running when a deadline settles, and when it fires it expires the armed deadlines
 * that are due and is set again for the earliest one left. While no deadline is armed it
 * does not keep the process alive. A platform timer per call (set and cleared, about a
 * microsecond and a timer object each) cost more than the rest of the deadline; now a call
 * pays for two set operations, and, when no other call has one armed, for holding the timer
 * and letting it go (`ref`, `unref`). Under any other clock (a `TestClock`) a fiber sleeps on that
 * clock, so tests control time as usual.
 *
 * @internal
 */
import type * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"

// Timers exist on every JavaScript platform; the core compiles without platform typings.
// Node's timer handle can stop keeping the process alive (`unref`) and start again (`ref`).
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
  /** The fiber the deadlines are armed in (an expired deadline interrupts it). */
  private fiber: Fiber.RuntimeFiber<void> | undefined = undefined

  constructor(private readonly clock: Clock.Clock) {}

  /**
   * The fiber that runs the routes, known as soon as it is started: before any deadline it
   * arms can expire (no timer fires while it is being started).
   */
  runningIn(fiber: Fiber.RuntimeFiber<void>): void {
    this.fiber = fiber
  }

  /**
   * Arms the deadline of route `index` for the fiber the deadlines run in, then runs
   * `effect` (in that fiber). Under the live clock that is synchronous: no step of its own.
   */
  arm<A, E>(index: number, millis: number, effect: Effect.Effect<A, E>): Effect.Effect<A, E> {
    const at = millis <= maxTimerMillis ? this.now() + millis : Infinity
    const armed: Armed = { index, at, cancel: noop }
    if (this.clock === liveClock) {
      this.armed = armed
      if (at !== Infinity) shared.add(this, at)
      return effect
    }
    return Effect.withFiberRuntime((fiber) => {
      this.armed = armed
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
    shared.delete(this)
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

  /** Cancels the armed deadline, if any. */
  disarm(): void {
    this.wake = undefined
    this.armed?.cancel()
    this.armed = undefined
    shared.delete(this)
  }

  /** The clock's time in milliseconds (monotonic under the live clock). */
  now(): number {
    return Number(this.clock.unsafeCurrentTimeNanos()) / 1_000_000
  }

  /**
   * The shared timer fired: expires the armed deadline if it is due (an interruption, and
   * the caller woken); else the time it is still armed until (`Infinity`: nothing armed).
   * @internal
   */
  fire(time: number): number {
    const armed = this.armed
    if (armed === undefined) return Infinity
    if (armed.at > time) return armed.at
    this.expire(armed, true)
    return Infinity
  }

  /**
   * Expires `armed` if it is still the armed deadline. When its timer fired, its fiber is
   * interrupted and the caller woken at once; when the fiber found it due itself, the
   * fiber ends without publishing and its end wakes the caller.
   */
  private expire(armed: Armed, interrupt: boolean): void {
    if (this.armed !== armed) return
    this.armed = undefined
    shared.delete(this)
    this.expired = armed.index
    if (interrupt) {
      const fiber = this.fiber
      fiber?.unsafeInterruptAsFork(fiber.id())
      this.wake?.()
    } else {
      armed.cancel()
    }
  }
}

/** An armed deadline: its route, when it expires (by the clock), and how to cancel its sleeper (a `TestClock`'s). */
interface Armed {
  readonly index: number
  readonly at: number
  cancel: () => void
}

const noop = () => {}

/** The platform timer all live-clock deadlines share, and the deadlines armed on it. */
class Shared {
  /** The deadlines with an armed deadline (under the live clock). */
  private readonly armed = new Set<Deadlines>()
  /** The platform timer, while one is set. */
  private timer: Handle | undefined = undefined
  /** When the platform timer fires (monotonic milliseconds). */
  private timerAt = Infinity
  /** Whether the timer keeps the process alive (only while a deadline is armed). */
  private held = false

  /** `deadlines` armed a deadline due `at`. */
  add(deadlines: Deadlines, at: number): void {
    this.armed.add(deadlines)
    if (at < this.timerAt) this.set(at)
    else if (!this.held) this.hold(true)
  }

  /** `deadlines` has no armed deadline any more; the timer is left running, but no longer holds the process. */
  delete(deadlines: Deadlines): void {
    if (this.armed.delete(deadlines) && this.armed.size === 0 && this.held) this.hold(false)
  }

  private set(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timerAt = at
    this.held = true
    this.timer = setTimeout(this.fire, Math.max(0, Math.ceil(at - now()))) as Handle
  }

  private hold(held: boolean): void {
    this.held = held
    const timer = this.timer
    if (timer === undefined) return
    if (held) timer.ref?.()
    else timer.unref?.()
  }

  /** Expires every armed deadline that is due, and sets the timer for the earliest one left. */
  private readonly fire = (): void => {
    this.timer = undefined
    this.timerAt = Infinity
    this.held = false
    const at = now()
    let next = Infinity
    // An expired deadline leaves the set as it is visited (its interruption runs later).
    for (const deadlines of this.armed) {
      const armedUntil = deadlines.fire(at)
      if (armedUntil === Infinity) this.armed.delete(deadlines)
      else if (armedUntil < next) next = armedUntil
    }
    if (next !== Infinity) this.set(next)
  }
}

/** A platform timer handle: Node's can stop and start keeping the process alive. */
interface Handle {
  readonly ref?: () => void
  readonly unref?: () => void
}

/** The live clock's time in milliseconds (monotonic). */
const now = () => Number(liveClock.unsafeCurrentTimeNanos()) / 1_000_000

const shared = new Shared()
