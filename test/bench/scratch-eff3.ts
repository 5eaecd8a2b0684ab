import { Effect, Duration, Fiber, Exit, FiberId } from "effect"
const bench = async (name: string, eff: Effect.Effect<unknown, unknown>, n = 20000) => {
  const loop = Effect.forEach(Array.from({ length: n }), () => eff, { discard: true })
  await Effect.runPromise(loop)
  const t = performance.now()
  await Effect.runPromise(loop)
  console.log(name.padEnd(30), ((performance.now() - t) * 1000 / n).toFixed(2), "µs")
}
const work = Effect.sync(() => 1)
const deadline = <A, E, R, E2>(self: Effect.Effect<A, E, R>, ms: number, onTimeout: () => E2) =>
  Effect.flatMap(Effect.fork(self), (fiber) =>
    Effect.async<A, E | E2>((resume) => {
      const timer = setTimeout(() => {
        resume(Effect.zipRight(Fiber.interrupt(fiber), Effect.fail(onTimeout())))
      }, ms)
      fiber.addObserver((exit) => {
        clearTimeout(timer)
        resume(exit)
      })
      return Effect.sync(() => clearTimeout(timer)).pipe(Effect.zipRight(Fiber.interrupt(fiber)))
    }))
for (let k = 0; k < 2; k++) {
await bench("sync", work)
await bench("timeoutFail", Effect.timeoutFail(work, { duration: Duration.millis(1000), onTimeout: () => "x" }))
await bench("fork+join", Effect.flatMap(Effect.fork(work), Fiber.join))
await bench("deadline custom", deadline(work, 1000, () => "x"))
await bench("setTimeout+clear in sync", Effect.sync(() => clearTimeout(setTimeout(() => {}, 1000))))
await bench("async immediate", Effect.async<number>((resume) => resume(Effect.succeed(1))))
await bench("yieldNow", Effect.yieldNow())
}
