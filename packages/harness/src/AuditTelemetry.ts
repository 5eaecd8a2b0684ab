/**
 * The decision as OpenTelemetry. The spans are the live ones `Hooks` opens under an
 * installed tracer: the call's span (`ahp.call`, a child of the event's W3C trace context
 * when it carries one, else of the current span) carries `callAttributes` once the
 * decision is settled, and each called interceptor's span (`ahp.interceptor`, see `Chain`)
 * carries what its step came to. The audit
 * sink (`make`) adds one log record per audit record, holding the record as JSON with the
 * call's attributes, under the event's trace context; it writes through a `Logger` it is
 * given (an OTLP exporter's, say), off the decision's critical path like every audit sink
 * (`Audit.make`). No event content is logged unless `content: true`.
 *
 * @since 0.1.0
 */
import { Decoder, Json } from "@effect-ahp/protocol"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import type * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Audit from "./Audit.js"
import * as Tracing from "./Tracing.js"

const encode = Decoder.lazy(() => Schema.encodeSync(Audit.Record))

/**
 * The attributes of a call's span (`ahp.call`), from its summary (or its audit record).
 *
 * @since 0.1.0
 * @category attributes
 */
export const callAttributes = (
  record: Audit.Summary
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

/**
 * Writes one record as a log record through `logger`, under the event's trace context.
 *
 * @since 0.1.0
 * @category writing
 */
export const write = (logger: Logger.Logger<unknown, unknown>, record: Audit.Record): Effect.Effect<void> =>
  Effect.suspend(() => {
    const log = Effect.logInfo(Json.stringify(encode(record))).pipe(
      Effect.annotateLogs(callAttributes(record)),
      Effect.locally(FiberRef.currentLoggers, HashSet.make(logger)),
      Effect.locally(FiberRef.currentMinimumLogLevel, LogLevel.Info)
    )
    return Option.match(Tracing.parentOf(record.event.traceContext?.traceparent), {
      onNone: () => log,
      onSome: (parent) => Effect.withParentSpan(log, parent)
    })
  })

/**
 * An audit service logging each record through `logger`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Audit.Options & { readonly logger: Logger.Logger<unknown, unknown> }) =>
  Audit.make(
    (records) => Effect.forEach(records, (record) => write(options.logger, record), { discard: true }),
    options
  )
