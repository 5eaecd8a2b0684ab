/**
 * The hook's readable trace of a real boundary call: the host event and the AHP event it
 * became with the routes it has, each route, and the decision with the host's answer.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, LogLevel } from "effect"
import * as HookTrace from "../src/HookTrace.js"
import * as RouteTrace from "../src/RouteTrace.js"
import { dispatched } from "./TestDispatch.js"

describe("HookTrace", () => {
  it.scoped("lines: the event, each route with its details, the decision and the answer", () =>
    Effect.gen(function*() {
      const call = yield* dispatched(LogLevel.Info)
      const lines = HookTrace.lines({ ...call, mapped: call.call })
      assert.strictEqual(
        lines[0],
        `claude-code PreToolUse → tool.before ${String(call.call.input.id)}: Bash: rm -rf / (2 intercept, 1 observe)`
      )
      assert.deepStrictEqual(
        lines.slice(1, -1),
        RouteTrace.routeLines(call.routes, call.result, call.exchanges, { details: true })
      )
      assert.strictEqual(
        lines.at(-1),
        `  ⇒ deny, "no rm -rf" (by com.example.denier/0) → ${HookTrace.answerLine(call.answer)}`
      )
      assert.include(lines.at(-1)!, "\"permissionDecision\":\"deny\"")
    }))

  it("answerLine: the answer clipped to one line; an empty stdout is no opinion", () => {
    assert.strictEqual(HookTrace.answerLine({ stdout: "", stderr: "", exitCode: 0 }), "(empty stdout: no opinion)")
    assert.strictEqual(HookTrace.answerLine({ stdout: "{}\n", stderr: "", exitCode: 0 }), "{}")
    const long = `{"a":"${"x".repeat(300)}"}`
    assert.strictEqual(HookTrace.answerLine({ stdout: long, stderr: "", exitCode: 0 }).length, 240)
  })
})
