import { Backend, InProcess } from "@effect-ahp/backend"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Ref } from "effect"
import { audit, AuditLog, guard, Policy } from "./TestBackend.js"
import * as M from "./TestMessages.js"

describe("InProcess", () => {
  it.scoped("answers requests and receives notifications as plain Effect functions", () =>
    Effect.gen(function*() {
      const log = yield* Ref.make<ReadonlyArray<string>>([])
      const backend = yield* InProcess.fromLayer(
        Backend.make(guard.pipe(Layer.provide(Policy.layer(["rm -rf"]))), audit).pipe(
          Layer.provide(Layer.succeed(AuditLog, log))
        )
      )
      const response = yield* backend.request(M.intercept(M.toolBeforeEvent("evt_1", { command: "rm -rf /" })))
      assert.deepStrictEqual(response, {
        jsonrpc: "2.0",
        id: "evt_1",
        result: { protocolVersion: "draft", effects: [{ type: "deny", reason: "Bash: rm -rf is not allowed" }] }
      })
      yield* backend.notify(M.observe(M.toolAfterEvent("evt_1")))
      assert.deepStrictEqual(yield* Ref.get(log), ["tool.after:evt_1"])
      assert.isNull(yield* backend.request(M.observe(M.toolAfterEvent("evt_2"))))
      assert.deepStrictEqual(yield* Ref.get(log), ["tool.after:evt_1", "tool.after:evt_2"])
    }))
})
