/**
 * Attachment uploads end to end: the real harness over the Node transports and the
 * `HttpUpload` client, against backends written with `@effect-ahp/backend` serving the
 * upload route. The official fixture `model-request-text-attachment.valid` supplies the
 * event; what the receiver gets is checked against the official JSON Schemas.
 */
import { Attachments, Backend, Http } from "@effect-ahp/backend"
import { Attachment, Hooks } from "@effect-ahp/harness"
import { AttachmentFiles, Credentials, HttpTransport, HttpUpload, NodeTransports } from "@effect-ahp/node"
import type { Event, Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import Ajv2020 from "ajv/dist/2020.js"
import { Context, Effect, Layer, Option } from "effect"
import * as Crypto from "node:crypto"
import * as fs from "node:fs"
import * as NodeHttp from "node:http"
import type * as Net from "node:net"
import * as path from "node:path"
import { failures, readLog, registration, scriptedStdio, tempDir, waitUntilEffect } from "../support/e2e.js"
import { fixturePath, sharedRoot } from "../support/fixtures.js"
import { scaled } from "../support/load.js"

const ID = "com.example.vision"
const token = "shared-token-value"
const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 255, 254])

/** The real Node transports, upload client and file sources, with test credentials. */
const nodeLayer = Layer.mergeAll(NodeTransports.layer({}), HttpUpload.layer(), AttachmentFiles.layer).pipe(
  Layer.provide(
    Layer.merge(HttpTransport.layerDispatcher, Credentials.layerTest({ EVENT_TOKEN: token, UPLOAD_TOKEN: token }))
  )
)

const hooksFor = (reg: unknown) =>
  Effect.map(Layer.build(Hooks.layerUnknown(reg).pipe(Layer.provide(nodeLayer))), Context.get(Hooks.Hooks))

/**
 * A vision guard: denies a model request whose first attachment is a PNG, reading its bytes
 * by reference from the server's store; an observer records what it receives.
 */
const visionBackend = (seen: { intercepts: Array<Event.Event>; observations: Array<Event.Event> }) =>
  Backend.make(
    Backend.intercept("model.request.before", (request) =>
      Effect.gen(function*() {
        seen.intercepts.push(request.event)
        const part = request.event.items.flatMap((m) => m.parts).find((p) => p.kind === "attachment" && "body" in p)
        if (part === undefined || !("body" in part)) return []
        const bytes = yield* Attachments.read(part)
        const digest = Crypto.createHash("sha256").update(bytes).digest("hex")
        return bytes[0] === 0x89 ? [{ type: "deny" as const, reason: `png ${bytes.length} ${digest}` }] : []
      })),
    Backend.observe("model.request.before", (event) => Effect.sync(() => seen.observations.push(event)))
  )

const served = (upload: Http.UploadOptions) =>
  Effect.gen(function*() {
    const seen = { intercepts: [] as Array<Event.Event>, observations: [] as Array<Event.Event> }
    const context = yield* Layer.build(Http.serve(visionBackend(seen), { port: 0, path: "/hooks", upload }))
    return { seen, address: Context.get(context, Http.Address), store: Context.get(context, Attachments.Attachments) }
  })

const attachmentsOf = (event: any): Array<any> =>
  event.items.flatMap((m: any) => m.parts).filter((p: any) => p.kind === "attachment")

const subscription = (mode: "intercept" | "observe", upload: object | undefined, extra: object = {}) => ({
  mode,
  events: ["model.request.before"],
  ...(mode === "intercept" ? { timeoutMs: 10_000, failurePolicy: "fail-open" } : {}),
  content: { default: "body" },
  ...(upload === undefined ? {} : { upload }),
  ...extra
})

/** An upload endpoint that reads the request and never answers; `closed` counts connections the client closed. */
const hungEndpoint = Effect.gen(function*() {
  const state = { received: 0, closed: 0 }
  const server = yield* Effect.acquireRelease(
    Effect.async<NodeHttp.Server>((resume) => {
      const server = NodeHttp.createServer((req, res) => {
        req.resume()
        req.on("end", () => state.received++)
        res.on("close", () => state.closed++)
      })
      server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
    }),
    (server) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )
  return { state, url: `http://127.0.0.1:${(server.address() as Net.AddressInfo).port}/slow` }
})

const sha256 = (bytes: Uint8Array) => Crypto.createHash("sha256").update(bytes).digest("hex")

if (sharedRoot === undefined) {
  describe("attachment uploads end to end", () => {
    it.skip("../shared/ahp is absent: the upload end-to-end tests (which read its fixtures and schemas) are skipped", () => {})
  })
} else {
  const root = sharedRoot
  const fixture = JSON.parse(
    fs.readFileSync(fixturePath("fixtures/draft/http/model-request-text-attachment.valid.json"), "utf8")
  )
  const input: Json.JsonObject = fixture.params.event
  const hostRef = attachmentsOf(input)[0].body.ref as string
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: false })
  const schemaDir = path.join(root, "schema", "draft")
  for (const file of fs.readdirSync(schemaDir).filter((f) => f.endsWith(".schema.json") || f === "schema.json")) {
    ajv.addSchema(JSON.parse(fs.readFileSync(path.join(schemaDir, file), "utf8")))
  }
  const validateNotification = ajv.getSchema(
    "https://agenthooksprotocol.org/schemas/draft/observe-notification.schema.json"
  )!
  const validateReceipt = ajv.getSchema(
    "https://agenthooksprotocol.org/schemas/draft/content-upload-receipt.schema.json"
  )!

  describe("attachment uploads end to end", () => {
    it.scopedLive("the official fixture's image, read from a file, is uploaded to each subscription before publication and read by reference", () =>
      Effect.gen(function*() {
        const { address, seen, store } = yield* served({ path: "/uploads" })
        const upload = { endpoint: `${address.uploadUrl}?tenant=vision`, timeoutMs: 5000, maxBytes: 1 << 20 }
        const hooks = yield* hooksFor(registration([{
          id: ID,
          transport: { type: "http", url: address.url },
          subscriptions: [subscription("intercept", upload), subscription("observe", upload)]
        }]))
        const file = path.join(yield* tempDir, "image1.png")
        fs.writeFileSync(file, png)
        const result = yield* hooks.dispatchUnknown("model.request.before", input, {
          attachments: { image1: Attachment.file(file, { size: png.length }) }
        })
        assert.deepStrictEqual(failures(result.errors), [])
        assert.strictEqual(result.decision.permission, "deny")
        assert.strictEqual(result.decision.denial?.reason, `png ${png.length} ${sha256(png)}`)
        assert.strictEqual(attachmentsOf(result.event)[0].body.ref, hostRef, "the host's event keeps its own part")
        assert.deepStrictEqual(result.observations.map((o) => o.outcome), ["delivered"])
        yield* waitUntilEffect("the observation", Effect.sync(() => seen.observations.length === 1))
        const refs = [seen.intercepts[0]!, seen.observations[0]!].map((event) => {
          const [part] = attachmentsOf(event)
          assert.deepStrictEqual(Object.keys(part.body), ["ref"])
          assert.notStrictEqual(part.body.ref, hostRef)
          assert.isTrue(
            validateNotification({
              jsonrpc: "2.0",
              method: "hooks/observe",
              params: { protocolVersion: "draft", event }
            })
          )
          return part.body.ref as string
        })
        assert.notStrictEqual(refs[0], refs[1], "each subscription has its own upload")
        for (const ref of refs) {
          const stored = yield* store.get(ref)
          assert.deepStrictEqual(Option.map(stored, (b) => [...b]), Option.some([...png]))
          assert.isTrue(validateReceipt({ ref, size: png.length, sha256: sha256(png) }))
        }
      }))

    it.scopedLive("an absent upload.auth never inherits the event credential: the protected upload route answers 401", () =>
      Effect.gen(function*() {
        const { address, seen } = yield* served({ path: "/uploads", token })
        const upload = { endpoint: address.uploadUrl!, timeoutMs: 5000, maxBytes: 1 << 20 }
        const backend = (sub: object) => ({
          id: ID,
          transport: { type: "http", url: address.url },
          authentication: { type: "bearer", tokenEnv: "EVENT_TOKEN" },
          subscriptions: [sub]
        })
        const anonymous = yield* hooksFor(
          registration([backend(subscription("intercept", upload, { failurePolicy: "fail-closed" }))])
        )
        const refused = yield* anonymous.dispatchUnknown("model.request.before", input, {
          attachments: { image1: Attachment.bytes(png) }
        })
        assert.deepStrictEqual(
          failures(refused.errors).map((f) => [f.phase, f.code, f.httpStatus, f.syntheticDenial]),
          [
            ["prepare", "upload-unauthorized", 401, true]
          ]
        )
        assert.strictEqual(refused.decision.permission, "deny")
        assert.strictEqual(seen.intercepts.length, 0, "nothing was published to the backend")
        const authorized = yield* hooksFor(registration([
          backend(subscription("intercept", { ...upload, auth: { type: "bearer", tokenRef: "UPLOAD_TOKEN" } }))
        ]))
        const accepted = yield* authorized.dispatchUnknown("model.request.before", input, {
          attachments: { image1: Attachment.bytes(png) }
        })
        assert.deepStrictEqual(failures(accepted.errors), [])
        assert.strictEqual(accepted.decision.denial?.reason, `png ${png.length} ${sha256(png)}`)
      }))

    it.scopedLive("a hung upload endpoint fails the delivery at upload.timeoutMs under its policy; the upload is aborted", () =>
      Effect.gen(function*() {
        const { address, seen } = yield* served({ path: "/uploads" })
        const hung = yield* hungEndpoint
        const hooks = yield* hooksFor(registration([{
          id: ID,
          transport: { type: "http", url: address.url },
          subscriptions: [
            subscription("intercept", { endpoint: hung.url, timeoutMs: 300, maxBytes: 1 << 20 }, {
              failurePolicy: "fail-closed"
            })
          ]
        }]))
        const started = Date.now()
        const result = yield* hooks.dispatchUnknown("model.request.before", input, {
          attachments: { image1: Attachment.bytes(png) }
        })
        const elapsed = Date.now() - started
        assert.deepStrictEqual(failures(result.errors).map((f) => [f.phase, f.code, f.syntheticDenial]), [
          ["prepare", "upload-timeout", true]
        ])
        assert.strictEqual(result.decision.permission, "deny")
        assert.isAtLeast(elapsed, 290)
        assert.isBelow(elapsed, scaled(5000))
        assert.strictEqual(seen.intercepts.length, 0)
        yield* waitUntilEffect("the aborted upload's connection to close", Effect.sync(() => hung.state.closed === 1))
        assert.strictEqual(hung.state.received, 1)
      }))

    it.scopedLive("a stdio backend still gets its attachment uploaded over HTTP before the event is written to it", () =>
      Effect.gen(function*() {
        const { address, store } = yield* served({ path: "/uploads" })
        const dir = yield* tempDir
        const log = path.join(dir, "stdio.log")
        const hooks = yield* hooksFor(registration([{
          id: ID,
          transport: scriptedStdio("per_event", "ok", "--log", log),
          subscriptions: [
            subscription("intercept", { endpoint: address.uploadUrl!, timeoutMs: 5000, maxBytes: 1 << 20 })
          ]
        }]))
        const result = yield* hooks.dispatchUnknown("model.request.before", input, {
          attachments: { image1: Attachment.bytes(png) }
        })
        assert.deepStrictEqual(failures(result.errors), [])
        const entries = yield* readLog(log)
        const message = entries.find((e) => e.event === "message")!.message as any
        const [part] = attachmentsOf(message.params.event)
        assert.deepStrictEqual(Object.keys(part.body), ["ref"])
        assert.notStrictEqual(part.body.ref, hostRef)
        const stored = yield* store.get(part.body.ref)
        assert.deepStrictEqual(Option.map(stored, (b) => [...b]), Option.some([...png]))
      }))
  })
}
