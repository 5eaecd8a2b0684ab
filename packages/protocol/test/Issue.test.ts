import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import * as Content from "../src/Content.js"
import * as Decoder from "../src/Decoder.js"
import * as Event from "../src/Event.js"
import * as Json from "../src/Json.js"
import * as Registration from "../src/Registration.js"
import * as Wire from "../src/Wire.js"

const decodeEvent = Decoder.make(Event.Event)
const parse = (text: string) => Either.getOrThrow(Json.parse(text))

const toolBefore = (extra: string) =>
  `{"id":"evt_1","source":"urn:test:harness","time":"2026-08-24T08:51:14Z","type":"tool.before",` +
  `"call":{"id":"call_1"},"path":"native",${extra}}`

describe("__proto__ members", () => {
  it("are kept inside free-form JSON (tool input), as own members", () => {
    const decoded = decodeEvent(
      parse(toolBefore(`"tool":{"name":"t","origin":"native","input":{"__proto__":{"x":1}}}`))
    )
    assert.isTrue(Either.isRight(decoded))
    const input = (Either.getOrThrow(decoded) as any).tool.input
    assert.isTrue(Object.prototype.hasOwnProperty.call(input, "__proto__"))
    assert.deepStrictEqual(Object.getPrototypeOf(input), Object.prototype)
    assert.strictEqual(Json.stringify(input), `{"__proto__":{"x":1}}`)
  })

  it("are an error at their path on an open envelope (never dropped, never a prototype)", () => {
    const decoded = decodeEvent(
      parse(toolBefore(`"tool":{"name":"t","origin":"native","input":{}},"__proto__":{"tool":{"name":"evil"}}`))
    )
    assert.deepStrictEqual(Either.isLeft(decoded) ? decoded.left : [], [
      { path: "/__proto__", message: `the member name "__proto__" is not accepted here` }
    ])
  })

  it("are an error in records (event counters, content selections)", () => {
    const end = parse(
      `{"id":"e","source":"urn:x","time":"2026-08-24T08:51:14Z","type":"session.end","session":{"id":"s"},` +
        `"outcome":"completed","reason":"done","counters":{"__proto__":1,"turns":2}}`
    )
    const decoded = decodeEvent(end)
    assert.isTrue(Either.isLeft(decoded))
    assert.isTrue(Either.isLeft(decoded) && decoded.left.some((issue) => issue.path.startsWith("/counters")))
    const registration = parse(
      `{"protocolVersion":"draft","hooks":[{"id":"com.example.b","transport":{"type":"stdio","command":"x","lifecycle":"persistent"},` +
        `"subscriptions":[{"events":["tool.before"],"mode":"observe","content":{"default":"body","__proto__":"omit"}}]}]}`
    )
    const result = Decoder.make(Registration.Registration)(registration)
    assert.isTrue(Either.isLeft(result) && result.left.some((issue) => issue.path.includes("content")))
  })

  it("lostProtoMembers reports only the outermost lost member", () => {
    const input = parse(`{"a":{"__proto__":{"__proto__":{}}}}`)
    assert.deepStrictEqual(Decoder.lostProtoMembers(input, { a: {} }), [
      { path: "/a/__proto__", message: `the member name "__proto__" is not accepted here` }
    ])
    assert.deepStrictEqual(Decoder.lostProtoMembers(input, input), [])
  })
})

describe("hostile values", () => {
  const event = JSON.parse(toolBefore(`"tool":{"name":"t","origin":"native","input":{}}`))
  const hostile = {
    ...event,
    items: [{ id: "p", kind: Object.create(null), mediaType: "text/plain", selection: "omit" }]
  }

  it("are an issue or a parse error, never a thrown error", () => {
    const issue = { path: "", message: "holds a value that cannot be read as JSON (an object without a string form)" }
    assert.deepStrictEqual(decodeEvent(hostile), Either.left([issue]))
    assert.deepStrictEqual(Decoder.validator(Event.Event)(hostile), [issue])
    assert.deepStrictEqual(Decoder.validator(Event.Event)(event), [])
    const decoded = Decoder.acceptOrDecode(Event.Event)(hostile)
    assert.isTrue(Either.isLeft(decoded))
    assert.isTrue(Either.isRight(Decoder.acceptOrDecode(Event.Event)(event)))
  })
})

describe("Decoder.lazy", () => {
  it("compiles on the first call, once, and answers as the function it builds", () => {
    let builds = 0
    const isMessages = Decoder.lazy(() => {
      builds++
      return Schema.is(Content.Messages)
    })
    assert.strictEqual(builds, 0, "nothing is compiled before the first call")
    const message = {
      id: "m",
      role: "user",
      parts: [{ id: "p", kind: "text", mediaType: "text/plain", selection: "body", text: "hi" }]
    }
    assert.isTrue(isMessages([message]))
    assert.isFalse(isMessages([{ ...message, role: "robot" }]))
    assert.isFalse(isMessages("not a list"))
    assert.strictEqual(builds, 1)
    const decode = Decoder.lazy(() => Decoder.make(Content.Messages))
    assert.deepStrictEqual(decode([message]), Decoder.make(Content.Messages)([message]))
    assert.deepStrictEqual(
      Either.getLeft(decode([{ ...message, role: "robot" }])),
      Either.getLeft(Decoder.make(Content.Messages)([{ ...message, role: "robot" }]))
    )
  })

  it("Wire.validate, whose decoders are built on first use, gives each kind the verdict of its decoder", () => {
    const valid = { jsonrpc: "2.0", id: 1, method: "hooks/capabilities", params: { protocolVersion: "draft" } }
    for (const value of [valid, { ...valid, jsonrpc: "1.0" }, { ...valid, id: [] }]) {
      const verdict = Wire.validate(value, "capabilities-request")
      const decoded = Decoder.make(Wire.schemaOf("capabilities-request"))(value)
      assert.deepStrictEqual(verdict, {
        kind: "capabilities-request",
        issues: Either.isLeft(decoded) ? decoded.left : []
      })
    }
    assert.isAbove(Wire.validate({ ...valid, jsonrpc: "1.0" }, "capabilities-request").issues.length, 0)
  })
})
