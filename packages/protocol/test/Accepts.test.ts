import { assert, describe, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck, Schema } from "effect"
import { closed } from "../src/Common.js"
import * as Decoder from "../src/Decoder.js"
import * as HookEffect from "../src/HookEffect.js"
import { compile } from "../src/internal/accepts.js"
import * as Json from "../src/Json.js"
import { corrupt } from "./corrupt.js"

/** Whether effect's decoder accepts `u` (it throws on a few hostile values, which it does not accept). */
const decodes = (schema: Schema.Schema<any, any>, u: unknown, onExcessProperty: "preserve" | "error" = "preserve") => {
  try {
    return Either.isRight(Schema.decodeUnknownEither(schema, { errors: "all", onExcessProperty })(u))
  } catch {
    return false
  }
}

/** Whether some object in `u` has an own `__proto__` member (may be left to the decoder). */
const hasProtoMember = (u: unknown): boolean =>
  typeof u === "object" && u !== null &&
  (Object.prototype.hasOwnProperty.call(u, "__proto__") || Object.values(u).some(hasProtoMember))

interface Tree {
  readonly name: string
  readonly children: ReadonlyArray<Tree>
}
const Tree: Schema.Schema<Tree> = Schema.Struct({
  name: Schema.String,
  children: Schema.Array(Schema.suspend(() => Tree))
})

const Closed = Schema.Struct({ kind: Schema.Literal("a"), n: Schema.optional(Schema.Number) }).annotations(closed)
const Open = Schema.Struct({ kind: Schema.Literal("b"), inner: Closed })
const Shape = Schema.Union(Closed, Open)

const schemas = {
  tree: Tree,
  union: Shape,
  tuple: Schema.Tuple([Schema.String, Schema.optionalElement(Schema.Number)], Schema.Boolean),
  record: Schema.Record({ key: Schema.String, value: Schema.Number }).annotations(closed),
  refinedKeys: Schema.Struct(
    { fixed: Schema.Boolean },
    Schema.Record({ key: Schema.String.pipe(Schema.minLength(3)), value: Schema.Union(Schema.Boolean, Schema.Number) })
  ),
  refined: Schema.Struct({ low: Schema.Number, high: Schema.Number }).pipe(Schema.filter((r) => r.low <= r.high)),
  json: Schema.Struct({ payload: Json.Value, extra: Schema.optional(Json.AnyObject) }),
  enums: Schema.Struct({ e: Schema.Enums({ A: "a", B: 2 }), u: Schema.Union(Schema.Undefined, Schema.BigIntFromSelf) })
} as const

describe("accepts", () => {
  for (const [name, schema] of Object.entries(schemas)) {
    const accepts = compile((schema as Schema.Schema<any, any>).ast)
    it.prop(`${name}: accepts every valid value without an own __proto__ member`, [
      Arbitrary.make(schema as Schema.Schema<any, any>)
    ], ([value]) => {
      if (!hasProtoMember(value)) assert.isTrue(accepts(value))
    })
    it.prop(`${name}: accepts exactly what the decoder accepts`, [
      Arbitrary.make(schema as Schema.Schema<any, any>),
      FastCheck.array(FastCheck.nat(), { maxLength: 4 }),
      FastCheck.anything({ withNullPrototype: true })
    ], ([value, choices, replacement]) => {
      const broken = corrupt(value, choices, replacement)
      const decoded = decodes(schema as Schema.Schema<any, any>, broken)
      if (hasProtoMember(broken)) assert.isTrue(!accepts(broken) || decoded)
      else assert.strictEqual(accepts(broken), decoded)
    })
  }

  const effects = {
    deny: HookEffect.Deny,
    allow: HookEffect.Allow,
    ask: HookEffect.Ask,
    modify: HookEffect.Modify,
    message: HookEffect.Message,
    return: HookEffect.Return,
    stop: HookEffect.FlowStop,
    continue: HookEffect.FlowContinue,
    inject: HookEffect.Inject
  } as const
  for (const [name, schema] of Object.entries(effects)) {
    const s = schema as Schema.Schema<any, any>
    const accepts = compile(s.ast, "error")
    const decode = Decoder.acceptOrDecode(s, { onExcessProperty: "error" })
    it.prop(`${name} effects, unknown members rejected: accepts exactly what the decoder accepts`, [
      Arbitrary.make(s),
      FastCheck.array(FastCheck.nat(), { maxLength: 3 }),
      FastCheck.constantFrom<unknown>(null, 7, "", "x", [], {}, true, { extra: 1 })
    ], ([value, choices, replacement]) => {
      const encoded = Schema.encodeSync(s)(value)
      if (!hasProtoMember(encoded)) {
        assert.isTrue(accepts(encoded))
        assert.strictEqual(Either.getOrThrow(decode(encoded)), encoded)
      }
      const broken = corrupt(encoded, choices, replacement)
      const decoded = decodes(s, broken, "error")
      if (hasProtoMember(broken)) assert.isTrue(!accepts(broken) || decoded)
      else assert.strictEqual(accepts(broken), decoded)
      assert.strictEqual(Either.isRight(decode(broken)), decoded)
    })
  }

  it("an effect with an unknown member is left to the decoder, which reports it", () => {
    const decode = Decoder.acceptOrDecode(HookEffect.Allow, { onExcessProperty: "error" })
    assert.isFalse(compile(HookEffect.Allow.ast, "error")({ type: "allow", why: 1 }))
    assert.isTrue(Either.isLeft(decode({ type: "allow", why: 1 })))
  })

  it("rejects unknown members of closed objects only, also when nested in open ones", () => {
    const accepts = compile(Shape.ast)
    assert.isTrue(accepts({ kind: "b", inner: { kind: "a" }, more: 1 }))
    assert.isFalse(accepts({ kind: "b", inner: { kind: "a", more: 1 } }))
    assert.isFalse(accepts({ kind: "a", more: 1 }))
    assert.isFalse(accepts({ kind: "a", [Symbol.for("x")]: 1 }))
    assert.isFalse(compile(schemas.record.ast)({ a: 1, [Symbol.for("x")]: 1 }))
  })

  it("leaves objects with an own __proto__ member or a foreign prototype to the decoder", () => {
    const accepts = compile(Open.ast)
    assert.isFalse(accepts(JSON.parse(`{"kind":"b","inner":{"kind":"a"},"__proto__":{}}`)))
    assert.isFalse(accepts(Object.assign(new (class Foreign {})(), { kind: "b", inner: { kind: "a" } })))
    assert.isTrue(accepts(Object.assign(Object.create(null), { kind: "b", inner: { kind: "a" } })))
  })

  it("checks refinements, tuples and recursion", () => {
    assert.isFalse(compile(schemas.refined.ast)({ low: 2, high: 1 }))
    const tuple = compile(schemas.tuple.ast)
    assert.isTrue(tuple(["a"]))
    assert.isTrue(tuple(["a", 1, true, false]))
    assert.isFalse(tuple([]))
    assert.isFalse(tuple(["a", "1"]))
    assert.isFalse(tuple(["a", 1, "x"]))
    assert.isFalse(compile(Tree.ast)({ name: "r", children: [{ name: "c", children: [{ name: 1, children: [] }] }] }))
  })

  it("follows a recursive schema at most Json.maxDepth levels: deeper values are left to the decoder, never a stack overflow", () => {
    const tree = (depth: number): Tree => {
      let node: Tree = { name: "leaf", children: [] }
      for (let i = 1; i < depth; i++) node = { name: "n", children: [node] }
      return node
    }
    const accepts = compile(Tree.ast)
    // The root is checked by the struct itself; each level below it through one suspension.
    assert.isTrue(accepts(tree(Json.maxDepth + 1)))
    assert.isFalse(accepts(tree(Json.maxDepth + 2)))
    assert.isFalse(accepts(tree(20_000)))
    assert.isTrue(accepts(tree(3)), "the depth count is released after a refusal")
  })

  it("leaves records keyed by template literals to the decoder", () => {
    const schema = Schema.Record({ key: Schema.TemplateLiteral("x-", Schema.String), value: Schema.Number })
    assert.isFalse(decodes(schema, { "x-a": "not a number" }))
    assert.isFalse(compile(schema.ast)({ "x-a": "not a number" }))
  })

  it("leaves transformations to the decoder", () => {
    const schema = Schema.Struct({ n: Schema.NumberFromString })
    assert.isTrue(decodes(schema, { n: "1" }))
    assert.isFalse(compile(schema.ast)({ n: "1" }))
  })
})
