/**
 * The per-route lines of a real boundary call: every intercept route in order (failed and
 * how its failure policy went, answered and accepted, or not called), every observation,
 * the settled decision; logged at `debug` only, and without a failure's detail there.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, LogLevel } from "effect"
import * as RouteTrace from "../src/RouteTrace.js"
import { dispatched } from "./TestDispatch.js"

describe("RouteTrace", () => {
  it.scoped("routeLines: each route in order, the observation, with the failure's detail when asked", () =>
    Effect.gen(function*() {
      const call = yield* dispatched(LogLevel.Info)
      const lines = RouteTrace.routeLines(call.routes, call.result, call.exchanges, { details: true })
      assert.strictEqual(lines.length, 3, lines.join("\n"))
      assert.strictEqual(
        lines[0],
        "  → com.example.gone/0 (intercept, fail-open, 5000 ms, stdio): nothing sent; transport failure unsupported " +
          "(no in-process backend is served as com.example.gone); fail-open: recorded, the chain goes on"
      )
      assert.match(
        lines[1]!,
        /^ {2}→ com\.example\.denier\/0 \(intercept, fail-closed, 5000 ms, stdio\): answered in \d+ ms: deny "no rm -rf"; accepted$/
      )
      assert.match(lines[2]!, /^ {2}◦ com\.example\.watcher\/0 \(observe\): delivered/)
      const bare = RouteTrace.routeLines(call.routes, call.result, call.exchanges, { details: false })
      assert.strictEqual(
        bare[0],
        "  → com.example.gone/0 (intercept, fail-open, 5000 ms, stdio): nothing sent; transport failure unsupported; " +
          "fail-open: recorded, the chain goes on"
      )
    }))

  it.scoped("decisionLine: the permission, the denial and who made it", () =>
    Effect.gen(function*() {
      const call = yield* dispatched(LogLevel.Info)
      assert.strictEqual(RouteTrace.decisionLine(call.result), "deny, \"no rm -rf\" (by com.example.denier/0)")
    }))

  it.scoped("logged writes the trace at debug, without failure details, and nothing above debug", () =>
    Effect.gen(function*() {
      const debug = yield* dispatched(LogLevel.Debug)
      const traced = debug.logged.filter((line) => line.startsWith("tool.before") || line.startsWith("  "))
      assert.match(traced[0]!, /^tool\.before: Bash: rm -rf \/ \(2 intercept, 1 observe\)$/)
      assert.deepStrictEqual(
        traced.slice(1),
        [
          ...RouteTrace.routeLines(debug.routes, debug.result, debug.exchanges, { details: false }),
          "  ⇒ deny, \"no rm -rf\" (by com.example.denier/0)"
        ]
      )
      const info = yield* dispatched(LogLevel.Info)
      assert.deepStrictEqual(info.logged.filter((line) => line.startsWith("tool.before")), [])
    }))
})
