import {
  Capabilities,
  Content,
  Discovery,
  Event,
  HookEffect,
  Intercept,
  Json,
  JsonRpc,
  Observe,
  Registration,
  Upload,
  Wire
} from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"

const kinds: ReadonlyArray<readonly [string, Schema.Schema<any, any>]> = [
  ["registration", Registration.Registration],
  ["intercept-request", Intercept.Request],
  ["intercept-response", Intercept.Response],
  ["intercept-deny-response", Intercept.DenyResponse],
  ["intercept-no-effect-response", Intercept.NoEffectResponse],
  ["observe-notification", Observe.Notification],
  ["capabilities-request", Discovery.Request],
  ["capabilities-response", Discovery.Response],
  ["json-rpc-message", JsonRpc.Message],
  ["message", Wire.Message],
  ["effect", HookEffect.HookEffect],
  ["capabilities", Capabilities.Capabilities],
  ["canonical message", Content.Message],
  ["upload receipt", Upload.Receipt]
]

describe("round trip: Arbitrary value → encode → JSON text → decode is unchanged", () => {
  for (const [name, schema] of kinds) {
    const encode = Schema.encodeSync(schema)
    const decode = Schema.decodeUnknownSync(schema, { onExcessProperty: "preserve" })
    it.prop(name, [schema], ([value]) => {
      const text = Json.stringify(encode(value))
      const back = decode(Either.getOrThrow(Json.parse(text)))
      assert.deepStrictEqual(back, value)
      assert.strictEqual(Json.stringify(encode(back)), text)
    }, { fastCheck: { numRuns: 40 } })
  }
})

describe("Json", () => {
  it("keeps integers beyond 2^53 exactly, in and out", () => {
    const text =
      `{"id":9007199254740993,"n":[123456789012345678901234567890,-9007199254740993,1e400,2.5],"s":"9007199254740993"}`
    const value = Either.getOrThrow(Json.parse(text))
    assert.strictEqual(Json.stringify(value), text)
    assert.instanceOf((value as any).id, Json.LosslessNumber)
    assert.strictEqual((value as any).s, "9007199254740993")
  })

  it("copy is a deep, exact copy: lossless numbers, own __proto__ members, nothing shared", () => {
    const value = Either.getOrThrow(Json.parse(`{"big":9007199254740993,"n":[1.5,-0,1e-7],"__proto__":{"x":[{}]}}`))
    const copied = Either.getOrThrow(Json.copy(value))
    assert.strictEqual(Json.stringify(copied), Json.stringify(value))
    assert.instanceOf((copied as any).big, Json.LosslessNumber)
    assert.isTrue(Object.prototype.hasOwnProperty.call(copied, "__proto__"))
    assert.notStrictEqual((copied as any)["__proto__"], (value as any)["__proto__"])
    assert.notStrictEqual((copied as any).n, (value as any).n)
  })

  it.prop("copy of any JSON value is equal to it and shares no object", [Json.arbitrary], ([value]) => {
    const copied = Either.getOrThrow(Json.copy(value))
    assert.isTrue(Json.equals(copied, value))
    if (typeof value === "object" && value !== null && !(value instanceof Json.LosslessNumber)) {
      assert.notStrictEqual(copied, value)
    }
  })

  it.prop("clone of any JSON value equals its JSON round trip and shares no object", [Json.arbitrary], ([value]) => {
    const cloned = Json.clone(value)
    assert.strictEqual(Json.stringify(cloned), Json.stringify(Either.getOrThrow(Json.copy(value))))
    const objects = (v: unknown, out: Set<unknown>): Set<unknown> => {
      if (typeof v === "object" && v !== null && !(v instanceof Json.LosslessNumber)) {
        out.add(v)
        for (const member of Object.values(v)) objects(member, out)
      }
      return out
    }
    const shared = [...objects(cloned, new Set())].filter((o) => objects(value, new Set()).has(o))
    assert.deepStrictEqual(shared, [])
  })

  it("clone leaves out undefined members, as JSON does, and keeps own __proto__ members", () => {
    const value = Either.getOrThrow(Json.parse(`{"a":{"__proto__":{"x":1}},"n":9007199254740993}`)) as Json.JsonObject
    const cloned = Json.clone({ ...value, gone: undefined } as unknown as Json.JsonObject)
    assert.strictEqual(Json.stringify(cloned), `{"a":{"__proto__":{"x":1}},"n":9007199254740993}`)
    assert.isFalse("gone" in cloned)
    assert.isTrue(Object.prototype.hasOwnProperty.call(cloned.a, "__proto__"))
    assert.strictEqual(Object.getPrototypeOf(cloned.a), Object.prototype)
  })

  it("integers of any size are valid integers, kept exactly; a fraction is not an integer", () => {
    const subscription = (timeoutMs: string) =>
      `{"events":["tool.before"],"mode":"intercept","timeoutMs":${timeoutMs},"failurePolicy":"fail-open","content":{"default":"body"}}`
    const text = (timeoutMs: string) =>
      `{"protocolVersion":"draft","hooks":[{"id":"com.example.a","transport":{"type":"stdio","command":"x","lifecycle":"persistent"},"subscriptions":[${
        subscription(timeoutMs)
      }]}]}`
    assert.deepStrictEqual(Wire.validateText(text("90071992547409931"), { framing: "json" }).issues, [])
    assert.strictEqual(
      Json.stringify(Either.getOrThrow(Json.parse(text("90071992547409931")))),
      text("90071992547409931")
    )
    assert.deepStrictEqual(
      Wire.validateText(text("-90071992547409931"), { framing: "json" }).issues.map((i) => i.path),
      ["/hooks/0/subscriptions/0/timeoutMs"]
    )
    assert.deepStrictEqual(Wire.validateText(text("1.5"), { framing: "json" }).issues, [
      { path: "/hooks/0/subscriptions/0/timeoutMs", message: "must be an integer", code: "invalid-timeout" }
    ])
  })

  it("a JSON-RPC id beyond 2^53 is kept exactly", () => {
    const text = `{"jsonrpc":"2.0","id":9007199254740993,"method":"hooks/other","params":{}}`
    assert.deepStrictEqual(Wire.validateText(text, { framing: "json", kind: "json-rpc-message" }).issues, [])
  })

  it("reports syntax errors with a line and column, without echoing the input", () => {
    const result = Json.parse(`{\n  "token": "s3cr3t",\n  oops\n}`)
    assert.isTrue(Either.isLeft(result))
    const message = Either.isLeft(result) ? result.left.message : ""
    assert.match(message, /line 3 column 3/)
    assert.notInclude(message, "s3cr3t")
  })

  it("rejects invalid UTF-8 bytes", () => {
    assert.isTrue(Either.isLeft(Json.parseBytes(new Uint8Array([0x7b, 0x22, 0xff, 0x22, 0x3a, 0x31, 0x7d]))))
  })

  it("never turns __proto__ into a prototype", () => {
    const value = Either.getOrThrow(Json.parse(`{"__proto__":{"polluted":1},"n":90071992547409931}`)) as any
    assert.strictEqual(({} as any).polluted, undefined)
    assert.deepStrictEqual(Object.keys(value), ["__proto__", "n"])
  })
})

describe("Wire.validateText", () => {
  const request = {
    jsonrpc: "2.0",
    id: "evt_1",
    method: "hooks/intercept",
    params: {
      protocolVersion: "draft",
      event: {
        id: "evt_1",
        source: "urn:x",
        type: "tool.before",
        time: "2026-08-24T08:51:14Z",
        tool: { name: "Bash", input: {}, origin: "native" },
        call: { id: "c" },
        path: "native",
        extra: 1
      },
      capabilities: { effects: ["deny"] }
    }
  }
  const issues = (value: unknown, kind?: Wire.Kind) =>
    Wire.validateText(JSON.stringify(value), { framing: "json", kind }).issues

  it("infers the kind and accepts unknown envelope members", () => {
    assert.deepStrictEqual(Wire.validateText(JSON.stringify(request), { framing: "json" }), {
      kinds: ["intercept-request"],
      issues: []
    })
  })

  it("checks the request id against the event id", () => {
    assert.deepStrictEqual(issues({ ...request, id: "evt_2" }), [{
      path: "/id",
      message: "the request id must equal params.event.id"
    }])
  })

  it("rejects capabilities beyond the event's bounds", () => {
    const wide = {
      ...request,
      params: {
        ...request.params,
        capabilities: {
          effects: ["deny", "flow"],
          flow: { operations: ["continue"], remainingContinuations: 1, continuationCount: 0 }
        }
      }
    }
    assert.deepStrictEqual(issues(wide).map((i) => i.path), ["/params/capabilities/flow/operations/0"])
  })

  it("reports every problem of a hostile response with its path", () => {
    const response = {
      jsonrpc: "2.0",
      id: "evt_1",
      result: {
        protocolVersion: "v1",
        effects: [{ type: "deny" }, { type: "allow", sneaky: true }, { type: "flow", operation: "stop" }, "deny", {
          type: "modify",
          target: "output",
          operation: "merge",
          value: {}
        }]
      }
    }
    assert.deepStrictEqual(issues(response).map((i) => i.path).sort(), [
      "/result/effects/0/reason",
      "/result/effects/1/sneaky",
      "/result/effects/2/reason",
      "/result/effects/3",
      "/result/effects/4/value",
      "/result/protocolVersion"
    ])
  })

  it("a non-object effects member is invalid", () => {
    assert.deepStrictEqual(
      issues({
        jsonrpc: "2.0",
        id: "evt_1",
        result: { protocolVersion: "draft", effects: { type: "deny", reason: "x" } }
      }, "intercept-response").map((i) => i.path),
      ["/result/effects"]
    )
  })

  it("rejects batches and non-objects", () => {
    assert.match(issues([request])[0]!.message, /batch/)
    assert.match(issues("hello")[0]!.message, /expected a JSON object/)
  })

  it("JSON Lines: one complete message per line", () => {
    const line = JSON.stringify(request)
    assert.deepStrictEqual(Wire.validateText(`${line}\n${line}\n`, { framing: "jsonl" }).issues, [])
    const split = Wire.validateText(JSON.stringify(request, null, 2), { framing: "jsonl" })
    assert.strictEqual(split.issues.length, 1)
    assert.match(split.issues[0]!.message, /split over \d+ lines/)
    const broken = Wire.validateText(`${line}\n{"jsonrpc":\n\n${line}`, { framing: "jsonl" })
    assert.deepStrictEqual(broken.issues.map((i) => i.path), ["/1", "/2"])
  })

  it("a notification must not carry an id, and observe needs an event", () => {
    const observe = { jsonrpc: "2.0", id: 1, method: "hooks/observe", params: { protocolVersion: "draft" } }
    assert.deepStrictEqual(issues(observe).map((i) => i.path).sort(), ["/id", "/params/event"])
  })

  it("infers the most specific response kind", () => {
    assert.strictEqual(
      Wire.inferKind({ jsonrpc: "2.0", id: 1, result: { effects: [] } }),
      "intercept-no-effect-response"
    )
    assert.strictEqual(
      Wire.inferKind({ jsonrpc: "2.0", id: 1, result: { effects: [{ type: "deny" }] } }),
      "intercept-deny-response"
    )
    assert.strictEqual(
      Wire.inferKind({ jsonrpc: "2.0", id: 1, result: { effects: [{ type: "ask" }] } }),
      "intercept-response"
    )
    assert.strictEqual(Wire.inferKind({ jsonrpc: "2.0", id: 1, result: { manifest: {} } }), "capabilities-response")
    assert.strictEqual(Wire.inferKind({ protocolVersion: "draft", hooks: [] }), "registration")
    assert.strictEqual(Wire.inferKind({ jsonrpc: "2.0", id: 1, error: { code: 1, message: "x" } }), "message")
  })
})

describe("effects are closed", () => {
  const decode = Schema.decodeUnknownEither(HookEffect.HookEffect, { onExcessProperty: "preserve" })
  it("an unknown effect member is an error even when decoding preserves unknown members", () => {
    assert.isTrue(Either.isLeft(decode({ type: "allow", why: "because" })))
    assert.isTrue(Either.isRight(decode({ type: "allow" })))
  })
  it("registration members stay open", () => {
    const value = Schema.decodeUnknownSync(Event.ToolBefore, { onExcessProperty: "preserve" })({
      id: "e",
      source: "urn:x",
      type: "tool.before",
      time: "2026-08-24T08:51:14Z",
      tool: { name: "t", input: {}, origin: "native" },
      call: { id: "c" },
      path: "p",
      vendor: { keep: true }
    })
    assert.deepStrictEqual((value as any).vendor, { keep: true })
  })
})
