import { InProcess } from "@effect-ahp/backend"
import { Transport } from "@effect-ahp/harness"
import { it } from "@effect/vitest"
import { Effect, Ref, Supervisor, Fiber } from "effect"
import { openHooks, registration, observe } from "../support/e2e.js"
import { policyBackend } from "./fixtures/policyBackend.js"

const ID = "com.example.policy"
it.scopedLive("dbg", () => Effect.gen(function*() {
  const ref = yield* Ref.make<ReadonlyArray<string>>([])
  const backend = yield* InProcess.fromLayer(policyBackend((l) => Ref.update(ref, (x) => [...x, l])))
  const reg = registration([{ id: ID, transport: { type: "http", url: "https://policy.invalid/hooks" }, subscriptions: [
    { mode: "intercept", events: ["tool.before"], timeoutMs: 10_000, failurePolicy: "fail-closed", content: { default: "body" } }, observe(["tool.*"])] }])
  const { hooks } = yield* openHooks(reg, Transport.layerInProcess({ [ID]: backend }))
  const supervisor = yield* Supervisor.track
  yield* Effect.supervised(hooks.dispatch("tool.before", { id: "e1", session: { id: "s" }, tool: { name: "Bash", kind: "shell", input: { command: "ls" }, origin: "native" }, call: { id: "c" }, path: "native" }), supervisor)
  const live = yield* supervisor.value
  for (const f of live) {
    const d = yield* Fiber.dump(f)
    console.log(Fiber.pretty ? yield* Fiber.pretty(f) : d)
  }
}))
