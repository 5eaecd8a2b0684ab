import { Common } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, FastCheck, Schema } from "effect"

describe("Common", () => {
  it("Sha256's arbitrary draws varied digests that the schema accepts", () => {
    const digests = FastCheck.sample(Arbitrary.make(Common.Sha256), { seed: 20261202, numRuns: 200 })
    for (const digest of digests) assert.isTrue(Schema.is(Common.Sha256)(digest), digest)
    assert.isAbove(new Set(digests).size, 190, "not a handful of values drawn again and again")
    assert.isFalse(Schema.is(Common.Sha256)("A".repeat(64)), "the schema itself still checks the pattern")
  })
})
