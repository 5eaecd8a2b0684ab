import { Boundary, Projection } from "@effect-ahp/harness"
import type { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"

const text = (id: string, t: string, extra: Record<string, unknown> = {}) => ({
  id,
  kind: "text",
  mediaType: "text/plain",
  selection: "body",
  text: t,
  ...extra
})
const image = { id: "img", kind: "attachment", mediaType: "image/png", selection: "body", body: { ref: "r" } }
const event = (items: Json.JsonValue): Json.JsonObject => ({
  id: "e",
  source: "urn:x",
  type: "tool.after",
  time: "2026-01-01T00:00:00Z",
  native: { raw: "provider data" },
  items
})
const after = Boundary.of("tool.after")

describe("Projection", () => {
  it("body selection keeps text and shares the unchanged event", () => {
    const e = event([{ id: "m", role: "tool", parts: [text("p", "hello")] }])
    const view = Projection.project(after, e, { content: { default: "body" }, includeNative: true })
    assert.strictEqual(view.event, e)
    assert.strictEqual(view.hiddenTextTargets.size, 0)
  })

  it("metadata and omit views carry no text; native is dropped unless asked for", () => {
    const e = event([{
      id: "m",
      role: "assistant",
      parts: [text("p", "answer"), text("r", "thinking", { category: "reasoning" })]
    }])
    const view = Projection.project(after, e, {
      content: { default: "metadata", reasoning: "omit" },
      includeNative: false
    })
    assert.deepStrictEqual((view.event.items as any)[0].parts, [
      { id: "p", kind: "text", mediaType: "text/plain", selection: "metadata" },
      { id: "r", kind: "text", mediaType: "text/plain", selection: "omit", category: "reasoning" }
    ])
    assert.isFalse("native" in view.event)
    assert.isTrue(view.hiddenTextTargets.has("output"))
    assert.include(JSON.stringify(e), "thinking")
    assert.notInclude(JSON.stringify(view.event), "thinking")
  })

  it("a category selection overrides the default, and a stricter view is never widened", () => {
    const e = event([{
      id: "m",
      role: "user",
      parts: [text("p", "hi"), { id: "h", kind: "text", mediaType: "text/plain", selection: "metadata" }]
    }])
    const view = Projection.project(after, e, { content: { default: "omit", text: "body" }, includeNative: false })
    assert.deepStrictEqual((view.event.items as any)[0].parts, [text("p", "hi"), {
      id: "h",
      kind: "text",
      mediaType: "text/plain",
      selection: "metadata"
    }])
    assert.isTrue(view.hiddenTextTargets.has("output"))
  })

  it("a body-selected attachment without a reference for the subscriber is reported as needing an upload", () => {
    const e = event([{ id: "m", role: "user", parts: [image] }])
    const view = Projection.project(after, e, { content: { default: "body" }, includeNative: false })
    assert.deepStrictEqual(view.pendingUploads, [{ id: "img", pointer: "/items/0/parts/0" }])
    assert.deepStrictEqual((view.event.items as any)[0].parts[0], {
      id: "img",
      kind: "attachment",
      mediaType: "image/png",
      selection: "body",
      gap: { reason: Projection.uploadPendingReason }
    })
    assert.notInclude(JSON.stringify(view.event), "\"r\"")
    const metadata = Projection.project(after, e, {
      content: { default: "body", images: "metadata" },
      includeNative: false
    })
    assert.deepStrictEqual(metadata.pendingUploads, [])
    assert.strictEqual(metadata.hiddenTextTargets.size, 0)
  })

  it("a body-selected attachment shows the subscriber's own reference, never the host's", () => {
    const e = event([{ id: "m", role: "user", parts: [{ ...image, category: "screenshots" }] }])
    const view = Projection.project(
      after,
      e,
      { content: { default: "body" }, includeNative: false },
      new Map([["img", "theirs"]])
    )
    assert.deepStrictEqual(view.pendingUploads, [])
    assert.deepStrictEqual((view.event.items as any)[0].parts[0], {
      id: "img",
      kind: "attachment",
      mediaType: "image/png",
      selection: "body",
      body: { ref: "theirs" },
      category: "screenshots"
    })
    assert.deepStrictEqual([...view.references], [["img", "theirs"]])
  })

  it("projects event-specific slots: file changes, elicitation results, user messages", () => {
    const file: Json.JsonObject = {
      ...event([]),
      type: "file.changed",
      changes: [{
        path: "a",
        operation: "update",
        agentCaused: true,
        before: text("b", "old"),
        after: text("a", "new")
      }]
    }
    const view = Projection.project(Boundary.of("file.changed"), file, {
      content: { default: "metadata" },
      includeNative: false
    })
    assert.notInclude(JSON.stringify(view.event), "old")
    const result: Json.JsonObject = {
      ...event([]),
      type: "user.elicitation.result",
      elicitation: { server: { id: "s" }, mode: "form", action: "accept", result: text("r", "{\"action\":\"accept\"}") }
    }
    const hidden = Projection.project(Boundary.of("user.elicitation.result"), result, {
      content: { default: "omit" },
      includeNative: false
    })
    assert.isTrue(hidden.unreadableTargets.has("content"))
    const visible = Projection.project(Boundary.of("user.elicitation.result"), result, {
      content: { default: "body" },
      includeNative: false
    })
    assert.isFalse(visible.unreadableTargets.has("content"))
  })

  it("categories derive from media types", () => {
    assert.strictEqual(Projection.categoryOf({ mediaType: "text/plain" }), "text")
    assert.strictEqual(Projection.categoryOf({ mediaType: "image/png" }), "images")
    assert.strictEqual(Projection.categoryOf({ mediaType: "audio/wav" }), "audio")
    assert.strictEqual(Projection.categoryOf({ mediaType: "video/mp4" }), "video")
    assert.strictEqual(Projection.categoryOf({ mediaType: "application/pdf" }), "files")
    assert.strictEqual(Projection.categoryOf({ mediaType: "text/plain", category: "reasoning" }), "reasoning")
  })
})
