import { Effect, Duration, Fiber, Exit, Clock, Either } from "effect"
const bench = async (name: string, eff: Effect.Effect<unknown, unknown>, n = 20000) => {
  const loop = Effect.forEach(Array.from({ length: n }), () => eff, { discard: true })
  await Effect.runPromise(loop)
  const t = performance.now()
  await Effect.runPromise(loop)
  console.log(name.padEnd(30), ((performance.now() - t) * 1000 / n).toFixed(2), "µs")
}
const work = Effect.sync(() => 1)
// two forks, hand-written
const deadline2 = <A, E, R, E2>(self: Effect.Effect<A, E, R>, d: Duration.Duration, onTimeout: () => E2) =>
  Effect.uninterruptibleMask((restore) => Effect.gen(function*() {
    const child = yield* Effect.fork(restore(self))
    const timer = yield* Effect.fork(Effect.flatMap(Effect.sleep(d), () => Fiber.interrupt(child)))
    const exit = yield* restore(Fiber.await(child)).pipe(Effect.onInterrupt(() => Effect.zipRight(Fiber.interrupt(timer), Fiber.interrupt(child))))
    yield* Fiber.interrupt(timer)
    return exit
  }))
const eitherTimeout = Effect.either(Effect.timeoutFail(work, { duration: Duration.millis(1000), onTimeout: () => "x" }))
for (let k = 0; k < 2; k++) {
await bench("timeoutFail", Effect.timeoutFail(work, { duration: Duration.millis(1000), onTimeout: () => "x" }))
await bench("timeout", Effect.timeout(work, Duration.millis(1000)))
await bench("2 forks custom", deadline2(work, Duration.millis(1000), () => "x"))
await bench("fork+await", Effect.flatMap(Effect.fork(work), Fiber.await))
await bench("sleep fork+interrupt", Effect.flatMap(Effect.fork(Effect.sleep(1000)), Fiber.interrupt))
}
