/**
 * The soak's upload endpoint plays each backend's planned uploads by the attachment an
 * upload carries, not by the order uploads arrive in (issue 34 item 4: under load an
 * observation's upload aborted before it reached the endpoint shifted an arrival counter,
 * and a later dispatch's planned receipt was answered with the earlier one's 202).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Crypto from "node:crypto"
import * as plan from "./plan.js"
import * as UploadEndpoint from "./UploadEndpoint.js"

const behaviour = (name: plan.UploadBehaviour["name"]) => plan.uploadBehaviours.find((b) => b.name === name)!

const backend: plan.BackendPlan = {
  id: "com.example.soak.t.b0",
  kind: "stdio",
  policy: "fail-open",
  sequence: [],
  sequenceArg: "",
  grandchild: false,
  uploads: [behaviour("202"), behaviour("receipt")]
}

const post = (endpoint: UploadEndpoint.UploadEndpoint, bytes: Uint8Array, digest?: string) =>
  fetch(endpoint.url(backend.id), {
    method: "POST",
    headers: {
      "content-type": "application/octet-stream",
      "ahp-content-sha256": digest ?? Crypto.createHash("sha256").update(bytes).digest("hex")
    },
    body: bytes
  })

describe("soak upload endpoint", () => {
  it("answers an upload as the plan has it for its attachment, whatever arrived before", async () => {
    const endpoint = await UploadEndpoint.start([backend])
    try {
      const first = Crypto.randomBytes(100)
      const second = Crypto.randomBytes(200)
      endpoint.expect(first, new Map([[backend.id, 0]]))
      endpoint.expect(second, new Map([[backend.id, 1]]))
      // The first dispatch's upload never arrived: the second's is still its planned receipt.
      const confirmed = await post(endpoint, second)
      assert.strictEqual(confirmed.status, 201)
      assert.deepStrictEqual(await confirmed.json(), {
        ref: `soak-${backend.id}-1`,
        size: second.length,
        sha256: Crypto.createHash("sha256").update(second).digest("hex")
      })
      // A late upload of the first dispatch still gets the first planned behaviour.
      const late = await post(endpoint, first)
      assert.strictEqual(late.status, 202)
      await late.arrayBuffer()
      assert.deepStrictEqual(endpoint.problems, [])
      assert.deepStrictEqual([...endpoint.issued.get(backend.id) ?? []], [`soak-${backend.id}-1`])
      assert.strictEqual(endpoint.received(), 2)
    } finally {
      await endpoint.close()
    }
  })

  it("reports an upload of no dispatched attachment, a second upload of one, and a body unlike its digest", async () => {
    const endpoint = await UploadEndpoint.start([backend])
    try {
      const bytes = Crypto.randomBytes(64)
      endpoint.expect(bytes, new Map([[backend.id, 1]]))
      const stranger = await post(endpoint, Crypto.randomBytes(64))
      assert.strictEqual(stranger.status, 400)
      await stranger.arrayBuffer()
      for (const body of [bytes, Crypto.randomBytes(64)]) {
        const answer = await post(endpoint, body, Crypto.createHash("sha256").update(bytes).digest("hex"))
        assert.strictEqual(answer.status, 201)
        await answer.arrayBuffer()
      }
      assert.strictEqual(endpoint.problems.length, 3, endpoint.problems.join("\n"))
      assert.match(endpoint.problems[0]!, /not an attachment the soak dispatched to it/)
      assert.match(endpoint.problems[1]!, /upload 1: the attachment was uploaded twice/)
      assert.match(endpoint.problems[2]!, /upload 1: AHP-Content-SHA256 does not match the body/)
    } finally {
      await endpoint.close()
    }
  })
})
