import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, Fiber } from "effect"
import { Lock } from "../src/internal/lock.js"

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
      const holder = yield* Effect.fork(lock.withLock(Effect.zipRight(Deferred.succeed(started, undefined), Effect.never)))
      yield* Deferred.await(started)
      yield* Fiber.interrupt(holder)
      assert.strictEqual(yield* lock.withLock(Effect.succeed("free")), "free")
    }))

  it.effect("a waiter interrupted while waiting leaves the others able to enter", () =>
    Effect.gen(function*() {
      const lock = new Lock()
      const release = yield* Deferred.make<void>()
      const started = yield* Deferred.make<void>()
      const holder = yield* Effect.fork(lock.withLock(Effect.zipRight(Deferred.succeed(started, undefined), Deferred.await(release))))
      yield* Deferred.await(started)
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
