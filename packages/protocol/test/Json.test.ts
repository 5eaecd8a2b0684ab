import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck, Schema } from "effect"
import { fastestMs, scaled, timeRatio } from "../../../test/support/load.js"
import * as Decoder from "../src/Decoder.js"
import * as Json from "../src/Json.js"

const parse = (text: string) => Either.getOrThrow(Json.parse(text))

const members = (n: number) => Array.from({ length: n }, (_, i) => `"k${i}":${i}`).join(",")
const elements = (n: number) => Array.from({ length: n }, (_, i) => `{"v":${i}}`).join(",")

/** `depth` arrays nested in each other around `inner`. */
const nestedText = (depth: number, inner = "") => "[".repeat(depth) + inner + "]".repeat(depth)
const nestedValue = (depth: number): Array<Json.JsonValue> => {
  const root: Array<Json.JsonValue> = []
  let current = root
  for (let i = 1; i < depth; i++) {
    const next: Array<Json.JsonValue> = []
    current.push(next)
    current = next
  }
  return root
}

const digits = (minLength: number, maxLength: number) =>
  FastCheck.array(FastCheck.constantFrom(..."0123456789"), { minLength, maxLength }).map((d) => d.join(""))

/** The exact decimal value of a number literal, normalised: equal strings mean equal values. */
const exactValue = (literal: string): string => {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(literal)
  if (match === null) throw new Error(`not a number literal: ${literal}`)
  const fraction = match[3] ?? ""
  let mantissa = BigInt(match[2]! + fraction)
  let exponent = BigInt(match[4] ?? "0") - BigInt(fraction.length)
  if (mantissa === 0n) return "0"
  while (mantissa % 10n === 0n) {
    mantissa /= 10n
    exponent += 1n
  }
  return `${match[1]}${mantissa}e${exponent}`
}

describe("Json: time linear in the text", () => {
  /**
   * One pass over a text 16× larger against sixteen passes over the smaller one: the same
   * number of bytes, so a few × at most when linear (memory effects of large objects, which
   * `JSON.parse` shows too, more so on a loaded machine) and 16× when quadratic. A single pass
   * over the smaller text is bounded first (150 ms scaled by the load factor: a quadratic
   * parser takes far longer), so a super-linear implementation fails in seconds, not minutes.
   */
  const assertLinear = (label: string, make: (n: number) => string, f: (text: string) => unknown) => {
    const small = make(3_000)
    const large = make(48_000)
    f(make(500))
    assert.isBelow(fastestMs(() => f(small), 1), scaled(150), `${label}: 3 000 members within 150 ms (scaled)`)
    const ratio = timeRatio(() => {
      for (let i = 0; i < 16; i++) f(small)
    }, () => f(large))
    // linear: a few ×, the large value's collections included; quadratic: 16 and more
    assert.isBelow(ratio, 12, `${label}: one pass over 16× the members takes ${ratio.toFixed(2)}× sixteen passes`)
  }
  const object = (n: number) => `{"big":1e400,"id":123456789012345678901,${members(n)}}`
  const array = (n: number) => `[1e-400,${elements(n)}]`

  it("parsing stays linear with numbers beyond exact precision next to many members", () => {
    assertLinear("object", object, Json.parse)
    assertLinear("array", array, Json.parse)
    assert.strictEqual(Json.stringify(parse(object(100))), object(100))
  }, scaled(120_000))

  it("writing stays linear with numbers beyond exact precision next to many members", () => {
    const value = new Map([3_000, 48_000, 500].map((n) => [n, parse(object(n))]))
    assertLinear("object", (n) => String(n), (n) => Json.stringify(value.get(Number(n))))
  }, scaled(120_000))
})

describe("Json: bounded nesting", () => {
  it("reads up to maxDepth levels and refuses one more, with its position", () => {
    assert.strictEqual(Json.maxDepth, 512)
    assert.isTrue(Either.isRight(Json.parse(nestedText(512, "1"))))
    assert.isTrue(Either.isRight(Json.parse(`{"a":${nestedText(511)}}`)))
    for (
      const text of [
        nestedText(513),
        `{"a":${nestedText(512)}}`,
        nestedText(513, "1e400"),
        nestedText(600, "9007199254740993")
      ]
    ) {
      const result = Json.parse(text)
      assert.isTrue(Either.isLeft(result), text.slice(0, 20))
      if (Either.isLeft(result)) {
        assert.strictEqual(result.left.reason, "depth")
        assert.match(result.left.message, /^JSON nested deeper than 512 levels at line 1 column \d+$/)
      }
    }
  })

  it("refuses very deep text before building it, through every parser path", () => {
    for (
      const text of [
        nestedText(1_000_000),
        nestedText(1_000_000, "123456789012345678901"),
        "{\"a\":".repeat(20_000) + "1" + "}".repeat(20_000)
      ]
    ) {
      const start = performance.now()
      const result = Json.parse(text)
      assert.isTrue(Either.isLeft(result) && result.left.reason === "depth")
      assert.isBelow(performance.now() - start, scaled(500))
    }
    const bytes = new TextEncoder().encode(nestedText(10_000))
    assert.isTrue(Either.isLeft(Json.parseBytes(bytes)))
  })

  it("a syntax error before the nesting limit is reported as such", () => {
    const result = Json.parse(`[[[}${nestedText(600)}`)
    assert.isTrue(Either.isLeft(result) && result.left.reason === "syntax")
  })

  it("writes up to maxDepth levels; deeper and cyclic values are an encode error, not a stack overflow", () => {
    assert.strictEqual(Either.getOrThrow(Json.encode(nestedValue(512))), nestedText(512))
    const cyclic: Record<string, unknown> = { a: 1 }
    cyclic.self = cyclic
    for (const value of [nestedValue(513), nestedValue(10_000), cyclic, { tool: { input: nestedValue(600) } }]) {
      const result = Json.encode(value)
      assert.isTrue(Either.isLeft(result) && result.left.reason === "depth")
      assert.throws(() => Json.stringify(value))
      assert.isTrue(Either.isLeft(Json.copy(value)))
    }
  })

  it("checks, compares and clones deep or cyclic values without recursion", () => {
    const deep = nestedValue(10_000)
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    assert.isFalse(Json.isJsonValue(deep))
    assert.isFalse(Json.isJsonValue(cyclic))
    assert.isTrue(Json.isJsonValue(nestedValue(512)))
    assert.isTrue(Json.exceedsDepth(deep, 512))
    assert.isTrue(Json.exceedsDepth(cyclic, 512))
    assert.isFalse(Json.exceedsDepth(nestedValue(512), 512))
    assert.isTrue(Json.exceedsDepth(nestedValue(513), 512))
    assert.isFalse(Json.equals(deep, nestedValue(10_000)))
    assert.isTrue(Json.equals(nestedValue(500), nestedValue(500)))
    assert.isFalse(Json.equals(nestedValue(500), nestedValue(501)))
    const cloned = Json.clone(deep)
    assert.notStrictEqual(cloned, deep)
    assert.isTrue(Json.exceedsDepth(cloned, 9_999))
    assert.isFalse(Json.exceedsDepth(cloned, 10_000))
    assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(Json.Value)(deep)))
    assert.isTrue(Either.isLeft(Schema.decodeUnknownEither(Json.AnyObject)({ a: deep })))
  })

  it("checks a value whose getter checks another value while it is being walked", () => {
    // The walks share one stack; a walk started inside another (here from a getter read
    // as its object is entered) must leave the outer walk's values alone.
    const inner: Array<boolean> = []
    const outer = {
      x: [1, { y: 2 }],
      get g() {
        inner.push(Json.isJsonValue({ z: [Number.NaN] }), Json.exceedsDepth(nestedValue(3), 2))
        return { e: [true, null] }
      }
    }
    assert.isTrue(Json.isJsonValue(outer))
    assert.deepStrictEqual(inner, [false, true])
    assert.strictEqual(Either.getOrThrow(Json.encode(outer)), `{"x":[1,{"y":2}],"g":{"e":[true,null]}}`)
    assert.isFalse(Json.isJsonValue({ ...outer, x: [1, { y: Number.NaN }] }))
  })

  it("finds __proto__ members of a wide or deep value in linear time, without recursion", () => {
    const wide = parse(
      `{${Array.from({ length: 20_000 }, (_, i) => `"m${i}":{"__proto__":{"__proto__":1}}`).join(",")}}`
    )
    const start = performance.now()
    const lost = Decoder.lostProtoMembers(wide, {})
    assert.strictEqual(lost.length, 20_000)
    assert.strictEqual(lost[0]!.path, "/m0/__proto__")
    assert.isBelow(performance.now() - start, scaled(2_000))
    const deep = parse(`${"{\"a\":".repeat(500)}{"__proto__":1}${"}".repeat(500)}`)
    assert.deepStrictEqual(Decoder.lostProtoMembers(deep, {}).map((issue) => issue.path), [
      `${"/a".repeat(500)}/__proto__`
    ])
    assert.deepStrictEqual(Decoder.lostProtoMembers(deep, deep), [])
    assert.deepStrictEqual(Decoder.lostProtoMembers(nestedValue(10_000), {}), [])
  })
})

describe("Json: lossless numbers", () => {
  it("keeps every literal a double cannot stand for, and only those", () => {
    const kept = [
      "1e-400",
      "-1e-400",
      "0.1000000000000000000000000000000001",
      "1180591620717411303424",
      "9007199254740993",
      "12345678.123456789",
      "1e400",
      "2e-324",
      "0.30000000000000000444"
    ]
    const plain: ReadonlyArray<readonly [string, number]> = [
      ["0.1", 0.1],
      ["1e-7", 1e-7],
      ["3.14", 3.14],
      ["1.50", 1.5],
      ["1E2", 100],
      ["-0", -0],
      ["9007199254740992", 2 ** 53],
      ["100000000000000000000", 1e20],
      ["1e21", 1e21],
      ["5e-324", 5e-324],
      ["0.30000000000000004", 0.1 + 0.2],
      ["1.7976931348623157e308", Number.MAX_VALUE]
    ]
    for (const literal of kept) {
      const value = parse(`{"n":[${literal}]}`) as { n: [unknown] }
      assert.instanceOf(value.n[0], Json.LosslessNumber, literal)
      assert.strictEqual(Json.stringify(value), `{"n":[${literal}]}`)
    }
    for (const [literal, number] of plain) {
      assert.strictEqual((parse(`[${literal}]`) as [unknown])[0], number, literal)
    }
  })

  it("integers are integers however they are written", () => {
    assert.isTrue(new Json.LosslessNumber("1e400").isInteger)
    assert.isTrue(new Json.LosslessNumber("1180591620717411303424.000").isInteger)
    assert.isTrue(new Json.LosslessNumber("-123456789012345678901").isInteger)
    assert.isFalse(new Json.LosslessNumber("1e-400").isInteger)
    assert.isFalse(new Json.LosslessNumber("0.1000000000000000000000000000000001").isInteger)
  })

  it("equal values are equal however they are written", () => {
    assert.isTrue(Json.equals(parse("[1e400]"), parse("[10e399]")))
    assert.isTrue(Json.equals(parse("[1180591620717411303424]"), parse("[1.180591620717411303424e21]")))
    assert.isFalse(Json.equals(parse("[1e400]"), parse("[1e401]")))
    assert.isFalse(Json.equals(parse("[1e-400]"), [0]))
  })

  it("exponents of any length compare exactly, in time linear in the literal", () => {
    const same = (a: string, b: string) => Json.sameNumber(new Json.LosslessNumber(a), new Json.LosslessNumber(b))
    assert.isTrue(same("1e100000000000000000000", "10e99999999999999999999"))
    assert.isTrue(same("1e100000000000000000000", "0.001e100000000000000000003"))
    assert.isTrue(same("1e-100000000000000000000", "100e-100000000000000000002"))
    assert.isTrue(same("1e-999999999999999999999", "0.1e-999999999999999999998"))
    assert.isFalse(same("1e-100000000000000000000", "1e-100000000000000000001"))
    assert.isTrue(same("0e99999999999999999999", "0.0"))
    const exponent = "9".repeat(4_000_000)
    const start = performance.now()
    const tiny = parse(`[1e-${exponent},0.${"0".repeat(1_000_000)}1e${"0".repeat(20)}1000001]`) as [unknown, unknown]
    assert.instanceOf(tiny[0], Json.LosslessNumber)
    assert.strictEqual(tiny[1], 1, "0.(1 000 000 zeros)1e1000001 is exactly 1")
    assert.isFalse(same(`1e-${exponent}`, `10e-${exponent}`))
    assert.isTrue(same(`1e-${exponent}`, `10e-1${"0".repeat(exponent.length)}`))
    // a quadratic comparison of 4 million digits would take hours
    assert.isBelow(performance.now() - start, scaled(8_000))
  })

  const bigExponent = FastCheck.tuple(FastCheck.constantFrom("", "-"), digits(16, 30).map((d) => `1${d}`))

  it.prop("spellings of one number with a long exponent are the same number, and only those", [
    digits(1, 20).map((d) => `1${d}`),
    bigExponent,
    FastCheck.integer({ min: -30, max: 30 }),
    FastCheck.integer({ min: -3, max: 3 })
  ], ([mantissa, [sign, exponent], move, off]) => {
    const literal = `${mantissa}e${sign}${exponent}`
    // The same digits with the decimal point moved `move` places, the exponent moved back.
    const exponentValue = BigInt(`${sign}${exponent}`)
    const moved = move >= 0
      ? `${mantissa}${"0".repeat(move)}e${exponentValue - BigInt(move) + BigInt(off)}`
      : `0.${"0".repeat(-move)}${mantissa}e${exponentValue + BigInt(mantissa.length - move) + BigInt(off)}`
    assert.strictEqual(exactValue(literal) === exactValue(moved), off === 0, `${literal} ~ ${moved}`)
    assert.strictEqual(Json.sameNumber(new Json.LosslessNumber(literal), new Json.LosslessNumber(moved)), off === 0)
  })

  it("a copy, a clone and the JSON text keep every literal", () => {
    const text = `{"a":[1e-400,0.1000000000000000000000000000000001,1180591620717411303424,2.5],"b":{"c":1e400}}`
    const value = parse(text)
    assert.strictEqual(Json.stringify(Either.getOrThrow(Json.copy(value))), text)
    assert.strictEqual(Json.stringify(Json.clone(value)), text)
    assert.strictEqual(
      Json.stringify(parse(`{"a":[1e-400,{}],"b":1e400}`), 2),
      `{\n  "a": [\n    1e-400,\n    {}\n  ],\n  "b": 1e400\n}`
    )
  })

  const literal = FastCheck.oneof(
    FastCheck.tuple(
      FastCheck.constantFrom("", "-"),
      FastCheck.oneof(
        FastCheck.constant("0"),
        FastCheck.tuple(FastCheck.constantFrom(..."123456789"), digits(0, 40)).map(([a, b]) => a + b)
      ),
      FastCheck.option(digits(1, 40), { nil: undefined }),
      FastCheck.option(
        FastCheck.tuple(FastCheck.constantFrom("e", "E"), FastCheck.constantFrom("", "+", "-"), digits(1, 4)),
        { nil: undefined }
      )
    ).map(([sign, int, fraction, exponent]) =>
      `${sign}${int}${fraction === undefined ? "" : `.${fraction}`}${exponent === undefined ? "" : exponent.join("")}`
    ),
    FastCheck.double({ noNaN: true, noDefaultInfinity: true }).map(String),
    FastCheck.bigInt({ min: -(2n ** 80n), max: 2n ** 80n }).map(String),
    FastCheck.integer({ min: 0, max: 1100 }).map((k) => (2n ** BigInt(k)).toString())
  )

  it.prop("parse → stringify → parse keeps the exact value of any number literal", [literal], ([text]) => {
    const value = (parse(`[${text}]`) as [unknown])[0]
    const written = Json.stringify(value)
    assert.strictEqual(exactValue(written), exactValue(text), `${text} written as ${written}`)
    if (value instanceof Json.LosslessNumber) assert.strictEqual(value.source, text)
    else assert.strictEqual(typeof value, "number")
    assert.strictEqual(Json.stringify((parse(`[${written}]`) as [unknown])[0]), written)
  }, { fastCheck: { numRuns: 1_000 } })

  it.prop(
    "ordinary literals stay JavaScript numbers",
    [FastCheck.double({ noNaN: true, noDefaultInfinity: true })],
    ([n]) => {
      assert.strictEqual(
        typeof (parse(`[${JSON.stringify(n)}]`) as [unknown])[0],
        "number",
        "any number JavaScript writes"
      )
      if (n === 0 || (Math.abs(n) >= 1e-300 && Math.abs(n) <= 1e300)) {
        assert.strictEqual(typeof (parse(`[${n.toPrecision(15)}]`) as [unknown])[0], "number", "15 significant digits")
      }
    }
  )
})

describe("Json.encode", () => {
  it("writes what JSON.stringify writes for plain and toJSON values, compact and indented", () => {
    const value = { a: [1, { b: [] }, {}, undefined, () => 1], c: "x\u2028\"", d: undefined, e: new Date(0), f: -0 }
    for (const space of [undefined, 2]) {
      assert.strictEqual(Either.getOrThrow(Json.encode(value, space)), JSON.stringify(value, null, space))
      const withLossless = { ...value, n: new Json.LosslessNumber("1e400") }
      assert.strictEqual(
        Either.getOrThrow(Json.encode(withLossless, space)),
        JSON.stringify({ ...value, n: "@" }, null, space).replace("\"@\"", "1e400")
      )
    }
  })

  it("refuses what is not JSON instead of throwing or writing null", () => {
    for (
      const value of [Number.NaN, { n: Infinity }, [1n], undefined, {
        toJSON: () => {
          throw new Error("no")
        }
      }]
    ) {
      const result = Json.encode(value)
      assert.isTrue(Either.isLeft(result) && result.left.reason === "value", String(value))
    }
  })
})

/** Every array and object in a value (the walk stops at a depth no test value reaches). */
const containers = (value: unknown, into = new Set<object>()): Set<object> => {
  if (typeof value === "object" && value !== null && !(value instanceof Json.LosslessNumber) && !into.has(value)) {
    into.add(value)
    for (const member of Object.values(value)) containers(member, into)
  }
  return into
}

describe("Json.copy", () => {
  /** What `copy` must equal: the value read back from its JSON text. */
  const throughText = (value: unknown) => Either.flatMap(Json.encode(value), Json.parse)

  const same = (value: unknown) => {
    const copied = Json.copy(value)
    const expected = throughText(value)
    assert.strictEqual(Either.isRight(copied), Either.isRight(expected))
    if (Either.isRight(copied) && Either.isRight(expected)) {
      assert.deepStrictEqual(copied.right, expected.right)
      const shared = [...containers(copied.right)].filter((c) => containers(value).has(c))
      assert.strictEqual(shared.length, 0)
    }
  }

  it("equals the value read back from its JSON text, sharing nothing, whatever the value", () => {
    FastCheck.assert(
      FastCheck.property(
        FastCheck.oneof(
          FastCheck.jsonValue(),
          FastCheck.anything({ withNullPrototype: true, withSparseArray: true, withDate: true, maxDepth: 4 })
        ),
        same
      ),
      { numRuns: 500 }
    )
  })

  it("reads back what plain JSON would not keep: -0, a plain LosslessNumber, undefined members, toJSON, own __proto__", () => {
    const ownProto = JSON.parse(`{"__proto__":{"a":1},"b":[1,{"__proto__":2}]}`)
    for (
      const value of [
        -0,
        { a: [-0, 1] },
        new Json.LosslessNumber("1"),
        { n: new Json.LosslessNumber("1e400") },
        { a: undefined, b: [undefined, 1] },
        { at: new Date(0) },
        { toJSON: () => "x" },
        ownProto
      ]
    ) same(value)
    assert.deepStrictEqual(Object.keys(Either.getOrThrow(Json.copy(ownProto)) as object), ["__proto__", "b"])
  })

  it("a getter that throws is an encode error, not an exception", () => {
    const value = {
      get broken(): number {
        throw new Error("no")
      }
    }
    const result = Json.copy(value)
    assert.isTrue(Either.isLeft(result) && Json.isJsonEncodeError(result.left))
  })
})
