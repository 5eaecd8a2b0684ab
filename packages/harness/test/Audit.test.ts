/**
 * The decision audit: one record per settled call, checked against the calls made (order,
 * outcomes, synthetic vs explicit deny, hashes, no content unless asked), written off the
 * critical path (a full queue drops and counts), flushed when its scope closes.
 */
import { Audit, Hooks, Tracing, Transport } from "@effect-ahp/harness"
import { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, JSONSchema, Layer, Option, Schema } from "effect"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { answer, backends, intercept, observe, registration, toolBefore } from "./support.js"

/** Runs `dispatch` on hooks with an in-memory audit; the records once the audit's scope closed. */
const audited = <A>(
  reg: unknown,
  layer: Layer.Layer<Transport.Transports>,
  dispatch: (hooks: Hooks.Hooks["Type"]) => Effect.Effect<A, Hooks.DispatchError>,
  options?: Audit.Options
) =>
  Effect.gen(function*() {
    const records: Array<Audit.Record> = []
    const result = yield* Effect.scoped(Effect.gen(function*() {
      const audit = yield* Audit.make((batch) => Effect.sync(() => records.push(...batch)), options)
      const hooks = yield* Hooks.makeUnknown(reg).pipe(Effect.provideService(Audit.Audit, audit), Effect.provide(layer))
      return yield* dispatch(hooks)
    }))
    return { records, result }
  })

const broken = () => Effect.fail(new Transport.TransportError({ reason: "exited", detail: "token=hunter2 leaked" }))

const reg = (policy: "fail-open" | "fail-closed") =>
  registration([
    { id: "a.modify", subscriptions: [intercept(["tool.before"], { id: "m" })] },
    { id: "b.quiet", subscriptions: [intercept(["tool.before"], { id: "q" })] },
    { id: "c.broken", subscriptions: [intercept(["tool.before"], { id: "b", failurePolicy: policy })] },
    { id: "d.deny", subscriptions: [intercept(["tool.before"], { id: "d" })] },
    { id: "e.after", subscriptions: [intercept(["tool.before"], { id: "never" })] },
    { id: "f.watch", subscriptions: [observe(["tool.before"], { id: "w" })] }
  ])

const edit = { type: "modify", target: "input", operation: "replace", value: { command: "ls -la" } }

const scripts = () =>
  backends({
    "a.modify": answer(edit as never),
    "b.quiet": answer(),
    "c.broken": broken,
    "d.deny": answer({ type: "deny", reason: "no rm", code: "policy.rm" }),
    "e.after": answer(),
    "f.watch": answer()
  })

const sha256 = (value: Json.JsonValue) => `sha256:${createHash("sha256").update(Json.stringify(value)).digest("hex")}`

describe("Audit", () => {
  it.effect("records the called interceptors in order, the explicit deny that stopped the chain, the observers and the hashes", () =>
    Effect.gen(function*() {
      const { layer, log } = scripts()
      const { records, result } = yield* audited(
        reg("fail-open"),
        layer,
        (hooks) => hooks.dispatch("tool.before", toolBefore({ command: "rm -rf /" }))
      )
      assert.strictEqual(records.length, 1)
      const record = records[0]!
      assert.deepStrictEqual(Schema.decodeUnknownSync(Audit.Record)(Schema.encodeSync(Audit.Record)(record)), record)
      assert.deepStrictEqual(record.event, {
        id: "evt_1",
        type: "tool.before",
        source: "urn:effect-ahp:harness",
        sessionId: "sess_1",
        callId: "call_1"
      })
      assert.deepStrictEqual(
        record.interceptors.map((
          i
        ) => [i.backend, i.subscription, i.outcome, i.code, i.failurePolicy, i.syntheticDenial, i.effects]),
        [
          ["a.modify", "m", "accepted", undefined, "fail-open", false, [{
            type: "modify",
            target: "input",
            operation: "replace"
          }]],
          ["b.quiet", "q", "no-effect", undefined, "fail-open", false, []],
          ["c.broken", "b", "failed", "exited", "fail-open", false, []],
          ["d.deny", "d", "accepted", undefined, "fail-open", false, [{ type: "deny" }]]
        ]
      )
      assert.isTrue(record.interceptors.every((i) => i.latencyMs >= 0))
      assert.deepStrictEqual(record.settlement, {
        decision: "deny",
        syntheticDenial: false,
        denialCode: "policy.rm",
        flow: "none",
        resultSupplied: false,
        interrupted: false,
        stoppedAt: { backend: "d.deny", subscription: "d" }
      })
      assert.deepStrictEqual(record.observers.map((o) => [o.backend, o.outcome]), [["f.watch", "delivered"], [
        "e.after",
        "delivered"
      ]])
      assert.strictEqual(record.inputHash.after, sha256(result.event))
      assert.notStrictEqual(record.inputHash.before, record.inputHash.after, "the edit changed the input")
      assert.deepStrictEqual(log.filter((m) => m.method === "hooks/intercept").map((m) => m.backend), [
        "a.modify",
        "b.quiet",
        "c.broken",
        "d.deny"
      ])
      const text = JSON.stringify(records)
      assert.notInclude(text, "rm -rf", "no content without content: true")
      assert.notInclude(text, "hunter2", "no failure detail")
    }))

  it.effect("a fail-closed failure is recorded as a synthetic denial, told apart from an explicit deny", () =>
    Effect.gen(function*() {
      const { layer } = scripts()
      const { records } = yield* audited(
        reg("fail-closed"),
        layer,
        (hooks) => hooks.dispatch("tool.before", toolBefore())
      )
      const record = records[0]!
      assert.deepStrictEqual(record.interceptors.map((i) => [i.backend, i.outcome, i.syntheticDenial]), [
        ["a.modify", "accepted", false],
        ["b.quiet", "no-effect", false],
        ["c.broken", "failed", true]
      ])
      assert.strictEqual(record.settlement.decision, "deny")
      assert.isTrue(record.settlement.syntheticDenial)
      assert.deepStrictEqual(record.settlement.stoppedAt, { backend: "c.broken", subscription: "b" })
    }))

  it.effect("content: true records the event as dispatched", () =>
    Effect.gen(function*() {
      const { layer } = scripts()
      const { records } = yield* audited(
        reg("fail-open"),
        layer,
        (hooks) => hooks.dispatch("tool.before", toolBefore({ command: "echo hi" })),
        { content: true }
      )
      const event = records[0]!.content!.event as any
      assert.strictEqual(event.tool.input.command, "echo hi")
      assert.strictEqual(records[0]!.inputHash.before, sha256(event))
    }))

  it.effect("a full queue drops records and counts them instead of delaying the decision", () =>
    Effect.gen(function*() {
      const { layer } = backends({ "a.modify": answer() })
      const gate = yield* Deferred.make<void>()
      const records: Array<Audit.Record> = []
      const dropped = yield* Effect.scoped(Effect.gen(function*() {
        // The sink holds its first batch until the calls are done.
        const audit = yield* Audit.make(
          (batch) => Effect.zipRight(Deferred.await(gate), Effect.sync(() => records.push(...batch))),
          { capacity: 2 }
        )
        const hooks = yield* Hooks.makeUnknown(
          registration([{ id: "a.modify", subscriptions: [intercept(["tool.before"])] }])
        )
          .pipe(
            Effect.provideService(Audit.Audit, audit),
            Effect.provide(layer)
          )
        yield* Effect.yieldNow()
        for (let i = 0; i < 8; i++) yield* hooks.dispatch("tool.before", toolBefore())
        const dropped = yield* audit.dropped
        yield* Deferred.succeed(gate, undefined)
        return dropped
      }))
      assert.isAbove(dropped, 0)
      assert.strictEqual(records.length + dropped, 8, "every record is either written (at scope close) or counted")
    }))

  it.effect("without an Audit service nothing is recorded and the decision is the same", () =>
    Effect.gen(function*() {
      const { layer } = scripts()
      const hooks = yield* Hooks.makeUnknown(reg("fail-open")).pipe(Effect.provide(layer))
      const result = yield* hooks.dispatch("tool.before", toolBefore())
      assert.strictEqual(result.decision.permission, "deny")
    }).pipe(Effect.scoped))

  it("docs/audit-record.schema.json is the record's JSON Schema", () => {
    const file = new URL("../../../docs/audit-record.schema.json", import.meta.url)
    assert.deepStrictEqual(JSON.parse(fs.readFileSync(file, "utf8")), JSONSchema.make(Audit.Record))
  })
})

describe("Audit.combine", () => {
  it.scoped("hands each call to every sink", () =>
    Effect.gen(function*() {
      const a: Array<Audit.Record> = []
      const b: Array<Audit.Record> = []
      const dropped = yield* Effect.scoped(Effect.gen(function*() {
        const first = yield* Audit.make((batch) => Effect.sync(() => a.push(...batch)))
        const second = yield* Audit.make((batch) => Effect.sync(() => b.push(...batch)), { capacity: 1 })
        const both = Audit.combine([first, second])
        const hooks = yield* Hooks.makeUnknown(
          registration([{ id: "a.quiet", subscriptions: [intercept(["tool.before"])] }])
        )
          .pipe(
            Effect.provideService(Audit.Audit, both),
            Effect.provide(backends({ "a.quiet": answer() }).layer)
          )
        yield* hooks.dispatch("tool.before", toolBefore())
        return yield* both.dropped
      }))
      assert.strictEqual(a.length, 1)
      assert.strictEqual(b.length, 1)
      assert.deepStrictEqual(a[0]!.event, b[0]!.event)
      assert.strictEqual(dropped, 0)
    }))
})

describe("Tracing.exportRequested", () => {
  it("reads only the OTEL_* variables", () => {
    assert.isFalse(Tracing.exportRequested({}))
    assert.isFalse(Tracing.exportRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: " " }))
    assert.isTrue(Tracing.exportRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" }))
    assert.isTrue(Tracing.exportRequested({ OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: "http://collector:4318/v1/logs" }))
    assert.isTrue(Tracing.exportRequested({ OTEL_LOGS_EXPORTER: "otlp" }))
    assert.isFalse(Tracing.exportRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c", OTEL_SDK_DISABLED: "TRUE" }))
    assert.isFalse(
      Tracing.exportRequested({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c",
        OTEL_TRACES_EXPORTER: "none",
        OTEL_LOGS_EXPORTER: "none"
      })
    )
  })
})

describe("Tracing.parentOf", () => {
  it("reads a well-formed traceparent, and nothing else", () => {
    const parent = Tracing.parentOf("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
    assert.isTrue(Option.isSome(parent))
    const span = Option.getOrThrow(parent)
    assert.deepStrictEqual([span.traceId, span.spanId, span.sampled], [
      "0af7651916cd43dd8448eb211c80319c",
      "b7ad6b7169203331",
      true
    ])
    assert.isFalse(
      Option.getOrThrow(Tracing.parentOf("00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-00")).sampled
    )
    assert.isTrue(Option.isNone(Tracing.parentOf("00-XYZ-b7ad6b7169203331-01")))
    assert.isTrue(Option.isNone(Tracing.parentOf(undefined)))
  })
})

describe("Audit as a reference", () => {
  it.effect("an Audit merged beside Hooks instead of provided to it records too", () =>
    Effect.gen(function*() {
      const records: Array<Audit.Record> = []
      const { layer } = backends({ "a.modify": answer(edit) })
      const hooksLive = Hooks.layerUnknown(registration([
        { id: "a.modify", subscriptions: [intercept(["tool.before"])] }
      ])).pipe(Layer.provide(layer))
      const auditLive = Audit.layer((batch) => Effect.sync(() => records.push(...batch)))
      yield* Hooks.dispatch("tool.before", toolBefore()).pipe(
        Effect.provide(Layer.merge(hooksLive, auditLive))
      )
      assert.lengthOf(records, 1)
      assert.deepStrictEqual(records[0]!.interceptors.map((i) => [i.backend, i.outcome]), [["a.modify", "accepted"]])
      // Without any Audit, the reference's default records nothing and costs nothing.
      assert.strictEqual(yield* Effect.flatMap(Audit.Audit, (audit) => audit.dropped), 0)
      assert.strictEqual(yield* Audit.Audit, Audit.none)
    }))
})
