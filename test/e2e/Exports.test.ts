import { assert, describe, it } from "@effect/vitest"
import { syncExports } from "../../scripts/exports.mjs"

describe("published exports", () => {
  it("every library package publishes exactly its public modules (node scripts/exports.mjs --write)", () => {
    assert.deepStrictEqual(
      syncExports(false),
      [],
      "run `node scripts/exports.mjs --write` after adding or removing a module"
    )
  })
})
