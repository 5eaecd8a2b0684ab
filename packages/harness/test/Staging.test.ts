import { Boundary, Grant, Settlement, Staging } from "@effect-ahp/harness"
import { type Event, Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck as fc } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { loadFactor, scaled, timeRatio } from "../../../test/support/load.js"

const fixtures = join(__dirname, "..", "..", "..", "..", "shared", "ahp", "fixtures", "draft")
const hasFixtures = existsSync(join(fixtures, "manifest.json"))

const toolBefore: Json.JsonObject = {
  id: "evt_1",
  source: "urn:test",
  type: "tool.before",
  time: "2026-01-01T00:00:00Z",
  tool: { name: "Bash", input: { command: "ls" }, origin: "native" },
  call: { id: "c" },
  path: "native"
}

const contextFor = (type: Event.EventType, event: Json.JsonObject, requestId = "evt_1"): Staging.Context => {
  const boundary = Boundary.of(type)
  return {
    requestId,
    boundary,
    capabilities: Grant.boundaryCapabilities(boundary, 3),
    view: { hiddenTextTargets: new Set(), unreadableTargets: new Set() },
    selection: { default: "body" },
    event
  }
}

const respond = (effects: Json.JsonValue, id: Json.JsonValue = "evt_1"): Json.JsonObject => ({
  jsonrpc: "2.0",
  id,
  result: { protocolVersion: "draft", effects }
})

const codeOf = (result: Either.Either<Staging.Staged, Staging.Rejection>) =>
  Either.isLeft(result) ? result.left.code : "accepted"

describe("Staging envelope", () => {
  const ctx = contextFor("tool.before", toolBefore)
  it("accepts an empty effect list", () => assert.strictEqual(codeOf(Staging.stage(respond([]), ctx)), "accepted"))
  it("rejects a non-object", () => assert.strictEqual(codeOf(Staging.stage([respond([])], ctx)), "malformed-response"))
  it("rejects another id", () => assert.strictEqual(codeOf(Staging.stage(respond([], "evt_2"), ctx)), "id-mismatch"))
  it("rejects a JSON-RPC error and keeps its code and what it said (masking secrets is the transport's part)", () => {
    const result = Staging.stage(
      { jsonrpc: "2.0", id: "evt_1", error: { code: -32003, message: "busy: token=abc" } },
      ctx
    )
    assert.isTrue(Either.isLeft(result))
    if (Either.isLeft(result)) {
      assert.strictEqual(result.left.code, "jsonrpc-error")
      assert.strictEqual(result.left.jsonRpcCode, -32003)
      assert.strictEqual(result.left.detail, "the backend answered with JSON-RPC error -32003: \"busy: token=abc\"")
    }
  })
  it("quotes a JSON-RPC error's message and data bounded, control and bidi characters escaped", () => {
    const result = Staging.stage(
      {
        jsonrpc: "2.0",
        id: "evt_1",
        error: { code: -32000, message: `x\u009b\u202e${"m".repeat(300)}`, data: { rejected: "d".repeat(400) } }
      },
      ctx
    )
    assert.isTrue(Either.isLeft(result))
    if (Either.isLeft(result)) {
      const detail = result.left.detail
      assert.isTrue(
        detail.startsWith(`the backend answered with JSON-RPC error -32000: "x\\u009b\\u202e${"m".repeat(197)}…"`),
        detail
      )
      assert.include(detail, ` (data: {"rejected":"${"d".repeat(300 - 13)}…)`)
      assert.notMatch(detail, /[\u0000-\u001f\u007f-\u009f\u202e]/)
    }
  })
  it("rejects result and error together", () =>
    assert.strictEqual(
      codeOf(Staging.stage({ ...respond([]), error: { code: 1, message: "x" } }, ctx)),
      "invalid-envelope"
    ))
  it("rejects another protocol version", () =>
    assert.strictEqual(
      codeOf(
        Staging.stage({ jsonrpc: "2.0", id: "evt_1", result: { protocolVersion: "2025-01-01", effects: [] } }, ctx)
      ),
      "version-mismatch"
    ))
  it("rejects a missing effects list", () =>
    assert.strictEqual(
      codeOf(Staging.stage({ jsonrpc: "2.0", id: "evt_1", result: { protocolVersion: "draft" } }, ctx)),
      "missing-effects"
    ))
  it("rejects non-object effects", () =>
    assert.strictEqual(codeOf(Staging.stage(respond({ type: "deny" }), ctx)), "missing-effects"))
  it("rejects a discovery manifest in an intercept result", () =>
    assert.strictEqual(
      codeOf(
        Staging.stage(
          { jsonrpc: "2.0", id: "evt_1", result: { protocolVersion: "draft", effects: [], manifest: {} } },
          ctx
        )
      ),
      "invalid-envelope"
    ))
})

describe("Staging effects", () => {
  const ctx = contextFor("tool.before", toolBefore)
  const cases: ReadonlyArray<[string, Json.JsonValue, Staging.RejectionCode | "accepted"]> = [
    ["unknown effect type", [{ type: "defer" }], "unknown-effect"],
    ["unknown effect member", [{ type: "allow", why: "x" }], "unknown-effect-field"],
    ["deny without reason", [{ type: "deny" }], "invalid-effect"],
    ["deny with an empty reason", [{ type: "deny", reason: "" }], "invalid-effect"],
    [
      "modify of a target this boundary lacks",
      [{ type: "modify", target: "output", operation: "merge", value: [] }],
      "ungranted-target"
    ],
    ["modify input with a list", [{ type: "modify", target: "input", operation: "merge", value: [] }], "invalid-value"],
    ["continue at tool.before", [{ type: "flow", operation: "continue" }], "ungranted-operation"],
    ["flow stop without reason", [{ type: "flow", operation: "stop" }], "invalid-effect"],
    ["inject with a non-message value", [{
      type: "inject",
      target: "context",
      operation: "append",
      deliverAt: "now",
      value: { a: 1 }
    }], "invalid-value"],
    ["return of any JSON at tool.before", [{ type: "return", value: null }], "accepted"],
    [
      "a valid deny after an invalid effect",
      [{ type: "ask", extra: 1 }, { type: "deny", reason: "no" }],
      "unknown-effect-field"
    ],
    ["a valid deny before an invalid effect", [{ type: "deny", reason: "no" }, {
      type: "modify",
      target: "input",
      operation: "merge",
      value: 3
    }], "invalid-value"]
  ]
  for (const [name, effects, expected] of cases) {
    it(name, () => assert.strictEqual(codeOf(Staging.stage(respond(effects), ctx)), expected))
  }

  it("return at model.request.before must be canonical messages", () => {
    const event: Json.JsonObject = { ...toolBefore, type: "model.request.before", items: [] }
    const c = contextFor("model.request.before", event)
    assert.strictEqual(codeOf(Staging.stage(respond([{ type: "return", value: "text" }]), c)), "invalid-value")
    assert.strictEqual(codeOf(Staging.stage(respond([{ type: "return", value: [] }]), c)), "accepted")
  })

  it("modify(workspace) edits the change object and must keep it valid", () => {
    const event: Json.JsonObject = {
      ...toolBefore,
      type: "workspace.change.before",
      workspace: { kind: "cwd", change: { cwd: "/a" } }
    }
    const c = contextFor("workspace.change.before", event)
    const ok = Staging.stage(
      respond([{ type: "modify", target: "workspace", operation: "merge", value: { cwd: "/b" } }]),
      c
    )
    assert.deepStrictEqual(Either.isRight(ok) && (ok.right.event.workspace as any).change, { cwd: "/b" })
    assert.strictEqual(
      codeOf(
        Staging.stage(respond([{ type: "modify", target: "workspace", operation: "merge", value: { cwd: 1 } }]), c)
      ),
      "invalid-value"
    )
  })

  it("modify(instructions) creates the list when absent and rejects attachments", () => {
    const event: Json.JsonObject = { ...toolBefore, type: "context.compact.before", trigger: "auto", items: [] }
    const c = contextFor("context.compact.before", event)
    const part = { id: "i", kind: "text", mediaType: "text/plain", selection: "body", text: "keep decisions" }
    const ok = Staging.stage(
      respond([{ type: "modify", target: "instructions", operation: "merge", value: [part] }]),
      c
    )
    assert.deepStrictEqual(Either.isRight(ok) && ok.right.event.instructions, [part])
    const image = { id: "a", kind: "attachment", mediaType: "image/png", selection: "metadata" }
    assert.strictEqual(
      codeOf(
        Staging.stage(respond([{ type: "modify", target: "instructions", operation: "merge", value: [image] }]), c)
      ),
      "invalid-value"
    )
  })

  it.prop("a modify of tool input changes the operation exactly when the input differs afterwards", [
    fc.dictionary(fc.constantFrom("command", "cwd", "flags"), fc.jsonValue({ maxDepth: 2 })),
    fc.constantFrom<"merge" | "replace">("merge", "replace")
  ], ([value, operation]) => {
    const input: Json.JsonObject = { command: "ls", cwd: "/tmp", flags: ["-l"] }
    const event: Json.JsonObject = { ...toolBefore, tool: { name: "Bash", input, origin: "native" } }
    const result = Staging.stage(
      respond([{ type: "modify", target: "input", operation, value: value as Json.JsonObject }]),
      contextFor("tool.before", event)
    )
    assert.isTrue(Either.isRight(result))
    if (Either.isRight(result)) {
      const after = (result.right.event.tool as Json.JsonObject).input
      assert.strictEqual(result.right.operationChanged, JSON.stringify(after) !== JSON.stringify(input))
    }
  })

  const keyArb = fc.constantFrom("command", "cwd", "x")
  const valueArb = fc.oneof(fc.constantFrom<Json.JsonValue>(1, 2, "ls", null), fc.constant<Json.JsonValue>(["-l"]))
  const objectArb = fc.dictionary(keyArb, valueArb) as fc.Arbitrary<Json.JsonObject>
  const editArb = fc.tuple(fc.constantFrom<"merge" | "replace">("merge", "replace"), objectArb)
  const inputOf = (result: Either.Either<Staging.Staged, Staging.Rejection>) =>
    Either.isRight(result) ? (result.right.event.tool as Json.JsonObject).input : undefined
  const withInput = (input: Json.JsonObject): Json.JsonObject => ({
    ...toolBefore,
    tool: { name: "Bash", input, origin: "native" }
  })
  const edits = (list: ReadonlyArray<readonly [string, Json.JsonValue]>): Json.JsonValue =>
    list.map(([operation, value]) => ({ type: "modify", target: "input", operation, value }))

  it.prop(
    "a response changes the operation exactly when the input differs before and after the whole response",
    [objectArb, fc.array(editArb, { minLength: 1, maxLength: 6 }), fc.boolean()],
    ([input, list, undo]) => {
      // With `undo`, a last replace restores the input, its members in reverse order.
      const restore = Object.fromEntries(Object.entries(input).reverse())
      const all = undo ? [...list, ["replace", restore] as const] : list
      const result = Staging.stage(respond(edits(all)), contextFor("tool.before", withInput(input)))
      let expected: Json.JsonObject = input
      for (const [operation, value] of all) expected = operation === "replace" ? value : { ...expected, ...value }
      assert.deepStrictEqual(inputOf(result), expected)
      assert.isTrue(Either.isRight(result))
      if (Either.isRight(result)) assert.strictEqual(result.right.operationChanged, !Json.equals(input, expected))
      if (undo && Either.isRight(result)) assert.isFalse(result.right.operationChanged)
    }
  )

  it("an edit that nets out to no change leaves the operation unchanged", () => {
    const ctx = contextFor("tool.before", withInput({ x: 1 }))
    const netNone = Staging.stage(respond(edits([["merge", { x: 2 }], ["merge", { x: 1 }]])), ctx)
    assert.isTrue(Either.isRight(netNone) && !netNone.right.operationChanged)
    const reordered = Staging.stage(respond(edits([["replace", { y: 1 }], ["replace", { x: 1 }]])), ctx)
    assert.isTrue(Either.isRight(reordered) && !reordered.right.operationChanged)
    const changed = Staging.stage(respond(edits([["merge", { x: 1 }], ["merge", { x: 2 }]])), ctx)
    assert.isTrue(Either.isRight(changed) && changed.right.operationChanged)
    const added = Staging.stage(respond(edits([["merge", { y: null }]])), ctx)
    assert.isTrue(Either.isRight(added) && added.right.operationChanged)
  })

  it("numbers are compared exactly: a lossless number changes the operation only when its value does", () => {
    const parse = (text: string) => Either.getOrThrow(Json.parse(text)) as Json.JsonObject
    const input = parse(`{"n":123456789012345678901234567890}`)
    const ctx = contextFor("tool.before", withInput(input))
    const same = Staging.stage(
      parse(`{"jsonrpc":"2.0","id":"evt_1","result":{"protocolVersion":"draft","effects":[
      {"type":"modify","target":"input","operation":"merge","value":{"n":123456789012345678901234567891}},
      {"type":"modify","target":"input","operation":"merge","value":{"n":123456789012345678901234567890}}]}}`),
      ctx
    )
    assert.isTrue(Either.isRight(same) && !same.right.operationChanged)
    const other = Staging.stage(
      parse(`{"jsonrpc":"2.0","id":"evt_1","result":{"protocolVersion":"draft","effects":[
      {"type":"modify","target":"input","operation":"merge","value":{"n":123456789012345678901234567891}}]}}`),
      ctx
    )
    assert.isTrue(Either.isRight(other) && other.right.operationChanged)
    const respelled = Staging.stage(
      parse(`{"jsonrpc":"2.0","id":"evt_1","result":{"protocolVersion":"draft","effects":[
      {"type":"modify","target":"input","operation":"merge","value":{"n":1.23456789012345678901234567890e29}}]}}`),
      ctx
    )
    assert.isTrue(Either.isRight(respelled) && !respelled.right.operationChanged, "the same value, written otherwise")
  })

  it("staging stops with deadline-expired once the deadline is due", () => {
    const many = Array.from({ length: 1000 }, (_, i) => ({ type: "message", text: `m${i}` }))
    let looks = 0
    const due = () => ++looks > 3
    assert.strictEqual(codeOf(Staging.stage(respond(many), { ...ctx, expired: due })), "deadline-expired")
    assert.isBelow(looks, 10)
    assert.strictEqual(
      codeOf(Staging.stage(respond([{ type: "ask" }]), { ...ctx, expired: () => true })),
      "deadline-expired"
    )
    assert.strictEqual(codeOf(Staging.stage(respond(many), { ...ctx, expired: () => false })), "accepted")
    const merges = Array.from(
      { length: 1000 },
      (_, i) => ({ type: "modify", target: "input", operation: "merge", value: { [`k${i}`]: i } })
    )
    looks = 0
    assert.strictEqual(
      codeOf(Staging.stage(respond(merges), { ...ctx, expired: () => ++looks > 20 })),
      "deadline-expired"
    )
  })

  it("staging is linear: many edits of one target are applied in one pass", () => {
    const merges = (n: number) =>
      respond(Array.from(
        { length: n },
        (_, i) => ({ type: "modify", target: "input", operation: "merge", value: { [`k${i}`]: "v" } })
      ))
    const message = (i: number) => ({
      id: `m${i}`,
      role: "tool",
      parts: [{ id: `p${i}`, kind: "text", mediaType: "text/plain", selection: "body", text: "t" }]
    })
    const event: Json.JsonObject = { ...toolBefore, type: "tool.after", items: [] }
    const appends = (n: number) =>
      respond(Array.from(
        { length: n },
        (_, i) => ({ type: "modify", target: "output", operation: "merge", value: [message(i)] })
      ))
    const n = 10_000
    assert.strictEqual(Object.keys(inputOf(Staging.stage(merges(n), ctx)) ?? {}).length, n + 1)
    const list = Staging.stage(appends(n), contextFor("tool.after", event))
    assert.strictEqual(Either.isRight(list) && (list.right.event.items as Array<unknown>).length, n)
    // Eighty times the edits take about eighty times as long; applied one by one, each edit
    // copying the whole target, they would take about 6 400 times as long. Both sizes are
    // timed in the same run, but a loaded machine preempts the longer run more often: the
    // bound, eight times the linear ratio on a quiet machine, grows with the load factor up
    // to a third of the quadratic ratio.
    const bound = Math.min(640 * loadFactor(), 2100)
    const [smallMerges, largeMerges] = [merges(n / 80), merges(n)]
    assert.isBelow(timeRatio(() => Staging.stage(smallMerges, ctx), () => Staging.stage(largeMerges, ctx)), bound)
    const [smallAppends, largeAppends] = [appends(n / 80), appends(n)]
    const listContext = contextFor("tool.after", event)
    assert.isBelow(
      timeRatio(() => Staging.stage(smallAppends, listContext), () => Staging.stage(largeAppends, listContext)),
      bound
    )
  }, scaled(30_000))

  const effectArb = fc.oneof(
    fc.constant<Json.JsonValue>({ type: "deny", reason: "r" }),
    fc.constant<Json.JsonValue>({ type: "deny" }),
    fc.constant<Json.JsonValue>({ type: "allow", extra: 1 }),
    fc.constant<Json.JsonValue>({ type: "unknown" }),
    fc.constant<Json.JsonValue>({
      type: "modify",
      target: "input",
      operation: "replace",
      value: { command: "rm -rf /" }
    }),
    fc.constant<Json.JsonValue>({ type: "modify", target: "input", operation: "merge", value: ["x"] }),
    fc.constant<Json.JsonValue>({ type: "return", value: { cached: true } }),
    fc.constant<Json.JsonValue>({ type: "message", text: "m" }),
    fc.jsonValue({ maxDepth: 2 }) as fc.Arbitrary<Json.JsonValue>
  )

  it.prop("a rejected response publishes nothing: the pending state and event stay byte-identical", [
    fc.array(effectArb, { maxLength: 5 })
  ], ([effects]) => {
    const before = JSON.stringify(toolBefore)
    const state = Settlement.accept(Settlement.initial(), { effects: [{ type: "ask" }], operationChanged: false }, {
      backend: "b",
      subscription: "0",
      requestId: "evt_1"
    })
    const stateBefore = JSON.stringify(state)
    const result = Staging.stage(respond(effects), ctx)
    assert.strictEqual(JSON.stringify(toolBefore), before)
    if (Either.isLeft(result)) {
      assert.strictEqual(JSON.stringify(state), stateBefore)
    } else {
      const after = Settlement.accept(state, result.right, { backend: "b", subscription: "1", requestId: "evt_1" })
      assert.strictEqual(after.permission === "deny", effects.some((e: any) => e?.type === "deny"))
    }
  })
})

describe.skipIf(!hasFixtures)("official fixtures judged only by a boundary (editContext)", () => {
  const manifest = hasFixtures ? JSON.parse(readFileSync(join(fixtures, "manifest.json"), "utf8")) : { cases: [] }
  const contextual = manifest.cases.filter((c: any) =>
    c.editContext !== undefined && existsSync(join(fixtures, "..", "..", c.path))
  )

  const eventFor = (edit: any): Json.JsonObject => {
    const base = { id: "edit-1", source: "urn:test", time: "2026-01-01T00:00:00Z", type: edit.event }
    switch (edit.event) {
      case "user.elicitation.result": {
        const result = edit.mode === "form" && edit.action === "accept"
          ? { action: edit.action, content: edit.current.content }
          : { action: edit.action }
        return {
          ...base,
          elicitation: {
            server: { id: "srv" },
            mode: edit.mode,
            action: edit.action,
            result: { id: "r", kind: "text", mediaType: "text/plain", selection: "body", text: JSON.stringify(result) }
          }
        }
      }
      case "user.message.outbound":
        return { ...base, message: { channel: "chat", messages: edit.current.content } }
      default:
        return { ...base, items: edit.current.output ?? [] }
    }
  }

  it("covers every contextual case present", () => assert.isAbove(contextual.length, 10))
  for (const c of contextual) {
    it(`${c.id}: ${c.contextualExpectedValid ? "accepted" : "rejected"}`, () => {
      const response = JSON.parse(readFileSync(join(fixtures, "..", "..", c.path), "utf8"))
      const result = Staging.stage(response, contextFor(c.editContext.event, eventFor(c.editContext), "edit-1"))
      assert.strictEqual(
        Either.isRight(result),
        c.contextualExpectedValid,
        Either.isLeft(result) ? result.left.detail : "accepted"
      )
    })
  }
})

if (!hasFixtures) {
  describe("official fixtures judged only by a boundary (editContext)", () => {
    it.skip("fixtures folder ../shared/ahp absent: skipped", () => {})
  })
}
