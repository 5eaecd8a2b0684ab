import { Edit } from "@effect-ahp/harness"
import { Content, Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc } from "effect"

const messages = Arbitrary.make(Content.Messages)
const objects = Arbitrary.make(Json.AnyObject)

describe("Edit", () => {
  it.prop("list merge is concatenation in order, without deduplication", [messages, messages], ([a, b]) => {
    assert.deepStrictEqual(Edit.applyList(a, "merge", b), [...a, ...b])
    assert.deepStrictEqual(Edit.applyList(a, "merge", a), [...a, ...a])
  })

  it.prop("merge of [] is identity", [messages], ([a]) => {
    assert.strictEqual(Edit.applyList(a, "merge", []), a)
  })

  it.prop("list replace substitutes the whole list", [messages, messages], ([a, b]) => {
    assert.strictEqual(Edit.applyList(a, "replace", b), b)
  })

  it.prop("object merge is a right-biased shallow union", [objects, objects], ([a, b]) => {
    const merged = Edit.applyObject(a, "merge", b)
    for (const key of Object.keys(b)) assert.strictEqual(merged[key], b[key])
    for (const key of Object.keys(a)) if (!(key in b)) assert.strictEqual(merged[key], a[key])
    assert.deepStrictEqual(new Set(Object.keys(merged)), new Set([...Object.keys(a), ...Object.keys(b)]))
  })

  it("object merge keeps null as a literal and replaces nested values whole", () => {
    const merged = Edit.applyObject({ a: 1, nested: { x: 1, y: 2 } }, "merge", { a: null, nested: { x: 3 } })
    assert.deepStrictEqual(merged, { a: null, nested: { x: 3 } })
  })

  it("object replace drops omitted members", () => {
    assert.deepStrictEqual(Edit.applyObject({ a: 1, b: 2 }, "replace", { b: 3 }), { b: 3 })
  })

  const operation = fc.constantFrom<"merge" | "replace">("merge", "replace")
  const smallObjects = fc.dictionary(
    fc.constantFrom("a", "b", "__proto__", "constructor"),
    fc.jsonValue({ maxDepth: 1 })
  ).map(
    (o) => Json.clone(o as Json.JsonObject) as Json.JsonObject
  )

  it.prop("a sequence of list operations in one pass equals applying them one by one", [
    messages,
    fc.array(fc.tuple(operation, messages), { maxLength: 6 })
  ], ([current, operations]) => {
    const stepwise = operations.reduce(
      (acc, [op, value]) => Edit.applyList(acc, op, value),
      current as ReadonlyArray<Content.Message>
    )
    assert.deepStrictEqual(Edit.applyListAll(current, operations), stepwise)
  })

  it.prop("a sequence of object operations in one pass equals applying them one by one", [
    smallObjects,
    fc.array(fc.tuple(operation, smallObjects), { maxLength: 6 })
  ], ([current, operations]) => {
    const stepwise = operations.reduce((acc, [op, value]) => Edit.applyObject(acc, op, value), current)
    const once = Edit.applyObjectAll(current, operations)
    assert.isTrue(Json.equals(once, stepwise))
    assert.deepStrictEqual(Object.keys(once), Object.keys(stepwise))
    assert.strictEqual(Object.getPrototypeOf(once), Object.prototype)
  })

  it("one-pass edits never alter their inputs", () => {
    const current = { a: 1 }
    const value = { b: 2 }
    Edit.applyObjectAll(current, [["merge", value], ["merge", { a: 3 }]])
    assert.deepStrictEqual(current, { a: 1 })
    assert.deepStrictEqual(value, { b: 2 })
    const list = [1, 2]
    Edit.applyListAll(list, [["merge", [3]], ["merge", [4]]])
    assert.deepStrictEqual(list, [1, 2])
  })

  it("a merged __proto__ member stays an own member, never a prototype", () => {
    const hostile = JSON.parse(`{"__proto__":{"polluted":true}}`) as Json.JsonObject
    const merged = Edit.applyObjectAll({ a: 1 }, [["merge", hostile], ["merge", { b: 2 }]])
    assert.deepStrictEqual(Object.keys(merged), ["a", "__proto__", "b"])
    assert.strictEqual(Object.getPrototypeOf(merged), Object.prototype)
    assert.isUndefined((merged as any).polluted)
  })

  const text = (id: string, t: string): Content.Part => ({
    id,
    kind: "text",
    mediaType: "text/plain",
    selection: "body",
    text: t
  })
  const image: Content.Part = {
    id: "img",
    kind: "attachment",
    mediaType: "image/png",
    selection: "body",
    body: { ref: "r1" }
  }
  const current: ReadonlyArray<Content.Message> = [{ id: "m1", role: "tool", parts: [text("p1", "out"), image] }]
  const everything = { default: "body" } as const

  it("an existing attachment may be kept; a new or altered one is an attachment edit", () => {
    const kept = Edit.checkMessages(
      [{
        id: "m2",
        role: "tool",
        parts: [{ id: "img", kind: "attachment", mediaType: "image/png", selection: "metadata" }]
      }],
      current,
      everything
    )
    assert.isTrue(Either.isRight(kept))
    assert.deepStrictEqual(Either.getOrThrow(kept)[0]!.parts[0], image)
    const added = Edit.checkMessages(
      [{ id: "m2", role: "tool", parts: [{ ...image, id: "new" }] }],
      current,
      everything
    )
    assert.deepStrictEqual(Either.isLeft(added) && added.left.code, "attachment-edit")
    const rebound = Edit.checkMessages(
      [{ id: "m2", role: "tool", parts: [{ ...image, body: { ref: "other" } }] }],
      current,
      everything
    )
    assert.deepStrictEqual(Either.isLeft(rebound) && rebound.left.path, "/0/parts/0")
  })

  it("text-part lists reject attachments and hidden views", () => {
    assert.strictEqual(
      Either.isLeft(Edit.checkTextParts([image], everything)) &&
        Either.getLeft(Edit.checkTextParts([image], everything)).pipe((o) => o._tag === "Some" && o.value.code),
      "attachment-edit"
    )
    const hidden = Edit.checkTextParts(
      [{ id: "h", kind: "text", mediaType: "text/plain", selection: "metadata" }],
      everything
    )
    assert.strictEqual(Either.isLeft(hidden) && hidden.left.code, "invalid-value")
  })

  it("incoming text needs body selection of its category", () => {
    const result = Edit.checkTextParts([{ ...text("r", "thought"), category: "reasoning" } as Content.Part], {
      default: "body",
      reasoning: "omit"
    })
    assert.strictEqual(Either.isLeft(result) && result.left.code, "unauthorized-content")
  })
})
