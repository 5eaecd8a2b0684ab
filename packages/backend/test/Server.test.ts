import { Backend, Server } from "@effect-ahp/backend"
import { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Either, Layer, Logger, LogLevel, Option, Ref } from "effect"
import { announce, audit, AuditLog, brokenRegistry, echo, failing, guard, Policy } from "./TestBackend.js"
import * as M from "./TestMessages.js"

const quiet = Logger.withMinimumLogLevel(LogLevel.None)

/** The server of a backend; the test runs with the backend's other services too. */
const withServer = <A, E, R, E2>(
  backend: Layer.Layer<Backend.Handlers, E2>,
  f: (server: Context.Tag.Service<Server.Server>) => Effect.Effect<A, E, R>
) => Effect.flatMap(Server.Server, f).pipe(Effect.provide(Server.layerBackend(backend)), quiet)

const guardBackend = Backend.make(guard.pipe(Layer.provide(Policy.layer(["rm -rf"]))))

const handle = (message: unknown, backend: Layer.Layer<Backend.Handlers> = guardBackend) =>
  withServer(backend, (server) => server.handle(message))

const responseOf = (response: Option.Option<Json.JsonObject>): Json.JsonObject => {
  assert.isTrue(Option.isSome(response), "expected a response")
  return Option.getOrThrow(response)
}

const errorOf = (response: Option.Option<Json.JsonObject>) => {
  const message = responseOf(response)
  assert.strictEqual(message.jsonrpc, "2.0")
  assert.isUndefined(message.result)
  return { id: message.id, ...(message.error as { code: number; message: string; data?: Json.JsonValue }) }
}

const effectsOf = (response: Option.Option<Json.JsonObject>) => {
  const message = responseOf(response)
  assert.isUndefined(message.error, Json.stringify(message))
  const result = message.result as Json.JsonObject
  assert.strictEqual(result.protocolVersion, "draft")
  return result.effects
}

describe("Server envelope", () => {
  it.effect("answers a non-object message with -32600 and id null", () =>
    Effect.gen(function*() {
      for (const message of [5, "hooks/intercept", null, true]) {
        const error = errorOf(yield* handle(message))
        assert.strictEqual(error.code, -32600)
        assert.isNull(error.id)
      }
    }))

  it.effect("answers a batch with -32600 and id null", () =>
    Effect.gen(function*() {
      const error = errorOf(yield* handle([M.intercept(M.toolBeforeEvent("evt_1"))]))
      assert.strictEqual(error.code, -32600)
      assert.isNull(error.id)
    }))

  it.effect("answers an invalid envelope with -32600, echoing a valid id", () =>
    Effect.gen(function*() {
      const wrongVersion = errorOf(yield* handle({ ...M.intercept(M.toolBeforeEvent("evt_1")), jsonrpc: "1.0" }))
      assert.deepStrictEqual([wrongVersion.code, wrongVersion.id], [-32600, "evt_1"])
      const noMethod = errorOf(yield* handle({ jsonrpc: "2.0", id: 3, params: {} }))
      assert.deepStrictEqual([noMethod.code, noMethod.id], [-32600, 3])
    }))

  it.effect("answers an invalid id with -32600 and id null", () =>
    Effect.gen(function*() {
      for (const id of [{}, "", 1.5, null, [1]]) {
        const error = errorOf(yield* handle({ jsonrpc: "2.0", id, method: "hooks/intercept", params: {} }))
        assert.deepStrictEqual([error.code, error.id], [-32600, null])
      }
    }))

  it.effect("answers bytes that are not UTF-8 JSON with -32700 and id null", () =>
    Effect.gen(function*() {
      const encoder = new TextEncoder()
      for (const bytes of [encoder.encode("{\"jsonrpc\":"), new Uint8Array([0x7b, 0xff, 0x7d]), new Uint8Array()]) {
        const response = yield* withServer(guardBackend, (server) => server.handleBytes(bytes))
        assert.deepStrictEqual(responseOf(response), {
          jsonrpc: "2.0",
          id: null,
          error: { code: -32700, message: "Parse error" }
        })
      }
    }))

  it.effect("answers unknown methods and hooks/capabilities with -32601", () =>
    Effect.gen(function*() {
      for (const method of ["hooks/unknown", "hooks/capabilities"]) {
        const error = errorOf(yield* handle({ jsonrpc: "2.0", id: 7, method, params: { protocolVersion: "draft" } }))
        assert.deepStrictEqual([error.code, error.id], [-32601, 7])
      }
    }))

  it.effect("echoes an integer id beyond 2^53 exactly", () =>
    Effect.gen(function*() {
      const text = "{\"jsonrpc\":\"2.0\",\"id\":123456789012345678901,\"method\":\"hooks/nope\",\"params\":{}}"
      const response = yield* withServer(guardBackend, (server) => server.handleBytes(new TextEncoder().encode(text)))
      assert.include(Json.stringify(responseOf(response)), "\"id\":123456789012345678901,")
    }))
})

describe("Server intercept", () => {
  it.effect("answers with the handler's effects", () =>
    Effect.gen(function*() {
      const response = yield* handle(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /" })))
      assert.deepStrictEqual(responseOf(response), {
        jsonrpc: "2.0",
        id: "evt_rm",
        result: { protocolVersion: "draft", effects: [{ type: "deny", reason: "Bash: rm -rf is not allowed" }] }
      })
      assert.deepStrictEqual(effectsOf(yield* handle(M.intercept(M.toolBeforeEvent("evt_ls")))), [])
    }))

  it.effect("answers an unsupported protocol version with -32001 and the supported versions", () =>
    Effect.gen(function*() {
      const message = M.intercept(M.toolBeforeEvent("evt_1"))
      const error = errorOf(
        yield* handle({ ...message, params: { ...(message.params as Json.JsonObject), protocolVersion: "2025-01-01" } })
      )
      assert.deepStrictEqual(error, {
        id: "evt_1",
        code: -32001,
        message: "Unsupported protocol version",
        data: { supported: ["draft"] }
      })
    }))

  it.effect("answers an event type without a handler with -32002", () =>
    Effect.gen(function*() {
      const unhandled = errorOf(yield* handle(M.intercept(M.sessionStartEvent("evt_s"), { effects: ["message"] })))
      assert.deepStrictEqual([unhandled.code, unhandled.id], [-32002, "evt_s"])
      const unknown = errorOf(yield* handle(M.intercept({ ...M.toolBeforeEvent("evt_u"), type: "tool.teleport" })))
      assert.strictEqual(unknown.code, -32002)
      const empty = errorOf(yield* handle(M.intercept(M.toolBeforeEvent("evt_e")), Backend.make()))
      assert.strictEqual(empty.code, -32002)
    }))

  it.effect("answers invalid params with -32602 and the problem paths, never the values", () =>
    Effect.gen(function*() {
      const { call: _call, ...withoutCall } = M.toolBeforeEvent("evt_p")
      const event = { ...withoutCall, time: "secret-not-a-time" }
      const response = yield* handle(M.intercept(event))
      const error = errorOf(response)
      assert.strictEqual(error.code, -32602)
      assert.strictEqual(error.id, "evt_p")
      const paths = (error.data as { paths: ReadonlyArray<string> }).paths
      assert.includeMembers([...paths], ["/params/event/call", "/params/event/time"])
      assert.notInclude(Json.stringify(responseOf(response)), "secret-not-a-time")
    }))

  it.effect("answers an id that differs from the event id with -32602 at /id", () =>
    Effect.gen(function*() {
      const message = M.intercept(M.toolBeforeEvent("evt_1"), { effects: ["deny"] }, { id: "other" })
      const error = errorOf(yield* handle(message))
      assert.deepStrictEqual([error.code, error.id, error.data], [-32602, "other", { paths: ["/id"] }])
    }))

  it.effect("answers capabilities beyond the event's bounds, or missing params, with -32602", () =>
    Effect.gen(function*() {
      const beyond = errorOf(
        yield* handle(M.intercept(M.toolBeforeEvent("evt_b"), {
          effects: ["flow"],
          flow: { operations: ["continue"], remainingContinuations: 1, continuationCount: 0 }
        }))
      )
      assert.deepStrictEqual([beyond.code, beyond.data], [
        -32602,
        { paths: ["/params/capabilities/flow/operations/0"] }
      ])
      const missing = errorOf(yield* handle({ jsonrpc: "2.0", id: "evt_m", method: "hooks/intercept" }))
      assert.deepStrictEqual([missing.code, missing.data], [-32602, { paths: ["/params"] }])
    }))

  it.effect("answers a failing or crashing handler with -32004 and no error text", () =>
    Effect.gen(function*() {
      for (const fail of ["error", "defect"]) {
        const response = yield* handle(M.intercept(M.toolBeforeEvent("evt_f", { fail })), Backend.make(failing))
        assert.deepStrictEqual(errorOf(response), { id: "evt_f", code: -32004, message: "Backend internal error" })
        assert.notInclude(Json.stringify(responseOf(response)), "sk-secret")
      }
    }))
})

interface GrantCase {
  readonly name: string
  readonly event: (input: Json.JsonObject) => Json.JsonObject
  readonly capabilities: Json.JsonObject
  readonly effects: ReadonlyArray<Json.JsonObject>
  /** The index of the first refused effect; none when the response must succeed. */
  readonly refused?: number
}

const before = (input: Json.JsonObject) => M.toolBeforeEvent("evt_g", input)
const after = (input: Json.JsonObject) => M.toolAfterEvent("evt_g", input)
const continueFlow = (remainingContinuations: number) => ({
  effects: ["flow"],
  flow: { operations: ["stop", "continue"], remainingContinuations, continuationCount: 0 }
})

/** A single effect at `tool.before` that the capabilities refuse. */
const refusedAlone = (name: string, effects: ReadonlyArray<string>, effect: Json.JsonObject): GrantCase => ({
  name,
  event: before,
  capabilities: { effects },
  effects: [effect],
  refused: 0
})

const grantCases: ReadonlyArray<GrantCase> = [
  refusedAlone("allow when only deny is granted", ["deny"], { type: "allow" }),
  refusedAlone("ask when only deny is granted", ["deny"], { type: "ask" }),
  refusedAlone("return when it is not granted", ["deny"], { type: "return", value: 1 }),
  refusedAlone("message when it is not granted", ["deny"], { type: "message", text: "hi" }),
  refusedAlone("deny when only message is granted", ["message"], { type: "deny", reason: "no" }),
  {
    name: "modify with an operation that is not granted",
    event: before,
    capabilities: { effects: ["modify"], modify: { input: { replace: false, merge: true } } },
    effects: [{ type: "modify", target: "input", operation: "replace", value: {} }],
    refused: 0
  },
  {
    name: "modify with a granted operation",
    event: before,
    capabilities: { effects: ["modify"], modify: { input: { replace: false, merge: true } } },
    effects: [{ type: "modify", target: "input", operation: "merge", value: { command: "ls" } }]
  },
  {
    name: "modify of a target that is not granted",
    event: after,
    capabilities: { effects: ["modify"], modify: { output: { replace: true, merge: true } } },
    effects: [{ type: "modify", target: "input", operation: "merge", value: {} }],
    refused: 0
  },
  {
    name: "modify when modify is not granted",
    event: before,
    capabilities: { effects: ["deny"] },
    effects: [{ type: "modify", target: "input", operation: "merge", value: {} }],
    refused: 0
  },
  {
    name: "a flow operation that is not granted",
    event: after,
    capabilities: { effects: ["flow"], flow: { operations: ["stop"] } },
    effects: [{ type: "flow", operation: "continue" }],
    refused: 0
  },
  {
    name: "flow continue with an exhausted allowance",
    event: after,
    capabilities: continueFlow(0),
    effects: [{ type: "flow", operation: "continue", instruction: "once more" }],
    refused: 0
  },
  {
    name: "flow continue with an allowance left",
    event: after,
    capabilities: continueFlow(1),
    effects: [
      { type: "flow", operation: "continue", instruction: "once more" },
      { type: "flow", operation: "continue" }
    ]
  },
  {
    name: "flow stop when granted",
    event: after,
    capabilities: continueFlow(0),
    effects: [{ type: "flow", operation: "stop", reason: "done" }]
  },
  {
    name: "inject at a time that is not granted",
    event: before,
    capabilities: { effects: ["inject"], inject: { context: { append: true, deliverAt: ["next_turn"] } } },
    effects: [{
      type: "inject",
      target: "context",
      operation: "append",
      deliverAt: "now",
      value: [M.textMessage("m1", "x")]
    }],
    refused: 0
  },
  {
    name: "inject at a granted time",
    event: before,
    capabilities: { effects: ["inject"], inject: { context: { append: true, deliverAt: ["next_turn"] } } },
    effects: [{
      type: "inject",
      target: "context",
      operation: "append",
      deliverAt: "next_turn",
      value: [M.textMessage("m1", "x")]
    }]
  },
  {
    name: "an effect with an unknown member",
    event: before,
    capabilities: { effects: ["deny"] },
    effects: [{ type: "deny", reason: "no", severity: "high" }],
    refused: 0
  },
  refusedAlone("an effect that fails its schema", ["deny"], { type: "deny", reason: "" }),
  refusedAlone("an unknown effect kind", ["deny"], { type: "com.example.fly" }),
  {
    name: "a valid deny after a refused effect",
    event: before,
    capabilities: { effects: ["deny"] },
    effects: [{ type: "allow" }, { type: "deny", reason: "no" }],
    refused: 0
  },
  {
    name: "a valid deny before a refused effect",
    event: before,
    capabilities: { effects: ["deny"] },
    effects: [{ type: "deny", reason: "no" }, { type: "message", text: "hi" }],
    refused: 1
  },
  {
    name: "every kind when everything is granted",
    event: before,
    capabilities: M.toolBeforeAll,
    effects: [
      { type: "deny", reason: "no", code: "com.example.no" },
      { type: "allow" },
      { type: "ask" },
      { type: "modify", target: "input", operation: "replace", value: { command: "ls" } },
      { type: "message", text: "hi" },
      { type: "return", value: null },
      { type: "flow", operation: "stop", reason: "enough" },
      { type: "inject", target: "context", operation: "append", deliverAt: "now", value: [M.textMessage("m2", "y")] }
    ]
  }
]

describe("Server grants", () => {
  for (const c of grantCases) {
    it.effect(
      c.refused === undefined ? `sends ${c.name}` : `refuses ${c.name} with -32603`,
      () =>
        Effect.gen(function*() {
          const response = yield* handle(
            M.intercept(c.event({ effects: c.effects }), c.capabilities),
            Backend.make(echo)
          )
          if (c.refused === undefined) {
            assert.deepStrictEqual(effectsOf(response), c.effects)
            return
          }
          const error = errorOf(response)
          assert.deepStrictEqual([error.code, error.id, error.message], [-32603, "evt_g", "Internal error"])
          const rejected = (error.data as { rejected: ReadonlyArray<{ index: number; reason: string }> }).rejected
          assert.strictEqual(rejected[0]?.index, c.refused)
        })
    )
  }
})

describe("Server notifications", () => {
  const audited = Backend.make(audit).pipe(Layer.provideMerge(AuditLog.layer))

  const observed = (messages: ReadonlyArray<unknown>) =>
    Effect.gen(function*() {
      const server = yield* Server.Server
      for (const message of messages) {
        assert.isTrue(Option.isNone(yield* server.handle(message)), `answered ${Json.stringify(message)}`)
      }
      return yield* Ref.get(yield* AuditLog)
    }).pipe(Effect.provide(Server.layer.pipe(Layer.provideMerge(audited))), quiet)

  it.effect("runs the matching observers and never answers", () =>
    Effect.gen(function*() {
      const seen = yield* observed([M.observe(M.toolAfterEvent("evt_a")), M.observe(M.toolBeforeEvent("evt_b"))])
      assert.deepStrictEqual(seen, ["tool.after:evt_a", "tool.before:evt_b"])
    }))

  it.effect("does not process an unsupported version, an unknown or invalid event, or an observe with an id", () =>
    Effect.gen(function*() {
      const { call: _call, ...invalid } = M.toolAfterEvent("evt_invalid")
      const seen = yield* observed([
        M.observe(M.toolAfterEvent("evt_version"), "2025-01-01"),
        M.observe({ ...M.toolAfterEvent("evt_unknown"), type: "tool.teleport" }),
        M.observe(invalid),
        { ...M.observe(M.toolAfterEvent("evt_with_id")), id: "evt_with_id" },
        { jsonrpc: "2.0", method: "hooks/observe" },
        M.observe(M.toolAfterEvent("evt_ok"))
      ])
      assert.deepStrictEqual(seen, ["tool.after:evt_ok"])
    }))

  it.effect("never answers other notifications, even invalid ones", () =>
    Effect.gen(function*() {
      const { id: _id, ...interceptWithoutId } = M.intercept(M.toolBeforeEvent("evt_n", { fail: "error" }))
      for (const message of [interceptWithoutId, { jsonrpc: "2.0", method: "hooks/unknown" }, { foo: 1 }, {}]) {
        assert.isTrue(Option.isNone(yield* handle(message, Backend.make(failing))))
      }
    }))

  it.effect("keeps running observers after one fails", () =>
    Effect.gen(function*() {
      const boom = Backend.observe("*", () => Effect.die("observer crashed"))
      const backend = Backend.make(boom, audit).pipe(Layer.provideMerge(AuditLog.layer))
      const seen = yield* Effect.gen(function*() {
        const server = yield* Server.Server
        assert.isTrue(Option.isNone(yield* server.handle(M.observe(M.toolAfterEvent("evt_c")))))
        return yield* Ref.get(yield* AuditLog)
      }).pipe(Effect.provide(Server.layer.pipe(Layer.provideMerge(backend))), quiet)
      assert.deepStrictEqual(seen, ["tool.after:evt_c"])
    }))
})

describe("Backend composition", () => {
  it.effect("runs each handler with the services of its own layer", () =>
    Effect.gen(function*() {
      const strict = guard.pipe(Layer.provide(Policy.layer(["rm"])))
      const lax = guard.pipe(Layer.provide(Policy.layer(["shutdown"])))
      const message = M.intercept(M.toolBeforeEvent("evt_1", { command: "rm notes.txt" }))
      assert.deepStrictEqual(effectsOf(yield* handle(message, Backend.make(strict))), [
        { type: "deny", reason: "Bash: rm is not allowed" }
      ])
      assert.deepStrictEqual(effectsOf(yield* handle(message, Backend.make(lax))), [])
    }))

  it.effect("composes handler layers, including Layer.mergeAll, into one backend", () =>
    Effect.gen(function*() {
      const backend = Backend.make(
        Layer.mergeAll(guard.pipe(Layer.provide(Policy.layer(["rm -rf"]))), audit),
        announce("audited")
      ).pipe(Layer.provideMerge(AuditLog.layer))
      const [effects, seen] = yield* Effect.gen(function*() {
        const server = yield* Server.Server
        const response = yield* server.handle(M.intercept(M.toolBeforeEvent("evt_x", { command: "rm -rf /" }), {
          effects: ["deny", "message"]
        }))
        yield* server.handle(M.observe(M.toolBeforeEvent("evt_x", { command: "rm -rf /" })))
        return [effectsOf(response), yield* Ref.get(yield* AuditLog)] as const
      }).pipe(Effect.provide(Server.layer.pipe(Layer.provideMerge(backend))), quiet)
      assert.deepStrictEqual(effects, [
        { type: "deny", reason: "Bash: rm -rf is not allowed" },
        { type: "message", text: "audited" }
      ])
      assert.deepStrictEqual(seen, ["tool.before:evt_x"])
    }))

  it.effect("concatenates the effects of same-event handlers in registration order", () =>
    Effect.gen(function*() {
      const message = M.intercept(M.toolBeforeEvent("evt_o"), { effects: ["message"] })
      const texts = (effects: Json.JsonValue | undefined) =>
        (effects as ReadonlyArray<{ text: string }>).map((e) => e.text)
      const first = announce("first")
      const second = announce("second")
      assert.deepStrictEqual(texts(effectsOf(yield* handle(message, Backend.make(first, second)))), ["first", "second"])
      assert.deepStrictEqual(texts(effectsOf(yield* handle(message, Backend.make(second, first)))), ["second", "first"])
    }))

  it.effect("gives a tool.before handler the typed event and the request's capabilities", () =>
    Effect.gen(function*() {
      const seen = yield* Ref.make<ReadonlyArray<string>>([])
      const typed = Backend.intercept("tool.before", (request) =>
        Ref.set(seen, [
          request.event.tool.name,
          request.event.call.id,
          request.event.path,
          String(request.id),
          ...request.capabilities.effects
        ]).pipe(Effect.as([])))
      yield* handle(M.intercept(M.toolBeforeEvent("evt_t"), { effects: ["deny", "ask"] }), Backend.make(typed))
      assert.deepStrictEqual(yield* Ref.get(seen), ["Bash", "call_evt_t", "native", "evt_t", "deny", "ask"])
    }))
})

/** `depth` arrays nested in each other. */
const nested = (depth: number): Json.JsonValue => {
  let value: Json.JsonValue = []
  for (let i = 1; i < depth; i++) value = [value]
  return value
}

/**
 * Answers `tool.before` with a modify value nesting `depth + 1` levels: a valid effect (up to
 * 512) whose response (4 levels more) may be too deep to write.
 */
const deepModify = (depth: number) =>
  Backend.make(
    Backend.intercept("tool.before", () =>
      Effect.succeed([
        { type: "modify", target: "input", operation: "replace", value: { deep: nested(depth) } } as const
      ]))
  )

describe("Server: hostile input", () => {
  const deepRequest = (depth: number) =>
    new TextEncoder().encode(
      `{"jsonrpc":"2.0","id":"evt_d","method":"hooks/intercept","params":{"protocolVersion":"draft","event":` +
        Json.stringify(M.toolBeforeEvent("evt_d", { command: "ls", nested: [] })).replace(
          "\"nested\":[]",
          `"nested":${"[".repeat(depth)}${"]".repeat(depth)}`
        ) + `,"capabilities":{"effects":["deny"]}}}`
    )

  it.effect("answers a request nested deeper than 512 levels with -32600 and keeps serving", () =>
    withServer(guardBackend, (server) =>
      Effect.gen(function*() {
        for (const depth of [600, 10_000, 1_000_000]) {
          const error = errorOf(yield* server.handleBytes(deepRequest(depth)))
          assert.deepStrictEqual([error.code, error.id], [-32600, null])
          assert.include(error.message, "512")
        }
        assert.deepStrictEqual(
          effectsOf(
            yield* server.handleBytes(deepRequest(500)).pipe(Effect.zipRight(
              server.handleBytes(
                new TextEncoder().encode(
                  Json.stringify(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /" })))
                )
              )
            ))
          ),
          [{ type: "deny", reason: "Bash: rm -rf is not allowed" }]
        )
      })))

  it.effect("a deep or cyclic message handed over in-process is invalid params, not a crash", () =>
    Effect.gen(function*() {
      const cyclic: Record<string, unknown> = { command: "ls" }
      cyclic.self = cyclic
      for (const input of [{ nested: nested(10_000) }, cyclic]) {
        const error = errorOf(yield* handle(M.intercept(M.toolBeforeEvent("evt_h", input as Json.JsonObject))))
        assert.deepStrictEqual([error.code, error.id], [-32602, "evt_h"])
      }
    }))

  it.effect("a defect inside the server's handling is answered with -32603 under the request's id, without its text", () =>
    withServer(brokenRegistry, (server) =>
      Effect.gen(function*() {
        const error = errorOf(yield* server.handle(M.intercept(M.toolBeforeEvent("evt_x"))))
        assert.deepStrictEqual(error, { id: "evt_x", code: -32603, message: "Internal error" })
        assert.isTrue(Option.isNone(yield* server.handle(M.observe(M.toolAfterEvent("evt_o")))))
        const reply = yield* server.reply(
          new TextEncoder().encode(Json.stringify(M.intercept(M.toolBeforeEvent("evt_y"))))
        )
        assert.deepStrictEqual(
          Option.getOrThrow(reply),
          `{"jsonrpc":"2.0","id":"evt_y","error":{"code":-32603,"message":"Internal error"}}`
        )
      })))

  it.effect("a response too deep to write is answered with -32603 under the request's id", () =>
    withServer(deepModify(510), (server) =>
      Effect.gen(function*() {
        const request = M.intercept(M.toolBeforeEvent("evt_w"), M.toolBeforeAll)
        const reply = Option.getOrThrow(yield* server.reply(new TextEncoder().encode(Json.stringify(request))))
        assert.strictEqual(reply, `{"jsonrpc":"2.0","id":"evt_w","error":{"code":-32603,"message":"Internal error"}}`)
      })))

  it.effect("a response within the limit is written whole", () =>
    withServer(deepModify(400), (server) =>
      Effect.gen(function*() {
        const request = M.intercept(M.toolBeforeEvent("evt_v"), M.toolBeforeAll)
        const reply = Option.getOrThrow(yield* server.reply(new TextEncoder().encode(Json.stringify(request))))
        const effects = (Either.getOrThrow(Json.parse(reply)) as any).result.effects
        assert.isFalse(Json.exceedsDepth(effects[0].value.deep, 400))
        assert.isTrue(Json.exceedsDepth(effects[0].value.deep, 399))
      })))
})
