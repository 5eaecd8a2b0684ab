/**
 * The decision audit as OpenTelemetry: for each record, a span for the call (`ahp.call`)
 * with a child span per called interceptor (`ahp.interceptor`), and one log record holding
 * the audit record as JSON. The decision, its failure codes and where the chain stopped are
 * span attributes. The call's span is a child of the event's W3C trace context when it has
 * one, and is timed from the settlement back over the interceptors' latencies.
 *
 * The sink writes through a `Tracer` and a `Logger` it is given (an OTLP exporter's, say),
 * off the decision's critical path like every audit sink (`Audit.make`). No event content
 * is logged unless `content: true`.
 *
 * @since 0.1.0
 */
import { Decoder, Json } from "@effect-ahp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import type * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Tracer from "effect/Tracer"
import * as Audit from "./Audit.js"
import * as Tracing from "./Tracing.js"

const encode = Decoder.lazy(() => Schema.encodeSync(Audit.Record))

/**
 * The attributes of a call's span.
 *
 * @since 0.1.0
 * @category attributes
 */
export const callAttributes = (
  record: Audit.Record
): Record<string, string | number | boolean | ReadonlyArray<string>> => {
  const s = record.settlement
  return {
    "ahp.event.id": record.event.id,
    "ahp.event.type": record.event.type,
    "ahp.event.source": record.event.source,
    ...(record.event.sessionId !== undefined ? { "ahp.session.id": record.event.sessionId } : {}),
    ...(record.event.turnId !== undefined ? { "ahp.turn.id": record.event.turnId } : {}),
    ...(record.event.callId !== undefined ? { "ahp.call.id": record.event.callId } : {}),
    "ahp.decision": s.decision,
    "ahp.decision.synthetic": s.syntheticDenial,
    ...(s.denialCode !== undefined ? { "ahp.denial.code": s.denialCode } : {}),
    "ahp.flow": s.flow,
    "ahp.result_supplied": s.resultSupplied,
    "ahp.interrupted": s.interrupted,
    ...(s.stoppedAt !== null
      ? { "ahp.stopped_at.backend": s.stoppedAt.backend, "ahp.stopped_at.subscription": s.stoppedAt.subscription }
      : {}),
    "ahp.interceptors": record.interceptors.length,
    "ahp.failure.codes": record.interceptors.flatMap((i) => i.code === undefined ? [] : [i.code]),
    "ahp.observer.failure.codes": record.observers.flatMap((o) => o.code === undefined ? [] : [o.code])
  }
}

const interceptorAttributes = (interceptor: Audit.Record["interceptors"][number]) => ({
  "ahp.backend": interceptor.backend,
  "ahp.subscription": interceptor.subscription,
  "ahp.transport": interceptor.transport,
  "ahp.outcome": interceptor.outcome,
  ...(interceptor.code !== undefined ? { "ahp.failure.code": interceptor.code } : {}),
  "ahp.failure_policy": interceptor.failurePolicy,
  "ahp.synthetic_denial": interceptor.syntheticDenial,
  "ahp.effects": interceptor.effects.map((e) => e.type)
})

const nanos = (ms: number) => BigInt(Math.round(ms * 1_000_000))

/**
 * Writes one record as spans through `tracer` and a log record through `logger`.
 *
 * @since 0.1.0
 * @category writing
 */
export const write = (
  tracer: Tracer.Tracer,
  logger: Logger.Logger<unknown, unknown>,
  record: Audit.Record
): Effect.Effect<void> =>
  Effect.suspend(() => {
    const end = Date.parse(record.time)
    const total = record.interceptors.reduce((sum, i) => sum + i.latencyMs, 0)
    const call = tracer.span(
      "ahp.call",
      Tracing.parentOf(record.event.traceContext?.traceparent),
      Context.empty(),
      [],
      nanos(end - total),
      "internal"
    )
    const attributes = callAttributes(record)
    for (const [key, value] of Object.entries(attributes)) call.attribute(key, value)
    let at = end - total
    for (const interceptor of record.interceptors) {
      const child = tracer.span("ahp.interceptor", Option.some(call), call.context, [], nanos(at), "internal")
      for (const [key, value] of Object.entries(interceptorAttributes(interceptor))) child.attribute(key, value)
      at += interceptor.latencyMs
      child.end(nanos(at), Exit.void)
    }
    call.end(nanos(end), Exit.void)
    return Effect.logInfo(Json.stringify(encode(record))).pipe(
      Effect.annotateLogs(attributes),
      Effect.withParentSpan(call),
      Effect.locally(FiberRef.currentLoggers, HashSet.make(logger)),
      Effect.locally(FiberRef.currentMinimumLogLevel, LogLevel.Info)
    )
  })

/**
 * An audit service exporting each record through `tracer` and `logger`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  options: Audit.Options & {
    readonly tracer: Tracer.Tracer
    readonly logger: Logger.Logger<unknown, unknown>
  }
) =>
  Audit.make(
    (records) => Effect.forEach(records, (record) => write(options.tracer, options.logger, record), { discard: true }),
    options
  )
