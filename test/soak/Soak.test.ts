import { assert, describe, it } from "@effect/vitest"
import { scaled } from "../support/load.js"
import * as Concurrent from "./Concurrent.js"
import * as SoakRun from "./SoakRun.js"

describe("soak", () => {
  it("a short soak: no wrong decision, no process or fiber left over", async () => {
    const report = await SoakRun.run({ durationMs: 6_000, minDispatches: 8 })
    assert.deepStrictEqual(report.failed, [], SoakRun.format(report))
    assert.isAtLeast(report.dispatches, 8, SoakRun.format(report))
    assert.isAtLeast(report.epochs, 2, SoakRun.format(report))
  }, scaled(60_000))

  it("a short concurrency soak: 256 callers through one Hooks, no wrong decision, nothing left over", async () => {
    const report = await Concurrent.run({ durationMs: 5_000 })
    assert.deepStrictEqual(report.failed, [], Concurrent.format(report))
    // every caller dispatched (how many were decided in time depends on the machine's load;
    // `failed` says so when none was)
    assert.isAtLeast(report.dispatches, report.callers, Concurrent.format(report))
  }, scaled(60_000))
})
