import { Backend, Http } from "@effect-ahp/backend"
import { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Logger, LogLevel, Ref } from "effect"
import * as Net from "node:net"
import { layerTests } from "../../../test/support/layer.js"
import { scaled } from "../../../test/support/load.js"
import { audit, AuditLog, brokenRegistry, guard, Policy } from "./TestBackend.js"
import { type Reply, send } from "./TestHttp.js"
import * as M from "./TestMessages.js"

const json = { "content-type": "application/json" }
const parseError = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }

const post = (body: string | Uint8Array, path = "/hooks") =>
  Effect.flatMap(Http.Address, (address) => send(new URL(path, address.url).toString(), { headers: json, body }))

const backend = Backend.make(guard.pipe(Layer.provide(Policy.layer(["rm -rf"]))), audit)

const TestLive = Http.serve(backend, { port: 0, path: "/hooks", maxBodyBytes: 4096 }).pipe(
  Layer.provideMerge(AuditLog.layer),
  Layer.provide(Logger.minimumLogLevel(LogLevel.None))
)

const parseBody = (reply: Reply): Json.JsonObject => {
  assert.strictEqual(reply.headers["content-type"], "application/json")
  const parsed = Json.parse(reply.body)
  assert.isTrue(parsed._tag === "Right" && Json.isObject(parsed.right), reply.body)
  return (parsed as { right: Json.JsonObject }).right
}

describe("Http.serve", () =>
  layerTests(TestLive, (it) => {
    it.effect("binds loopback on a free port and reports the URL", () =>
      Effect.gen(function*() {
        const address = yield* Http.Address
        assert.strictEqual(address.hostname, "127.0.0.1")
        assert.isAbove(address.port, 0)
        assert.strictEqual(address.url, `http://127.0.0.1:${address.port}/hooks`)
      }))

    it.effect("answers a request with 200 and the JSON-RPC response", () =>
      Effect.gen(function*() {
        const reply = yield* post(Json.stringify(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /" }))))
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual(parseBody(reply), {
          jsonrpc: "2.0",
          id: "evt_rm",
          result: { protocolVersion: "draft", effects: [{ type: "deny", reason: "Bash: rm -rf is not allowed" }] }
        })
      }))

    it.effect("answers a JSON-RPC error with 200 and the error object", () =>
      Effect.gen(function*() {
        const message = M.intercept(M.toolBeforeEvent("evt_v"))
        const reply = yield* post(
          Json.stringify({
            ...message,
            params: { ...(message.params as Json.JsonObject), protocolVersion: "1999-01-01" }
          })
        )
        assert.strictEqual(reply.status, 200)
        assert.deepStrictEqual((parseBody(reply).error as Json.JsonObject).code, -32001)
      }))

    it.effect("answers a notification with 204 and no body, even an invalid one", () =>
      Effect.gen(function*() {
        const ok = yield* post(Json.stringify(M.observe(M.toolAfterEvent("evt_n"))))
        const badVersion = yield* post(Json.stringify(M.observe(M.toolAfterEvent("evt_bad"), "1999-01-01")))
        const unknownMethod = yield* post(Json.stringify({ jsonrpc: "2.0", method: "hooks/nope", params: {} }))
        for (const reply of [ok, badVersion, unknownMethod]) {
          assert.deepStrictEqual([reply.status, reply.body, reply.headers["content-type"]], [204, "", undefined])
        }
        const seen = yield* Ref.get(yield* AuditLog)
        assert.include(seen, "tool.after:evt_n")
        assert.notInclude(seen, "tool.after:evt_bad")
      }))

    it.effect("answers a body that is not UTF-8 JSON with 200 and -32700", () =>
      Effect.gen(function*() {
        for (const body of ["{\"jsonrpc\":", new Uint8Array([0x7b, 0xff, 0x7d]), ""]) {
          const reply = yield* post(body)
          assert.strictEqual(reply.status, 200)
          assert.deepStrictEqual(parseBody(reply), parseError)
        }
      }))

    it.effect("answers a batch with 200 and -32600", () =>
      Effect.gen(function*() {
        const reply = yield* post(
          Json.stringify([M.intercept(M.toolBeforeEvent("evt_1"))] as unknown as Json.JsonObject)
        )
        assert.strictEqual(reply.status, 200)
        const body = parseBody(reply)
        assert.deepStrictEqual([body.id, (body.error as Json.JsonObject).code], [null, -32600])
      }))

    it.effect("answers other methods with 405 and Allow: POST", () =>
      Effect.gen(function*() {
        const address = yield* Http.Address
        for (const method of ["GET", "PUT", "DELETE"]) {
          const reply = yield* send(address.url, { method, headers: json })
          assert.deepStrictEqual([reply.status, reply.headers["allow"], reply.body], [405, "POST", ""])
        }
      }))

    it.effect("answers a content type other than application/json with 415", () =>
      Effect.gen(function*() {
        const address = yield* Http.Address
        const body = Json.stringify(M.intercept(M.toolBeforeEvent("evt_1")))
        const refused = [{}, { "content-type": "text/plain" }, { "content-type": "application/json; charset=latin1" }]
        for (const headers of refused) {
          const reply = yield* send(address.url, { headers, body })
          assert.strictEqual(reply.status, 415, Json.stringify(headers))
        }
        const charset = yield* send(address.url, {
          headers: { "content-type": "Application/JSON; charset=UTF-8" },
          body
        })
        assert.strictEqual(charset.status, 200)
      }))

    it.effect("answers a body over the size cap with 413, with or without Content-Length", () =>
      Effect.gen(function*() {
        const address = yield* Http.Address
        const big = `"${"x".repeat(5000)}"`
        const declared = yield* send(address.url, { headers: json, body: big })
        assert.strictEqual(declared.status, 413)
        const chunked = yield* send(address.url, { headers: { ...json, "transfer-encoding": "chunked" }, body: big })
        assert.strictEqual(chunked.status, 413)
        const fits = yield* post(`"${"x".repeat(4000)}"`)
        assert.strictEqual(fits.status, 200)
      }))

    it.effect("answers a path other than the configured one with 404", () =>
      Effect.gen(function*() {
        const reply = yield* post(Json.stringify(M.intercept(M.toolBeforeEvent("evt_1"))), "/elsewhere")
        assert.strictEqual(reply.status, 404)
        const withQuery = yield* post(Json.stringify(M.intercept(M.toolBeforeEvent("evt_1"))), "/hooks?x=1")
        assert.strictEqual(withQuery.status, 200)
      }))
  }))

/** A request whose tool input nests `depth` arrays. */
const deepBody = (id: string, depth: number) =>
  Json.stringify(M.intercept(M.toolBeforeEvent(id, { command: "ls", nested: [] }))).replace(
    "\"nested\":[]",
    `"nested":${"[".repeat(depth)}${"]".repeat(depth)}`
  )

describe("Http.serve: hostile input", () =>
  layerTests(TestLive, (it) => {
    it.effect("answers a body nested deeper than 512 levels with 200 and -32600, and keeps serving", () =>
      Effect.gen(function*() {
        const reply = yield* post(deepBody("evt_deep", 1_500))
        assert.strictEqual(reply.status, 200)
        const body = parseBody(reply)
        assert.deepStrictEqual([body.id, (body.error as Json.JsonObject).code], [null, -32600])
        const next = yield* post(Json.stringify(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /" }))))
        assert.strictEqual(parseBody(next).id, "evt_rm")
      }))
  }))

describe("Http.serve: defects", () => {
  it.scopedLive("a defect while handling a request is a -32603 answer, never an empty 500", () =>
    Effect.gen(function*() {
      const reply = yield* post(Json.stringify(M.intercept(M.toolBeforeEvent("evt_x"))))
      assert.strictEqual(reply.status, 200)
      assert.deepStrictEqual(parseBody(reply), {
        jsonrpc: "2.0",
        id: "evt_x",
        error: { code: -32603, message: "Internal error" }
      })
      assert.notInclude(reply.body, "sk-secret")
      const again = yield* post(Json.stringify(M.intercept(M.toolBeforeEvent("evt_y"))))
      assert.strictEqual(parseBody(again).id, "evt_y")
    }).pipe(
      Effect.provide(Http.serve(brokenRegistry, { port: 0, path: "/hooks" })),
      Logger.withMinimumLogLevel(LogLevel.None)
    ))
})

describe("Http.serve: slow clients", () => {
  it.scopedLive(
    "a request whose body does not arrive within requestTimeoutMs gets 408 and its connection closed",
    () =>
      Effect.gen(function*() {
        const address = yield* Http.Address
        const start = Date.now()
        const answer = yield* Effect.async<string>((resume) => {
          const socket = Net.connect(address.port, address.hostname, () => {
            socket.write(
              `POST /hooks HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ncontent-length: 100\r\n\r\n{"jsonrpc"`
            )
          })
          let received = ""
          socket.setEncoding("utf8")
          socket.on("data", (text: string) => void (received += text))
          socket.on("close", () => resume(Effect.succeed(received)))
          socket.on("error", () => resume(Effect.succeed(received)))
        })
        assert.match(answer, /^HTTP\/1\.1 408/)
        assert.isBelow(Date.now() - start, scaled(10_000))
        const next = yield* post(Json.stringify(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /" }))))
        assert.strictEqual(next.status, 200)
      }).pipe(
        Effect.provide(
          Http.serve(backend, { port: 0, path: "/hooks", requestTimeoutMs: 300 }).pipe(Layer.provide(AuditLog.layer))
        ),
        Logger.withMinimumLogLevel(LogLevel.None)
      ),
    { timeout: scaled(30_000) }
  )
})

describe("Http.serve lifecycle", () => {
  it.scopedLive("stops listening when its scope closes", () =>
    Effect.gen(function*() {
      const url = yield* Effect.scoped(
        Effect.gen(function*() {
          const address = yield* Http.Address
          const reply = yield* send(address.url, { headers: json, body: "[]" })
          assert.strictEqual(reply.status, 200)
          return address.url
        }).pipe(Effect.provide(Http.serve(Backend.make(), { port: 0 })))
      )
      const after = yield* Effect.either(send(url, { headers: json, body: "[]" }))
      assert.isTrue(after._tag === "Left")
    }))
})
