/**
 * Spans for the harness's hot paths. `withSpanWhenTraced` is `Effect.withSpan` (without a
 * captured stack trace) that is skipped while Effect's built-in tracer is current: that
 * tracer exports nowhere, and making a span costs about as much as the rest of an
 * in-process exchange. Under any installed tracer (OpenTelemetry, a test tracer) every
 * dispatch, route and delivery gets its span as usual.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import type * as Tracer from "effect/Tracer"

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
 * Wraps an effect in a span unless only the built-in tracer would record it.
 *
 * @since 0.1.0
 * @category tracing
 */
export const withSpanWhenTraced = (name: string, options: Tracer.SpanOptions = {}) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.tracerWith((tracer) =>
    isBuiltIn(tracer) ? self : Effect.withSpan(self, name, { ...options, captureStackTrace: false })
  )
