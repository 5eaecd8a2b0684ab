import { assert, describe, it } from "@effect/vitest"
import { scaled } from "../support/load.js"
import * as SoakRun from "./SoakRun.js"

describe("soak", () => {
  it("a short soak: no wrong decision, no process or fiber left over", async () => {
    const report = await SoakRun.run({ durationMs: 6_000, minDispatches: 8 })
    assert.deepStrictEqual(report.failed, [], SoakRun.format(report))
    assert.isAtLeast(report.dispatches, 8, SoakRun.format(report))
    assert.isAtLeast(report.epochs, 2, SoakRun.format(report))
  }, scaled(60_000))
})
