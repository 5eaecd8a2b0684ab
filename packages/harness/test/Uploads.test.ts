import { Attachment, DispatchResult, Hooks, Transport, Uploads } from "@effect-ahp/harness"
import type { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, FastCheck as fc, Layer, Stream } from "effect"
import { answer, backends, intercept, observe, registration, type Script } from "./support.js"

const A = "com.example.a"
const B = "com.example.b"
const O = "com.example.observer"

const upload = (extra: Record<string, unknown> = {}) => ({
  endpoint: "https://uploads.example/bytes?bucket=1",
  timeoutMs: 2000,
  maxBytes: 1024,
  ...extra
})

const image = (id = "img", extra: Record<string, unknown> = {}) => ({
  id,
  kind: "attachment",
  mediaType: "image/png",
  selection: "body",
  body: { ref: "host-local" },
  ...extra
})

const text = { id: "t", kind: "text", mediaType: "text/plain", selection: "body", text: "look at this" }

const inbound = (parts: ReadonlyArray<Json.JsonValue>) => ({
  message: { channel: "chat", sender: "user_1", messages: [{ id: "m1", role: "user", parts }] }
})

const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 255])

const deny = answer({ type: "deny", reason: "no" })

/** Runs a user.message.inbound call with in-process backends and an uploads service. */
const dispatch = (
  reg: unknown,
  layers: { readonly transports: Layer.Layer<Transport.Transports>; readonly uploads?: Layer.Layer<Uploads.Uploads> },
  input: Json.JsonObject,
  options?: Hooks.DispatchOptions,
  hooksOptions?: Hooks.Options
) =>
  Effect.provide(
    Hooks.dispatchUnknown("user.message.inbound", input, options),
    Hooks.layerUnknown(reg, hooksOptions).pipe(
      Layer.provide(layers.uploads === undefined ? layers.transports : Layer.merge(layers.transports, layers.uploads))
    )
  )

/** A stream source that counts how often it is pulled from the start. */
const counted = (bytes: Uint8Array) => {
  const state = { runs: 0 }
  const stream = Stream.suspend(() => {
    state.runs++
    return Stream.fromChunks(Chunk.of(bytes.slice(0, 3)), Chunk.of(bytes.slice(3)))
  })
  return { state, source: Attachment.stream(stream) }
}

const partsOf = (event: any) => event.message.messages[0].parts

const attachmentOf = (event: any) => partsOf(event).find((p: any) => p.kind === "attachment")

describe("attachment uploads", () => {
  it.effect.prop(
    "regression: a deny-everything guard that selects an attachment as body denies, whatever the policy and the other parts",
    [
      fc.constantFrom("fail-open", "fail-closed"),
      fc.integer({ min: 1, max: 3 }),
      fc.boolean(),
      fc.uint8Array({ maxLength: 64 })
    ],
    ([failurePolicy, count, withText, bytes]) =>
      Effect.gen(function*() {
        const { layer, log } = backends({ [A]: deny })
        const memory = Uploads.layerMemory()
        const ids = Array.from({ length: count }, (_, i) => `img${i}`)
        const parts = [...(withText ? [text] : []), ...ids.map((id) => image(id))]
        const reg = registration([{
          id: A,
          subscriptions: [intercept(["user.message.inbound"], { failurePolicy, upload: upload() })]
        }])
        const attachments = Object.fromEntries(ids.map((id) => [id, Attachment.bytes(bytes)]))
        const result = yield* dispatch(reg, { transports: layer, uploads: memory.layer }, inbound(parts), {
          attachments
        })
        assert.strictEqual(result.decision.permission, "deny")
        assert.deepStrictEqual(result.errors, [])
        const seen = partsOf(log[0]!.event).filter((p: any) => p.kind === "attachment")
        assert.strictEqual(seen.length, count)
        for (const part of seen) {
          assert.deepStrictEqual(Object.keys(part.body), ["ref"])
          assert.notStrictEqual(part.body.ref, "host-local")
          assert.deepStrictEqual(memory.memory.stored.get(part.body.ref), bytes)
        }
      }),
    { fastCheck: { numRuns: 30 } }
  )

  it.effect("a source is read once for every receiver; each subscription gets its own upload and reference", () =>
    Effect.gen(function*() {
      const { layer, log } = backends({ [A]: answer(), [B]: answer(), [O]: answer() })
      const memory = Uploads.layerMemory()
      const reg = registration([
        { id: A, subscriptions: [intercept(["user.message.inbound"], { upload: upload() })] },
        {
          id: B,
          subscriptions: [
            intercept(["user.message.inbound"], { upload: upload({ endpoint: "https://other.example/u" }) })
          ]
        },
        { id: O, subscriptions: [observe(["user.message.inbound"], { upload: upload() })] }
      ])
      const { source, state } = counted(png)
      const result = yield* dispatch(reg, { transports: layer, uploads: memory.layer }, inbound([image()]), {
        attachments: { img: source }
      })
      assert.deepStrictEqual(result.errors, [])
      assert.deepStrictEqual(result.observations.map((o) => o.outcome), ["delivered"])
      assert.strictEqual(state.runs, 1)
      const refs = log.map((entry) => partsOf(entry.event)[0].body.ref)
      assert.strictEqual(new Set(refs).size, 3)
      assert.deepStrictEqual(memory.memory.received.map((r) => [r.backend, r.config.endpoint]), [
        [A, "https://uploads.example/bytes?bucket=1"],
        [B, "https://other.example/u"],
        [O, "https://uploads.example/bytes?bucket=1"]
      ])
      for (const ref of refs) assert.deepStrictEqual(memory.memory.stored.get(ref), png)
      assert.strictEqual(partsOf(result.event)[0].body.ref, "host-local")
    }))

  it.effect("metadata and omit selections never read the source nor upload", () =>
    Effect.gen(function*() {
      const { layer, log } = backends({ [A]: answer(), [O]: answer() })
      const memory = Uploads.layerMemory()
      const reg = registration([
        {
          id: A,
          subscriptions: [
            intercept(["user.message.inbound"], { content: { default: "body", images: "metadata" }, upload: upload() })
          ]
        },
        {
          id: O,
          subscriptions: [observe(["user.message.inbound"], { content: { default: "omit" }, upload: upload() })]
        }
      ])
      const { source, state } = counted(png)
      const result = yield* dispatch(reg, { transports: layer, uploads: memory.layer }, inbound([image()]), {
        attachments: { img: source, unused: Attachment.file("/nonexistent/never-read") }
      })
      assert.deepStrictEqual(result.errors, [])
      assert.strictEqual(state.runs, 0)
      assert.strictEqual(memory.memory.received.length, 0)
      assert.deepStrictEqual(partsOf(log[0]!.event)[0], {
        id: "img",
        kind: "attachment",
        mediaType: "image/png",
        selection: "metadata"
      })
      assert.deepStrictEqual(partsOf(log[1]!.event)[0], {
        id: "img",
        kind: "attachment",
        mediaType: "image/png",
        selection: "omit"
      })
    }))

  it.effect("the per-call byte budget: over it is attachment-budget for each delivery that needs it, and nothing is sent", () =>
    Effect.gen(function*() {
      const { layer, log } = backends({ [A]: answer(), [B]: deny })
      const memory = Uploads.layerMemory()
      const reg = registration([
        { id: A, subscriptions: [intercept(["user.message.inbound"], { upload: upload() })] },
        {
          id: B,
          subscriptions: [intercept(["user.message.inbound"], { failurePolicy: "fail-closed", upload: upload() })]
        }
      ])
      const { source, state } = counted(png)
      const result = yield* dispatch(reg, { transports: layer, uploads: memory.layer }, inbound([image()]), {
        attachments: { img: source },
        maxAttachmentBytes: png.length - 1
      })
      assert.strictEqual(state.runs, 1)
      assert.deepStrictEqual(result.errors.map((e) => [e.backend, e.phase, e.code, e.syntheticDenial]), [
        [A, "prepare", "attachment-budget", false],
        [B, "prepare", "attachment-budget", true]
      ])
      assert.strictEqual(result.decision.permission, "deny")
      assert.strictEqual(log.length, 0)
      assert.strictEqual(memory.memory.received.length, 0)
    }))

  it.effect("the service budget applies when the call sets none; a source larger than upload.maxBytes is never sent", () =>
    Effect.gen(function*() {
      const { layer, log } = backends({ [A]: answer(), [B]: answer() })
      const memory = Uploads.layerMemory()
      const reg = registration([
        { id: A, subscriptions: [intercept(["user.message.inbound"], { upload: upload({ maxBytes: 4 }) })] },
        { id: B, subscriptions: [intercept(["user.message.inbound"], { upload: upload() })] }
      ])
      const result = yield* dispatch(reg, { transports: layer, uploads: memory.layer }, inbound([image()]), {
        attachments: { img: Attachment.bytes(png) }
      }, { maxAttachmentBytes: 1024 })
      assert.deepStrictEqual(result.errors.map((e) => [e.backend, e.code]), [[A, "upload-too-large"]])
      assert.deepStrictEqual(log.map((entry) => entry.backend), [B])
      assert.deepStrictEqual(memory.memory.received.map((r) => r.backend), [B])
      const small = yield* dispatch(reg, { transports: layer, uploads: memory.layer }, inbound([image()]), {
        attachments: { img: Attachment.bytes(png) }
      }, { maxAttachmentBytes: 4 })
      assert.deepStrictEqual(small.errors.map((e) => [e.backend, e.code]), [[A, "attachment-budget"], [
        B,
        "attachment-budget"
      ]])
    }))

  it.effect("a missing source, a stated digest that differs, no upload endpoint, no upload service: typed failures", () =>
    Effect.gen(function*() {
      const { layer } = backends({ [A]: answer(), [B]: answer() })
      const memory = Uploads.layerMemory()
      const reg = registration([
        { id: A, subscriptions: [intercept(["user.message.inbound"], { upload: upload() })] },
        { id: B, subscriptions: [intercept(["user.message.inbound"])] }
      ])
      const codes = (result: DispatchResult.DispatchResult) => result.errors.map((e) => [e.backend, e.code])
      const missing = yield* dispatch(reg, { transports: layer, uploads: memory.layer }, inbound([image()]))
      assert.deepStrictEqual(codes(missing), [[A, "attachment-missing"], [B, "attachment-missing"]])
      const mismatch = yield* dispatch(reg, { transports: layer, uploads: memory.layer }, inbound([image()]), {
        attachments: { img: Attachment.bytes(png, { sha256: "0".repeat(64) }) }
      })
      assert.deepStrictEqual(codes(mismatch), [[A, "attachment-mismatch"], [B, "attachment-mismatch"]])
      const sized = yield* dispatch(reg, { transports: layer, uploads: memory.layer }, inbound([image()]), {
        attachments: { img: Attachment.bytes(png, { size: png.length }) }
      })
      assert.deepStrictEqual(codes(sized), [[B, "upload-unconfigured"]])
      const unavailable = yield* dispatch(reg, { transports: layer }, inbound([image()]), {
        attachments: { img: Attachment.bytes(png) }
      })
      assert.deepStrictEqual(codes(unavailable), [[A, "upload-unavailable"], [B, "upload-unconfigured"]])
      const file = yield* dispatch(reg, { transports: layer, uploads: memory.layer }, inbound([image()]), {
        attachments: { img: Attachment.file("/some/file.png") }
      })
      assert.deepStrictEqual(codes(file), [[A, "attachment-unreadable"], [B, "attachment-unreadable"]])
    }))

  it.effect("a failing stream source is attachment-unreadable, without its error text", () =>
    Effect.gen(function*() {
      const { layer } = backends({ [A]: answer() })
      const reg = registration([{ id: A, subscriptions: [intercept(["user.message.inbound"], { upload: upload() })] }])
      const broken = Attachment.stream(Stream.concat(Stream.make(png), Stream.fail("secret-token-123")))
      const result = yield* dispatch(
        reg,
        { transports: layer, uploads: Uploads.layerMemory().layer },
        inbound([image()]),
        {
          attachments: { img: broken }
        }
      )
      assert.strictEqual(result.errors[0]?.code, "attachment-unreadable")
      assert.notInclude(JSON.stringify(result.errors), "secret-token-123")
    }))

  it.effect("a failed upload fails only its own delivery; a receipt that does not match the bytes is a failure", () =>
    Effect.gen(function*() {
      const { layer, log } = backends({ [A]: deny, [B]: answer({ type: "deny", reason: "b" }), [O]: answer() })
      const uploads = Layer.succeed(
        Uploads.Uploads,
        Uploads.Uploads.of({
          upload: (request) =>
            request.backend === A
              ? Effect.fail(new Uploads.UploadError({ reason: "upload-status", detail: "HTTP 202", status: 202 }))
              : request.backend === O
              ? Effect.succeed({ ref: "lying", size: request.snapshot.size, sha256: "f".repeat(64) })
              : Effect.succeed({
                ref: `ok-${request.backend}`,
                size: request.snapshot.size,
                sha256: request.snapshot.sha256
              })
        })
      )
      const reg = registration([
        { id: A, subscriptions: [intercept(["user.message.inbound"], { upload: upload() })] },
        { id: B, subscriptions: [intercept(["user.message.inbound"], { upload: upload() })] },
        { id: O, subscriptions: [observe(["user.message.inbound"], { upload: upload() })] }
      ])
      const result = yield* dispatch(reg, { transports: layer, uploads }, inbound([image()]), {
        attachments: { img: Attachment.bytes(png) }
      })
      assert.deepStrictEqual(result.errors.map((e) => [e.backend, e.phase, e.code, e.httpStatus]), [[
        A,
        "prepare",
        "upload-status",
        202
      ]])
      assert.strictEqual(result.decision.permission, "deny")
      assert.deepStrictEqual(log.map((entry) => [entry.backend, partsOf(entry.event)[0].body.ref]), [[B, `ok-${B}`]])
      assert.deepStrictEqual(result.observations.map((o) => [o.backend, o.outcome, o.code]), [[
        O,
        "failed",
        "upload-receipt"
      ]])
    }))

  it.effect("edits may keep an attachment only under the reference the receiver was shown; the next receiver gets its own", () =>
    Effect.gen(function*() {
      const keep: Script = (request) => {
        const part = attachmentOf(request.params.event)
        return answer({
          type: "modify",
          target: "prompt",
          operation: "replace",
          value: [{ id: "m2", role: "user", parts: [part] }]
        })(request, 0)
      }
      const substitute: Script = (request) =>
        answer({
          type: "modify",
          target: "prompt",
          operation: "replace",
          value: [{ id: "m3", role: "user", parts: [{ ...image(), body: { ref: "host-local" } }] }]
        })(request, 0)
      const { layer, log } = backends({ [A]: keep, [B]: substitute, [O]: answer() })
      const memory = Uploads.layerMemory()
      const reg = registration([
        { id: A, subscriptions: [intercept(["user.message.inbound"], { upload: upload() })] },
        { id: B, subscriptions: [intercept(["user.message.inbound"], { upload: upload() })] },
        { id: O, subscriptions: [observe(["user.message.inbound"], { upload: upload() })] }
      ])
      const result = yield* dispatch(reg, { transports: layer, uploads: memory.layer }, inbound([text, image()]), {
        attachments: { img: Attachment.bytes(png) }
      })
      assert.deepStrictEqual(result.errors.map((e) => [e.backend, e.code]), [[B, "attachment-edit"]])
      const effective = result.event as any
      assert.deepStrictEqual(effective.message.messages.map((m: any) => m.id), ["m2"])
      assert.deepStrictEqual(effective.message.messages[0].parts, [image()])
      const [a, b, o] = log.map((entry) => attachmentOf(entry.event).body.ref)
      assert.notStrictEqual(a, b)
      assert.notStrictEqual(b, o)
      assert.strictEqual(log[2]!.event.message.messages[0].id, "m2")
    }))

  it.live("a hung upload fails at upload.timeoutMs under the route's policy, and the next route still runs", () =>
    Effect.gen(function*() {
      const { layer, log } = backends({ [A]: answer(), [B]: deny })
      let interrupted = 0
      const uploads = Layer.succeed(
        Uploads.Uploads,
        Uploads.Uploads.of({
          upload: (request) =>
            request.backend === A
              ? Effect.onInterrupt(Effect.never, () => Effect.sync(() => interrupted++))
              : Effect.succeed({ ref: "b", size: request.snapshot.size, sha256: request.snapshot.sha256 })
        })
      )
      const reg = registration([
        {
          id: A,
          subscriptions: [
            intercept(["user.message.inbound"], { failurePolicy: "fail-open", upload: upload({ timeoutMs: 50 }) })
          ]
        },
        { id: B, subscriptions: [intercept(["user.message.inbound"], { upload: upload() })] }
      ])
      const result = yield* dispatch(reg, { transports: layer, uploads }, inbound([image()]), {
        attachments: { img: Attachment.bytes(png) }
      })
      assert.deepStrictEqual(result.errors.map((e) => [e.backend, e.code, e.syntheticDenial]), [[
        A,
        "upload-timeout",
        false
      ]])
      assert.strictEqual(interrupted, 1)
      assert.deepStrictEqual(log.map((entry) => entry.backend), [B])
      assert.strictEqual(result.decision.permission, "deny")
    }))

  it.live("uploads share the service's concurrency limit", () =>
    Effect.gen(function*() {
      const observers = ["com.example.o1", "com.example.o2", "com.example.o3", "com.example.o4"]
      const { layer } = backends(Object.fromEntries(observers.map((id) => [id, answer()])))
      let inFlight = 0
      let most = 0
      const uploads = Layer.succeed(
        Uploads.Uploads,
        Uploads.Uploads.of({
          upload: (request) =>
            Effect.gen(function*() {
              inFlight++
              most = Math.max(most, inFlight)
              yield* Effect.sleep("20 millis")
              inFlight--
              return { ref: request.backend, size: request.snapshot.size, sha256: request.snapshot.sha256 }
            })
        })
      )
      const reg = registration(
        observers.map((id) => ({ id, subscriptions: [observe(["user.message.inbound"], { upload: upload() })] }))
      )
      const result = yield* dispatch(reg, { transports: layer, uploads }, inbound([image("a"), image("b")]), {
        attachments: { a: Attachment.bytes(png), b: Attachment.bytes(png.slice(1)) }
      }, { uploadConcurrency: 2 })
      assert.deepStrictEqual(result.observations.map((o) => o.outcome), [
        "delivered",
        "delivered",
        "delivered",
        "delivered"
      ])
      assert.strictEqual(most, 2)
    }))
})
