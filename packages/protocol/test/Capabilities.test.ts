import { Capabilities, type HookEffect } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"

const caps: Capabilities.Capabilities = {
  effects: ["deny", "modify", "flow", "inject"],
  modify: { input: { replace: false, merge: true } },
  flow: { operations: ["stop", "continue"], remainingContinuations: 0, continuationCount: 2 },
  inject: { context: { append: true, deliverAt: ["next_turn"] } }
}

const verdict = (effect: HookEffect.HookEffect, c = caps) => {
  const problem = Capabilities.grantProblem(c, effect)
  return problem === undefined ? undefined : [problem.code, problem.path]
}

describe("Capabilities.grantProblem: the one capability check", () => {
  it("names the code and the member at fault", () => {
    assert.deepStrictEqual(verdict({ type: "deny", reason: "no" }), undefined)
    assert.deepStrictEqual(verdict({ type: "allow" }), ["ungranted-effect", "/type"])
    assert.deepStrictEqual(verdict({ type: "modify", target: "output", operation: "merge", value: [] }), [
      "ungranted-target",
      "/target"
    ])
    assert.deepStrictEqual(verdict({ type: "modify", target: "input", operation: "replace", value: {} }), [
      "ungranted-operation",
      "/operation"
    ])
    assert.deepStrictEqual(verdict({ type: "modify", target: "input", operation: "merge", value: {} }), undefined)
    assert.deepStrictEqual(verdict({ type: "flow", operation: "stop", reason: "done" }), undefined)
    assert.deepStrictEqual(verdict({ type: "flow", operation: "continue" }), ["allowance-exhausted", ""])
    assert.deepStrictEqual(
      verdict({ type: "flow", operation: "continue" }, { ...caps, flow: { operations: ["stop"] } }),
      ["ungranted-operation", "/operation"]
    )
    assert.deepStrictEqual(
      verdict({ type: "flow", operation: "continue" }, { ...caps, flow: { ...caps.flow!, remainingContinuations: 1 } }),
      undefined
    )
    assert.deepStrictEqual(
      verdict({ type: "inject", target: "context", operation: "append", deliverAt: "now", value: [] }),
      ["ungranted-operation", "/deliverAt"]
    )
    assert.deepStrictEqual(
      verdict({ type: "inject", target: "context", operation: "append", deliverAt: "next_turn", value: [] }),
      undefined
    )
  })

  it("messages never quote a value", () => {
    const problem = Capabilities.grantProblem(caps, {
      type: "modify",
      target: "input",
      operation: "replace",
      value: { secret: "hunter2" }
    })
    assert.notInclude(problem!.message, "hunter2")
    assert.isFalse(Capabilities.isGranted(caps, { type: "ask" }))
    assert.isTrue(Capabilities.isGranted(caps, { type: "deny", reason: "no" }))
  })
})
