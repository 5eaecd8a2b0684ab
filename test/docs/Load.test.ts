/**
 * The load factor as CONTRIBUTING.md describes it: `AHP_TEST_LOAD` raises it (never below
 * 1, never above `maxFactor`), and every allowance scaled with it grows alike, the vitest
 * timeouts of the projects' configs included, rescaled as each test file starts.
 */
import { assert, describe, it } from "@effect/vitest"
import { inject } from "vitest"
import { timeouts } from "../../vitest.shared.js"
import { loadFactor, maxFactor, scaled } from "../support/load.js"

const withLoad = <A>(value: string, run: () => A): A => {
  const before = process.env["AHP_TEST_LOAD"]
  process.env["AHP_TEST_LOAD"] = value
  try {
    return run()
  } finally {
    if (before === undefined) delete process.env["AHP_TEST_LOAD"]
    else process.env["AHP_TEST_LOAD"] = before
  }
}

describe("the load factor", () => {
  it("AHP_TEST_LOAD forces it up, bounded by maxFactor; waits and vitest timeouts scale with it", () => {
    withLoad("4", () => {
      assert.isAtLeast(loadFactor(), 4)
      assert.isAtLeast(scaled(1000), 4000)
      const { hookTimeout, testTimeout } = timeouts(30_000, 60_000)
      assert.isAtLeast(testTimeout, 120_000)
      assert.isAtLeast(hookTimeout!, 240_000)
    })
    withLoad("1000", () => assert.strictEqual(loadFactor(), maxFactor))
    withLoad("0.5", () => assert.isAtLeast(loadFactor(), 1))
    withLoad("fast", () => assert.isAtLeast(loadFactor(), 1))
  })

  it("a test file's default timeout is its project's, rescaled as the file started, never below the config's", ({ task }) => {
    const base = inject("ahpTimeouts")
    // the suites project (test/vitest.config.ts)
    assert.strictEqual(base.test, 60_000)
    assert.isAtLeast(task.timeout, base.testTimeout)
    assert.isAtLeast(task.timeout, base.test)
  })
})
