/**
 * One source of spans: under an installed tracer, the live span of each call (`ahp.call`)
 * carries the decision's attributes — the same the audit record gives (`callAttributes`) —
 * and each called route's live span (`ahp.interceptor`, its child) what its step came to,
 * a timeout included. The tracer records every span it is asked for, in memory.
 */
import { Audit, AuditTelemetry, Hooks, Transport } from "@effect-ahp/harness"
import { assert, describe, it } from "@effect/vitest"
import { Effect, type Layer, Option, Tracer } from "effect"
import { answer, backends, intercept, observe, registration, toolBefore } from "./support.js"

interface Recorded {
  readonly name: string
  readonly spanId: string
  readonly parent: Option.Option<Tracer.AnySpan>
  readonly attributes: Map<string, unknown>
  ended: boolean
}

/** A tracer keeping every span it makes, in the order they were started. */
const recording = () => {
  const spans: Array<Recorded> = []
  let next = 0
  const tracer = Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const spanId = (++next).toString(16).padStart(16, "0")
      const traceId = Option.match(parent, { onNone: () => "1".repeat(32), onSome: (p) => p.traceId })
      const recorded: Recorded = { name, spanId, parent, attributes: new Map(), ended: false }
      spans.push(recorded)
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId,
        traceId,
        parent,
        context,
        status: { _tag: "Started", startTime },
        attributes: recorded.attributes,
        links,
        sampled: true,
        kind,
        end: (endTime, exit) => {
          recorded.ended = true
          ;(span as { status: Tracer.SpanStatus }).status = { _tag: "Ended", startTime, endTime, exit }
        },
        attribute: (key, value) => void recorded.attributes.set(key, value),
        event: () => {},
        addLinks: () => {}
      }
      return span
    },
    context: (f) => f()
  })
  return { spans, tracer }
}

const parentId = (span: Recorded) => Option.match(span.parent, { onNone: () => undefined, onSome: (p) => p.spanId })

const reg = registration([
  { id: "a.modify", subscriptions: [intercept(["tool.before"], { id: "m" })] },
  { id: "b.quiet", subscriptions: [intercept(["tool.before"], { id: "q" })] },
  { id: "c.broken", subscriptions: [intercept(["tool.before"], { id: "b" })] },
  { id: "d.deny", subscriptions: [intercept(["tool.before"], { id: "d" })] },
  { id: "e.after", subscriptions: [intercept(["tool.before"], { id: "never" })] },
  { id: "f.watch", subscriptions: [observe(["tool.before"], { id: "w" })] }
])

const scripted = () =>
  backends({
    "a.modify": answer(
      { type: "modify", target: "input", operation: "replace", value: { command: "ls -la" } } as never
    ),
    "b.quiet": answer(),
    "c.broken": () => Effect.fail(new Transport.TransportError({ reason: "exited", detail: "gone" })),
    "d.deny": answer({ type: "deny", reason: "no rm", code: "policy.rm" }),
    "e.after": answer(),
    "f.watch": answer()
  })

/** Dispatches through hooks over `layer` with an in-memory audit, under `tracer`; the records once it closed. */
const traced = <A>(
  document: unknown,
  layer: Layer.Layer<Transport.Transports>,
  tracer: Tracer.Tracer,
  dispatch: (hooks: Hooks.Hooks["Type"]) => Effect.Effect<A, Hooks.DispatchError>
) =>
  Effect.gen(function*() {
    const records: Array<Audit.Record> = []
    const result = yield* Effect.scoped(Effect.gen(function*() {
      const audit = yield* Audit.make((batch) => Effect.sync(() => records.push(...batch)))
      const hooks = yield* Hooks.makeUnknown(document).pipe(
        Effect.provideService(Audit.Audit, audit),
        Effect.provide(layer)
      )
      return yield* Effect.withTracer(dispatch(hooks), tracer)
    }))
    return { records, result }
  })

describe("live spans", () => {
  it.effect("the call's span carries the audit record's attributes, its routes' spans what each step came to", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recording()
      const { records } = yield* traced(
        reg,
        scripted().layer,
        tracer,
        (hooks) =>
          Effect.withSpan(hooks.dispatch("tool.before", toolBefore({ command: "rm -rf /" })), "host", {
            captureStackTrace: false
          })
      )
      const host = spans.find((s) => s.name === "host")!
      const calls = spans.filter((s) => s.name === "ahp.call")
      assert.strictEqual(calls.length, 1)
      const call = calls[0]!
      assert.isTrue(call.ended)
      assert.strictEqual(parentId(call), host.spanId, "without a carried trace context, a child of the current span")
      assert.strictEqual(records.length, 1)
      assert.deepStrictEqual(
        Object.fromEntries(call.attributes),
        AuditTelemetry.callAttributes(records[0]!),
        "one source: the span says what the audit record says"
      )
      assert.strictEqual(call.attributes.get("ahp.decision"), "deny")
      assert.strictEqual(call.attributes.get("ahp.stopped_at.backend"), "d.deny")
      assert.deepStrictEqual(call.attributes.get("ahp.failure.codes"), ["exited"])
      const routes = spans.filter((s) => s.name === "ahp.interceptor")
      assert.isTrue(routes.every((s) => s.ended && parentId(s) === call.spanId), "each a child of the call's span")
      assert.deepStrictEqual(
        routes.map((s) => [
          s.attributes.get("ahp.backend"),
          s.attributes.get("ahp.subscription"),
          s.attributes.get("ahp.transport"),
          s.attributes.get("ahp.outcome"),
          s.attributes.get("ahp.failure.code"),
          s.attributes.get("ahp.effects")
        ]),
        records[0]!.interceptors.map((i) => [
          i.backend,
          i.subscription,
          i.transport,
          i.outcome,
          i.code,
          i.effects.map((e) => e.type)
        ])
      )
      assert.deepStrictEqual(routes.map((s) => s.attributes.get("ahp.outcome")), [
        "accepted",
        "no-effect",
        "failed",
        "accepted"
      ])
    }))

  it.effect("the call's span is a child of the trace context the event carries", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recording()
      const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
      yield* traced(reg, scripted().layer, tracer, (hooks) =>
        Effect.withSpan(
          hooks.dispatch("tool.before", {
            ...toolBefore(),
            extensions: { "org.w3c.trace_context": { traceparent } }
          }),
          "host",
          { captureStackTrace: false }
        ))
      const call = spans.find((s) => s.name === "ahp.call")!
      const parent = Option.getOrThrow(call.parent)
      assert.strictEqual(parent.spanId, "b7ad6b7169203331")
      assert.strictEqual(parent.traceId, "0af7651916cd43dd8448eb211c80319c")
    }))

  it.live("a route whose deadline expires has a span saying it timed out", () =>
    Effect.gen(function*() {
      const { spans, tracer } = recording()
      const slow = registration([
        {
          id: "s.slow",
          subscriptions: [intercept(["tool.before"], { id: "s", timeoutMs: 50, failurePolicy: "fail-closed" })]
        }
      ])
      const { result } = yield* traced(
        slow,
        backends({ "s.slow": () => Effect.never }).layer,
        tracer,
        (hooks) => hooks.dispatch("tool.before", toolBefore())
      )
      assert.strictEqual(result.decision.permission, "deny")
      const route = spans.find((s) => s.name === "ahp.interceptor")!
      assert.isTrue(route.ended)
      assert.strictEqual(route.attributes.get("ahp.outcome"), "failed")
      assert.strictEqual(route.attributes.get("ahp.failure.code"), "timeout")
      assert.strictEqual(route.attributes.get("ahp.synthetic_denial"), true)
      const call = spans.find((s) => s.name === "ahp.call")!
      assert.deepStrictEqual(call.attributes.get("ahp.failure.codes"), ["timeout"])
      assert.strictEqual(call.attributes.get("ahp.decision.synthetic"), true)
    }))
})
