import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, FastCheck as fc, Fiber, Option } from "effect"
import * as TestClock from "effect/TestClock"
import * as TestServices from "effect/TestServices"
import { Lock } from "../src/internal/lock.js"

/** Forks a fiber holding `lock` until `release` completes; returns once it holds the lock. */
const hold = (lock: Lock) =>
  Effect.gen(function*() {
    const release = yield* Deferred.make<void>()
    const started = yield* Deferred.make<void>()
    const holder = yield* Effect.fork(
      lock.withLock(Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release)))
    )
    yield* Deferred.await(started)
    return { holder, release }
  })

describe("Lock", () => {
  it.effect("lets one holder in at a time, whatever the interleaving", () =>
    Effect.gen(function*() {
      const lock = new Lock()
      let inside = 0
      let most = 0
      const enter = (i: number) =>
        lock.withLock(Effect.gen(function*() {
          inside += 1
          most = Math.max(most, inside)
          for (let k = 0; k < i % 3; k++) yield* Effect.yieldNow()
          inside -= 1
          return i
        }))
      const results = yield* Effect.all(Array.from({ length: 20 }, (_, i) => enter(i)), { concurrency: "unbounded" })
      assert.deepStrictEqual(results, Array.from({ length: 20 }, (_, i) => i))
      assert.strictEqual(most, 1)
    }))

  it.effect("is released when the holder fails or is interrupted", () =>
    Effect.gen(function*() {
      const lock = new Lock()
      const failed = yield* Effect.exit(lock.withLock(Effect.fail("boom")))
      assert.deepStrictEqual(failed, Exit.fail("boom"))
      const started = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(
        lock.withLock(Effect.zipRight(Deferred.succeed(started, undefined), Effect.never))
      )
      yield* Deferred.await(started)
      yield* Fiber.interrupt(holder)
      assert.strictEqual(yield* lock.withLock(Effect.succeed("free")), "free")
    }))

  it.effect("runs the holder's onFailure when it fails or is interrupted, before the next holder; never on success", () =>
    Effect.gen(function*() {
      const lock = new Lock()
      const log: Array<string> = []
      const undo = (name: string) => () => void log.push(`undo ${name}`)
      yield* lock.withLock(Effect.sync(() => void log.push("ok")), undo("ok"))
      yield* Effect.exit(lock.withLock(Effect.fail("boom"), undo("failed")))
      const started = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(
        lock.withLock(Effect.zipRight(Deferred.succeed(started, undefined), Effect.never), undo("interrupted"))
      )
      yield* Deferred.await(started)
      const next = yield* Effect.fork(lock.withLock(Effect.sync(() => void log.push("next"))))
      yield* Fiber.interrupt(holder)
      yield* Fiber.join(next)
      assert.deepStrictEqual(log, ["ok", "undo failed", "undo interrupted", "next"])
    }))

  it.effect("a waiter interrupted while waiting leaves the others able to enter", () =>
    Effect.gen(function*() {
      const lock = new Lock()
      const { holder, release } = yield* hold(lock)
      const quitter = yield* Effect.fork(lock.withLock(Effect.succeed("quitter")))
      const patient = yield* Effect.fork(lock.withLock(Effect.succeed("patient")))
      yield* Effect.yieldNow()
      yield* Fiber.interrupt(quitter)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      assert.strictEqual(yield* Fiber.join(patient), "patient")
      assert.strictEqual(yield* lock.withLock(Effect.succeed("after")), "after")
    }))

  it.effect("a holder's body can be interrupted, and the lock is free afterwards", () =>
    Effect.gen(function*() {
      const lock = new Lock()
      const fiber = yield* Effect.fork(lock.withLock(Effect.never))
      yield* Effect.yieldNow()
      const exit = yield* Fiber.interrupt(fiber)
      assert.isTrue(Exit.isInterrupted(exit))
      assert.strictEqual(yield* lock.withLock(Effect.succeed(1)), 1)
    }))
})

describe("Lock is first in, first out", () => {
  /** Forks `withLock(record i)` for each i in turn, each one queued before the next is forked. */
  const queue = (lock: Lock, count: number, entered: Array<number>) =>
    Effect.forEach(Array.from({ length: count }, (_, i) => i), (i) =>
      Effect.gen(function*() {
        const queued = yield* Deferred.make<void>()
        const fiber = yield* Effect.fork(
          Effect.zipRight(Deferred.succeed(queued, undefined), lock.withLock(Effect.sync(() => entered.push(i))))
        )
        yield* Deferred.await(queued)
        return fiber
      }))

  it.effect("waiters enter in the order they queued", () =>
    Effect.gen(function*() {
      const lock = new Lock()
      const { holder, release } = yield* hold(lock)
      const entered: Array<number> = []
      const fibers = yield* queue(lock, 30, entered)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.joinAll(fibers)
      assert.deepStrictEqual(entered, Array.from({ length: 30 }, (_, i) => i))
    }))

  it.effect("a release hands the lock to the first waiter: the releasing fiber cannot take it straight back", () =>
    Effect.gen(function*() {
      const lock = new Lock()
      const order: Array<string> = []
      const release = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(Effect.gen(function*() {
        yield* lock.withLock(Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release)))
        yield* lock.withLock(Effect.sync(() => order.push("holder again")))
      }))
      yield* Deferred.await(started)
      const waiter = yield* Effect.fork(lock.withLock(Effect.sync(() => order.push("waiter"))))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.join(waiter)
      assert.deepStrictEqual(order, ["waiter", "holder again"])
    }))

  it.effect("a waiter handed the lock but interrupted before it ran passes its turn on", () =>
    Effect.gen(function*() {
      const lock = new Lock()
      const release = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const entered: Array<string> = []
      let first: Fiber.RuntimeFiber<number> | undefined
      const holder = yield* Effect.fork(Effect.gen(function*() {
        yield* lock.withLock(Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release)))
        // The lock was just handed to `first`, which has not run yet: interrupt it now.
        first!.unsafeInterruptAsFork(first!.id())
      }))
      yield* Deferred.await(started)
      first = yield* Effect.fork(lock.withLock(Effect.sync(() => entered.push("first"))))
      yield* Effect.yieldNow()
      const second = yield* Effect.fork(lock.withLock(Effect.sync(() => entered.push("second"))))
      yield* Effect.yieldNow()
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(holder)
      yield* Fiber.await(first)
      yield* Fiber.join(second)
      assert.strictEqual(entered.at(-1), "second")
      assert.strictEqual(yield* lock.withLock(Effect.succeed("free")), "free")
    }))

  it.effect.prop(
    "many contending fibers, some interrupted while they wait: one holder at a time, the others in queue order (a newcomer last), the lock free at the end",
    [fc.array(fc.boolean(), { minLength: 1, maxLength: 60 }), fc.nat({ max: 3 })],
    ([interrupted, yields]) =>
      Effect.gen(function*() {
        const lock = new Lock()
        let inside = 0
        let most = 0
        const entered: Array<number> = []
        const release = yield* Deferred.make<void>()
        const started = yield* Deferred.make<void>()
        const newcomer = interrupted.length
        // The holder asks again as soon as it released: it arrives last, so it enters last.
        const holder = yield* Effect.fork(Effect.zipRight(
          lock.withLock(Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release))),
          lock.withLock(Effect.sync(() => entered.push(newcomer)))
        ))
        yield* Deferred.await(started)
        const fibers = yield* Effect.forEach(interrupted, (_, i) =>
          Effect.gen(function*() {
            const queued = yield* Deferred.make<void>()
            const body = Effect.gen(function*() {
              inside += 1
              most = Math.max(most, inside)
              entered.push(i)
              for (let k = 0; k < (i + yields) % 3; k++) yield* Effect.yieldNow()
            }).pipe(Effect.ensuring(Effect.sync(() => inside -= 1)))
            const fiber = yield* Effect.fork(Effect.zipRight(Deferred.succeed(queued, undefined), lock.withLock(body)))
            yield* Deferred.await(queued)
            return fiber
          }))
        // Interruptions land while the holder still holds the lock, and also as it goes round.
        const early = interrupted.flatMap((quit, i) => (quit && i % 2 === 0 ? [fibers[i]!] : []))
        const late = interrupted.flatMap((quit, i) => (quit && i % 2 === 1 ? [fibers[i]!] : []))
        yield* Effect.forEach(early, (f) => Fiber.interrupt(f))
        yield* Deferred.succeed(release, undefined)
        for (let k = 0; k < yields; k++) yield* Effect.yieldNow()
        yield* Effect.forEach(late, (f) => Fiber.interruptFork(f))
        yield* Fiber.join(holder)
        const exits = yield* Effect.forEach(fibers, Fiber.await)
        const survivors = interrupted.flatMap((quit, i) => (quit ? [] : [i]))
        survivors.forEach((i) => assert.isTrue(Exit.isSuccess(exits[i]!), `fiber ${i} did not complete`))
        // Every fiber that entered did so in queue order; every survivor entered.
        assert.deepStrictEqual(entered, [...entered].sort((a, b) => a - b))
        assert.strictEqual(entered.at(-1), newcomer)
        survivors.forEach((i) => assert.include(entered, i))
        assert.isAtMost(most, 1)
        assert.strictEqual(yield* lock.withLock(Effect.succeed("free")), "free")
      }),
    { fastCheck: { numRuns: 60 } }
  )
})

/** One fiber of a contention script: when it asks, how long it holds, how it ends, and whether it is interrupted. */
interface Contender {
  readonly arrives: number
  readonly holds: number
  readonly fails: boolean
  readonly interruptAt: number | undefined
}

const contender: fc.Arbitrary<Contender> = fc.record({
  arrives: fc.nat({ max: 6 }),
  holds: fc.nat({ max: 4 }),
  fails: fc.boolean(),
  interruptAt: fc.option(fc.nat({ max: 8 }), { nil: undefined })
})

/** What a run of a script shows, for comparing two locks: the outcomes and the invariants. */
interface Observed {
  readonly exits: ReadonlyArray<"ok" | "failed" | "interrupted" | "pending">
  readonly entered: ReadonlyArray<number>
  readonly most: number
  readonly freeAfter: boolean
}

/** Runs `script` through `withLock`, each step one millisecond of the test clock. */
const run = (
  withLock: <A, E>(self: Effect.Effect<A, E>) => Effect.Effect<A, E>,
  script: ReadonlyArray<Contender>
): Effect.Effect<Observed> =>
  Effect.gen(function*() {
    let inside = 0
    let most = 0
    const entered: Array<number> = []
    const fibers = yield* Effect.forEach(script, (c, i) =>
      Effect.fork(Effect.zipRight(
        Effect.sleep(c.arrives),
        withLock(
          Effect.gen(function*() {
            inside += 1
            most = Math.max(most, inside)
            entered.push(i)
            yield* Effect.sleep(c.holds)
            if (c.fails) return yield* Effect.fail(i)
            return i
          }).pipe(Effect.ensuring(Effect.sync(() => inside -= 1)))
        )
      )))
    for (let step = 0; step <= 9; step++) {
      yield* Effect.forEach(script, (c, i) => c.interruptAt === step ? Fiber.interruptFork(fibers[i]!) : Effect.void)
      yield* TestClock.adjust(1)
    }
    yield* TestClock.adjust(script.length * 5)
    // Awaited for at most a few seconds of real time: a fiber still waiting once the clock
    // is past every hold is a finding ("pending"), shrunk and shown by the property, not a
    // test that hangs until its timeout without saying which script did it.
    const settled = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) =>
      TestServices.provideLive(Effect.timeoutOption(Fiber.await(fiber), Duration.seconds(5)))
    const exits = yield* Effect.forEach(fibers, (fiber) =>
      Effect.map(settled(fiber), (polled) =>
        Option.match(polled, {
          onNone: () => "pending" as const,
          onSome: (exit) =>
            Exit.isSuccess(exit) ? "ok" as const : Exit.isInterrupted(exit) ? "interrupted" as const : "failed" as const
        })))
    const free = yield* Effect.fork(withLock(Effect.succeed(true)))
    yield* TestClock.adjust(1)
    const freeAfter = Option.exists(yield* settled(free), Exit.isSuccess)
    yield* Effect.forEach(fibers, (fiber) => Fiber.interruptFork(fiber))
    yield* Fiber.interruptFork(free)
    return { exits, entered, most, freeAfter }
  })

describe("Lock against Semaphore.withPermits(1), its reference", () => {
  it.effect.prop(
    "under random arrivals, holds, failures and interruptions both give every fiber the same outcome it can have, one holder at a time, and end free",
    [fc.array(contender, { minLength: 1, maxLength: 12 })],
    ([script]) =>
      Effect.gen(function*() {
        const lock = new Lock()
        const semaphore = yield* Effect.makeSemaphore(1)
        const fast = yield* run(lock.withLock, script)
        const reference = yield* run(semaphore.withPermits(1), script)
        for (const observed of [fast, reference]) {
          assert.isAtMost(observed.most, 1)
          assert.isTrue(observed.freeAfter)
        }
        script.forEach((c, i) => {
          // A fiber nobody interrupts ends the same way under both; an interrupted one may
          // have finished first under one lock and not the other, so it is either.
          if (c.interruptAt === undefined) {
            assert.strictEqual(fast.exits[i], reference.exits[i], `fiber ${i}`)
            assert.strictEqual(fast.exits[i], c.fails ? "failed" : "ok", `fiber ${i}`)
          } else {
            assert.oneOf(fast.exits[i], ["interrupted", c.fails ? "failed" : "ok"], `fiber ${i}`)
          }
          // Every fiber that ended normally entered exactly once, under both locks.
          for (const observed of [fast, reference]) {
            const times = observed.entered.filter((e) => e === i).length
            assert.strictEqual(times, observed.exits[i] === "interrupted" ? Math.min(times, 1) : 1, `fiber ${i}`)
          }
        })
      }),
    { fastCheck: { numRuns: 40 } }
  )
})
