import { Attachments, Backend, Http } from "@effect-ahp/backend"
import { assert, describe, it } from "@effect/vitest"
import { Context, Effect, Either, Layer, Option } from "effect"
import * as Crypto from "node:crypto"
import type * as NodeHttp from "node:http"
import { send } from "./TestHttp.js"

const sha256 = (bytes: Uint8Array) => Crypto.createHash("sha256").update(bytes).digest("hex")

const framing = (bytes: Uint8Array, extra: NodeHttp.OutgoingHttpHeaders = {}): NodeHttp.OutgoingHttpHeaders => ({
  "content-type": "application/octet-stream",
  "content-length": String(bytes.length),
  "ahp-content-sha256": sha256(bytes),
  ...extra
})

const bytes = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 255, 13, 10])

/** A backend whose intercept handler denies when the first attachment's bytes start with the PNG signature. */
const pngGuard = Backend.intercept("user.message.inbound", (request) =>
  Effect.gen(function*() {
    const part = request.event.message.messages.flatMap((m) => m.parts).find((p) =>
      p.kind === "attachment" && "body" in p
    )
    if (part === undefined || !("body" in part)) return []
    const data = yield* Attachments.read(part)
    return data[0] === 0x89 && data[1] === 0x50
      ? [{ type: "deny" as const, reason: `png of ${data.length} bytes` }]
      : []
  }))

const served = (upload: Http.UploadOptions) =>
  Effect.map(
    Layer.build(Http.serve(Backend.make(pngGuard), { port: 0, path: "/hooks", upload })),
    (context) => ({ address: Context.get(context, Http.Address), store: Context.get(context, Attachments.Attachments) })
  )

describe("Attachments", () => {
  it.scopedLive("the upload route stores raw octets and answers 201 with the receipt; handlers read them by reference", () =>
    Effect.gen(function*() {
      const { address, store } = yield* served({ path: "/uploads" })
      assert.strictEqual(address.uploadUrl, address.url.replace("/hooks", "/uploads"))
      const reply = yield* send(`${address.uploadUrl}?tenant=a`, { headers: framing(bytes), body: bytes })
      assert.strictEqual(reply.status, 201)
      assert.strictEqual(reply.headers["content-type"], "application/json")
      const receipt = JSON.parse(reply.body)
      assert.deepStrictEqual(Object.keys(receipt).sort(), ["ref", "sha256", "size"])
      assert.strictEqual(receipt.size, bytes.length)
      assert.strictEqual(receipt.sha256, sha256(bytes))
      assert.deepStrictEqual(Option.map(yield* store.get(receipt.ref), (b) => [...b]), Option.some([...bytes]))
      const again = JSON.parse((yield* send(address.uploadUrl!, { headers: framing(bytes), body: bytes })).body)
      assert.notStrictEqual(again.ref, receipt.ref)
      const event = {
        jsonrpc: "2.0",
        id: "evt_1",
        method: "hooks/intercept",
        params: {
          protocolVersion: "draft",
          capabilities: { effects: ["deny"] },
          event: {
            id: "evt_1",
            source: "urn:test",
            type: "user.message.inbound",
            time: "2026-01-01T00:00:00Z",
            message: {
              channel: "chat",
              sender: "u",
              messages: [{
                id: "m",
                role: "user",
                parts: [{
                  id: "a",
                  kind: "attachment",
                  mediaType: "image/png",
                  selection: "body",
                  body: { ref: receipt.ref }
                }]
              }]
            }
          }
        }
      }
      const answer = yield* send(address.url, {
        headers: { "content-type": "application/json" },
        body: Buffer.from(JSON.stringify(event))
      })
      assert.deepStrictEqual(JSON.parse(answer.body).result.effects, [{
        type: "deny",
        reason: `png of ${bytes.length} bytes`
      }])
      const missing = JSON.parse(JSON.stringify(event).replace(receipt.ref, "att_unknown"))
      const failed = yield* send(address.url, {
        headers: { "content-type": "application/json" },
        body: Buffer.from(JSON.stringify(missing))
      })
      assert.strictEqual(JSON.parse(failed.body).error.code, -32004)
    }))

  it.scopedLive("framing violations are 400, oversized bodies 413, other methods 405", () =>
    Effect.gen(function*() {
      const { address } = yield* served({ path: "/uploads", maxBytes: 16, maxStoredBytes: 64 })
      const url = address.uploadUrl!
      const big = new Uint8Array(17)
      const cases: ReadonlyArray<readonly [string, Parameters<typeof send>[1], number]> = [
        ["GET", { method: "GET" }, 405],
        ["wrong content type", { headers: framing(bytes, { "content-type": "application/json" }), body: bytes }, 400],
        ["no digest", {
          headers: { "content-type": "application/octet-stream", "content-length": String(bytes.length) },
          body: bytes
        }, 400],
        [
          "no length",
          { headers: { "content-type": "application/octet-stream", "ahp-content-sha256": sha256(bytes) } },
          400
        ],
        ["uppercase digest", {
          headers: framing(bytes, { "ahp-content-sha256": sha256(bytes).toUpperCase() }),
          body: bytes
        }, 400],
        ["digest of other bytes", { headers: framing(bytes, { "ahp-content-sha256": sha256(big) }), body: bytes }, 400],
        ["content encoding", { headers: framing(bytes, { "content-encoding": "gzip" }), body: bytes }, 400],
        ["chunked", {
          headers: {
            "content-type": "application/octet-stream",
            "ahp-content-sha256": sha256(bytes),
            "transfer-encoding": "chunked"
          },
          body: bytes,
          chunked: true
        }, 400],
        ["over maxBytes", { headers: framing(big), body: big }, 413]
      ]
      for (const [name, options, status] of cases) {
        const reply = yield* send(url, options)
        assert.strictEqual(reply.status, status, name)
      }
      assert.strictEqual((yield* send(url, { headers: framing(bytes), body: bytes })).status, 201)
    }))

  it.scopedLive("with a token, uploads without it are 401 before anything is read", () =>
    Effect.gen(function*() {
      const { address } = yield* served({ path: "/uploads", token: "upload-token" })
      const url = address.uploadUrl!
      assert.strictEqual((yield* send(url, { headers: framing(bytes), body: bytes })).status, 401)
      assert.strictEqual(
        (yield* send(url, { headers: framing(bytes, { authorization: "Bearer wrong" }), body: bytes })).status,
        401
      )
      assert.strictEqual(
        (yield* send(url, { headers: framing(bytes, { authorization: "Bearer upload-token" }), body: bytes })).status,
        201
      )
    }))

  it.effect("the store is bounded: the oldest uploads are evicted, bytes larger than it are refused", () =>
    Effect.gen(function*() {
      const store = Attachments.makeMemory({ maxStoredBytes: 10 })
      const first = yield* store.put(new Uint8Array(4))
      const second = yield* store.put(new Uint8Array(4))
      const third = yield* store.put(new Uint8Array(4))
      assert.isTrue(Option.isNone(yield* store.get(first.ref)))
      assert.isTrue(Option.isSome(yield* store.get(second.ref)))
      assert.isTrue(Option.isSome(yield* store.get(third.ref)))
      const refused = yield* Effect.either(store.put(new Uint8Array(11)))
      assert.isTrue(Either.isLeft(refused) && refused.left._tag === "StoreFull")
      const notFound = yield* Effect.flip(
        Attachments.read(first.ref).pipe(Effect.provideService(Attachments.Attachments, store))
      )
      assert.strictEqual(notFound._tag, "AttachmentNotFound")
    }))
})
