import { Arbitraries, Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { lazy } from "../src/internal/lazyArbitrary.js"

const pairs = FastCheck.array(FastCheck.tuple(FastCheck.string(), FastCheck.integer()), { maxLength: 6 })

describe("lazy arbitraries", () => {
  it("are built once, on first use", () => {
    let builds = 0
    const arbitrary = lazy(() => {
      builds++
      return pairs
    })
    assert.strictEqual(builds, 0)
    FastCheck.sample(arbitrary, 5)
    FastCheck.sample(arbitrary, 5)
    assert.strictEqual(builds, 1)
  })

  it("generate and shrink exactly as the arbitrary they build", () => {
    const seed = 20261202
    assert.deepStrictEqual(
      FastCheck.sample(lazy(() => pairs), { seed, numRuns: 50 }),
      FastCheck.sample(pairs, { seed, numRuns: 50 })
    )
    // a property that fails: the counterexample is shrunk through the lazy arbitrary alike
    const failing = (arbitrary: FastCheck.Arbitrary<Array<[string, number]>>) =>
      FastCheck.check(FastCheck.property(arbitrary, (xs) => xs.every(([, n]) => n < 100)), { seed })
    const direct = failing(pairs)
    const throughLazy = failing(lazy(() => pairs))
    assert.isTrue(direct.failed)
    assert.deepStrictEqual(throughLazy.counterexample, direct.counterexample)
    assert.deepStrictEqual(direct.counterexample, [[["", 100]]])
    assert.strictEqual(throughLazy.numShrinks, direct.numShrinks)
  })

  it("back the module-level arbitraries: valid values", () => {
    for (const value of FastCheck.sample(Json.arbitrary, 20)) assert.isTrue(Json.isJsonValue(value))
    assert.lengthOf(FastCheck.sample(Arbitraries.registration, 3), 3)
    for (const event of FastCheck.sample(Arbitraries.interceptableEvent, 5)) assert.isString(event.type)
  })
})
