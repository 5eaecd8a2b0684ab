/**
 * Spans for the harness's hot paths. `withSpanWhenTraced` is `Effect.withSpan` (without a
 * captured stack trace) that is skipped while Effect's built-in tracer is current: that
 * tracer exports nowhere, and making a span costs about as much as the rest of an
 * in-process exchange. Under any installed tracer (OpenTelemetry, a test tracer) every
 * dispatch, route and delivery gets its span as usual.
 *
 * @since 0.1.0
 */
import { Common, Json } from "@effect-ahp/protocol"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Tracer from "effect/Tracer"

/** The tracer of the default runtime services: Effect's built-in tracer. */
const builtInTracer = Effect.runSync(Effect.tracer)

/**
 * Whether `tracer` is Effect's built-in tracer, which exports nowhere: spans made under it
 * cost time and reach no one.
 *
 * @since 0.1.0
 * @category tracing
 */
export const isBuiltIn = (tracer: Tracer.Tracer): boolean => tracer === builtInTracer

/**
 * The effect `make` returns, in a span unless only the built-in tracer would record it;
 * made in the step that reads the tracer (untraced, no suspension of its own).
 *
 * @since 0.1.0
 * @category tracing
 */
export const spanWhenTraced = <A, E, R>(
  name: string,
  make: () => Effect.Effect<A, E, R>,
  options: Tracer.SpanOptions = {}
): Effect.Effect<A, E, R> =>
  Effect.tracerWith((tracer) =>
    isBuiltIn(tracer)
      ? make()
      : Effect.withSpan(Effect.suspend(make), name, { ...options, captureStackTrace: false })
  )

/**
 * Wraps an effect in a span unless only the built-in tracer would record it
 * (`spanWhenTraced` of it).
 *
 * @since 0.1.0
 * @category tracing
 */
export const withSpanWhenTraced =
  (name: string, options: Tracer.SpanOptions = {}) => <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    spanWhenTraced(name, () => self, options)

/**
 * The extension key of W3C trace context in an event (`{"traceparent": …, "tracestate"?: …}`).
 *
 * @since 0.1.0
 * @category trace context
 */
export const traceContextKey = "org.w3c.trace_context"

/**
 * W3C trace context as carried in `extensions["org.w3c.trace_context"]`.
 *
 * @since 0.1.0
 * @category trace context
 */
export const TraceContext = Schema.Struct({
  traceparent: Schema.String,
  tracestate: Common.optional(Schema.String)
})

/**
 * @since 0.1.0
 * @category trace context
 */
export type TraceContext = typeof TraceContext.Type

/** A W3C `traceparent`: version, trace id, parent span id and flags, in lower-case hex. */
const traceparentPattern = /^[\da-f]{2}-([\da-f]{32})-([\da-f]{16})-([\da-f]{2})$/

/**
 * The parent span of a W3C `traceparent`, if it is well formed.
 *
 * @since 0.1.0
 * @category trace context
 */
export const parentOf = (traceparent: string | undefined): Option.Option<Tracer.ExternalSpan> => {
  const match = traceparent === undefined ? null : traceparentPattern.exec(traceparent)
  if (match === null) return Option.none()
  return Option.some(Tracer.externalSpan({
    traceId: match[1]!,
    spanId: match[2]!,
    sampled: (parseInt(match[3]!, 16) & 1) === 1
  }))
}

/**
 * A trace context from `traceparent` / `tracestate` values (e.g. the `TRACEPARENT` and
 * `TRACESTATE` environment variables), if `traceparent` is well formed.
 *
 * @since 0.1.0
 * @category trace context
 */
export const traceContextFrom = (
  traceparent: string | undefined,
  tracestate: string | undefined
): TraceContext | undefined =>
  traceparent === undefined || !traceparentPattern.test(traceparent.trim())
    ? undefined
    : tracestate === undefined || tracestate.trim() === ""
    ? { traceparent: traceparent.trim() }
    : { traceparent: traceparent.trim(), tracestate: tracestate.trim() }

/**
 * The trace context an event carries in `extensions["org.w3c.trace_context"]`, if any.
 *
 * @since 0.1.0
 * @category trace context
 */
export const traceContextOf = (event: Json.JsonValue | undefined): TraceContext | undefined => {
  const extensions = Json.isObject(event) ? event.extensions : undefined
  const carried = Json.isObject(extensions) ? extensions[traceContextKey] : undefined
  if (!Json.isObject(carried) || typeof carried.traceparent !== "string") return undefined
  return traceContextFrom(carried.traceparent, typeof carried.tracestate === "string" ? carried.tracestate : undefined)
}

/**
 * The trace context of the event in a `hooks/intercept` or `hooks/observe` message.
 *
 * @since 0.1.0
 * @category trace context
 */
export const traceContextOfMessage = (message: Json.JsonObject): TraceContext | undefined =>
  Json.isObject(message.params) ? traceContextOf(message.params.event) : undefined

/**
 * An event input with the trace context in its extensions, unless it already carries one.
 *
 * @since 0.1.0
 * @category trace context
 */
export const withTraceContext = (event: Json.JsonObject, context: TraceContext | undefined): Json.JsonObject => {
  if (context === undefined) return event
  const extensions = Json.isObject(event.extensions) ? event.extensions : {}
  if (extensions[traceContextKey] !== undefined) return event
  return { ...event, extensions: { ...extensions, [traceContextKey]: { ...context } } }
}

/**
 * The trace context of the current span under an installed tracer; nothing under Effect's
 * built-in tracer (which exports nowhere) or outside any span.
 *
 * @since 0.1.0
 * @category trace context
 */
export const currentTraceContext: Effect.Effect<TraceContext | undefined> = Effect.tracerWith((tracer) =>
  isBuiltIn(tracer)
    ? Effect.succeed(undefined)
    : Effect.map(Effect.option(Effect.currentSpan), (span) =>
      span._tag === "None"
        ? undefined
        : { traceparent: `00-${span.value.traceId}-${span.value.spanId}-${span.value.sampled ? "01" : "00"}` })
)

const isSet = (value: string | undefined) => value !== undefined && value.trim() !== ""

/**
 * Whether the standard `OTEL_*` variables in `env` ask for an OTLP export: an endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the traces or logs one) or an `otlp` exporter
 * (`OTEL_TRACES_EXPORTER`, `OTEL_LOGS_EXPORTER`), unless `OTEL_SDK_DISABLED=true` or both
 * exporters are `none`.
 *
 * @since 0.1.0
 * @category environment
 */
export const exportRequested = (env: Readonly<Record<string, string | undefined>>): boolean => {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false
  if (env.OTEL_TRACES_EXPORTER === "none" && env.OTEL_LOGS_EXPORTER === "none") return false
  return isSet(env.OTEL_EXPORTER_OTLP_ENDPOINT) || isSet(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ||
    isSet(env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT) || env.OTEL_TRACES_EXPORTER === "otlp" ||
    env.OTEL_LOGS_EXPORTER === "otlp"
}
