/**
 * The public arbitraries agree with the harness: every registration
 * `Arbitraries.registration` draws is one `Hooks` accepts (the registry's host rules
 * included), and `Arbitraries.event` draws events whose attachments have sources as well
 * as events with none, so properties over attachments are not silently vacuous.
 */
import { Attachment, Grant, Hooks, Registry, Uploads } from "@effect-ahp/harness"
import { Arbitraries, Event } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, FastCheck, Layer } from "effect"
import { answer, backends, intercept, registration } from "./support.js"

const A = "com.example.a"

/** Every attachment part of a JSON value. */
const attachmentsOf = (value: unknown): Array<any> =>
  Array.isArray(value)
    ? value.flatMap(attachmentsOf)
    : typeof value === "object" && value !== null
    ? [...((value as any).kind === "attachment" ? [value] : []), ...Object.values(value).flatMap(attachmentsOf)]
    : []

describe("Arbitraries agree with the harness", () => {
  it("Arbitraries.registration draws only documents the registry compiles", () => {
    FastCheck.assert(
      FastCheck.property(Arbitraries.registration, (document) => {
        const compiled = Registry.compile(document, Grant.full(), { served: [] })
        if (Either.isLeft(compiled)) throw new Error(JSON.stringify(compiled.left.issues))
      }),
      { numRuns: 200 }
    )
    assert.ok(true)
  })

  it("Arbitraries.event draws valid events with attachments (ids of their own) or with none", () => {
    const validate = Event.validatorFor("user.message.inbound")
    for (const attachments of ["some", "none"] as const) {
      for (const event of FastCheck.sample(Arbitraries.event("user.message.inbound", { attachments }), 40)) {
        assert.deepStrictEqual(validate(event), [])
        const parts = attachmentsOf(event)
        if (attachments === "none") assert.strictEqual(parts.length, 0)
        else {
          assert.isAbove(parts.length, 0)
          assert.strictEqual(new Set(parts.map((p) => p.id)).size, parts.length)
          for (const part of parts) assert.deepStrictEqual(part.body, { ref: "host-local" })
        }
      }
    }
  })

  const drawn = FastCheck.constantFrom("some" as const, "none" as const).chain((attachments) =>
    Arbitraries.event("user.message.inbound", { attachments }).chain((event) =>
      Arbitraries.sources(event).map((sources) => ({ attachments, event, sources }))
    )
  )

  it.effect.prop(
    "a body-selecting backend receives every sourced attachment uploaded, and a call with none uploads nothing",
    [drawn],
    ([{ attachments, event, sources }]) =>
      Effect.gen(function*() {
        const { layer, log } = backends({ [A]: answer() })
        const memory = Uploads.layerMemory()
        const reg = registration([{
          id: A,
          subscriptions: [intercept(["user.message.inbound"], {
            upload: { endpoint: "https://uploads.example/bytes", timeoutMs: 2000, maxBytes: 1024 }
          })]
        }])
        const { id: _id, source: _source, time: _time, type: _type, ...input } = event
        const result = yield* Hooks.dispatch("user.message.inbound", input, {
          attachments: Object.fromEntries(Object.entries(sources).map(([id, bytes]) => [id, Attachment.bytes(bytes)]))
        }).pipe(Effect.provide(Hooks.layer(reg as any).pipe(Layer.provide(Layer.merge(layer, memory.layer)))))
        assert.deepStrictEqual(result.errors, [])
        const seen = attachmentsOf(log[0]!.event)
        assert.strictEqual(seen.length, Object.keys(sources).length)
        if (attachments === "some") assert.isAbove(seen.length, 0)
        for (const part of seen) {
          assert.notStrictEqual(part.body.ref, "host-local")
          assert.deepStrictEqual(memory.memory.stored.get(part.body.ref), sources[part.id])
        }
      }),
    { fastCheck: { numRuns: 30 } }
  )
})
