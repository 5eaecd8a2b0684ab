import { Client, Registry, Transport } from "@effect-ahp/harness"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { answer, intercept, registration, toolBefore } from "./support.js"

const A = "com.example.a"

describe("Client (Promise facade)", () => {
  it("dispatches and closes", async () => {
    const layer = Transport.layerInProcess({
      [A]: { request: (m) => answer({ type: "deny", reason: "nope" })(m, 0), notify: () => Effect.void }
    })
    const client = await Client.make(registration([{ id: A, subscriptions: [intercept(["tool.before"])] }]), layer)
    const result = await client.dispatch("tool.before", toolBefore())
    assert.strictEqual(result.decision.permission, "deny")
    await client.close()
    await client.close()
  })

  it("an abort signal interrupts the call and yields interrupted", async () => {
    const layer = Transport.layerInProcess({ [A]: { request: () => Effect.never, notify: () => Effect.void } })
    const client = await Client.make(
      registration([{ id: A, subscriptions: [intercept(["tool.before"], { timeoutMs: 60_000 })] }]),
      layer
    )
    const controller = new AbortController()
    const pending = client.dispatch("tool.before", toolBefore(), { signal: controller.signal })
    setTimeout(() => controller.abort(), 10)
    const result = await pending
    assert.isTrue(result.interrupted)
    assert.strictEqual(result.decision.permission, "none")
    await client.close()
  })

  it("rejects an invalid registration with every issue", async () => {
    const layer = Transport.layerInProcess({})
    const error = await Client.make({ protocolVersion: "draft", hooks: [] }, layer).then(() => undefined, (e) => e)
    assert.instanceOf(error, Registry.ConfigurationError)
    assert.deepStrictEqual(error.issues.map((i: Registry.ConfigurationIssue) => i.code), ["missing-backends"])
  })
})
