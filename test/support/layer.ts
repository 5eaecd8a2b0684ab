/**
 * Tests that share one layer, built once for the describe block they are declared in:
 * `@effect/vitest`'s `layer(…, { excludeTestServices: true })` without its side effect. That
 * one assigns the block's testers onto the module-wide `it` (an `Object.assign` on its
 * default API), and the suite's workers share their module graph (`isolate: false`): every
 * later file's `it.effect` then ran in the last such layer, without the test services, and
 * `TestClock.adjust` failed in files that never asked for a layer. Here the block's tests get
 * a tester of their own, on the live services, and the module-wide `it` is left as it is.
 */
import { afterAll, beforeAll, it } from "@effect/vitest"
import { Effect, Exit, Layer, Scope } from "effect"

/** The tester of the tests in a layer: `it.live`, with the layer's services provided. */
export interface LayerTester<R> {
  readonly effect: <A, E>(name: string, self: () => Effect.Effect<A, E, R>, timeout?: number) => void
}

/**
 * Builds `layer` before the current describe block's tests and closes it after them; `body`
 * declares the tests that use it.
 */
export const layerTests = <R, E>(layer: Layer.Layer<R, E>, body: (it: LayerTester<R>) => void): void => {
  const scope = Effect.runSync(Scope.make())
  const runtime = Layer.toRuntime(layer).pipe(Scope.extend(scope), Effect.orDie, Effect.cached, Effect.runSync)
  beforeAll(() => Effect.runPromise(Effect.asVoid(runtime)))
  afterAll(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  body({
    effect: (name, self, timeout) =>
      it.live(name, () => Effect.flatMap(runtime, (services) => Effect.provide(self(), services)), timeout)
  })
}
