/**
 * The OpenTelemetry export of the commands that settle calls, loaded only when the standard
 * `OTEL_*` variables ask for it (`Tracing.exportRequested`): an OTLP/HTTP tracer (the harness's
 * live spans per call and route, `ahp.call` with the decision and failure codes as
 * attributes and `ahp.interceptor`, and per observation) and an audit sink
 * (`AuditTelemetry`: a log record per audit record),
 * both exported through `@effect/opentelemetry`'s own OTLP exporters (no OpenTelemetry SDK).
 *
 * Read: `OTEL_EXPORTER_OTLP_ENDPOINT` (default `http://localhost:4318`; `/v1/traces` and
 * `/v1/logs` are appended), `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` and `…_LOGS_ENDPOINT` (used
 * as they are), `OTEL_EXPORTER_OTLP_HEADERS` (`key=value,…`), `OTEL_EXPORTER_OTLP_PROTOCOL`
 * (`http/protobuf`, the default, or `http/json`), `OTEL_TRACES_EXPORTER` / `OTEL_LOGS_EXPORTER`
 * (`none` turns one off), `OTEL_SERVICE_NAME` (default `ahp`), `OTEL_RESOURCE_ATTRIBUTES`.
 * Everything queued is exported when the command ends, each signal within
 * `OTEL_EXPORTER_OTLP_TIMEOUT` milliseconds (default 1000, at most 10000): an unreachable
 * collector delays the end of a command by at most twice that.
 *
 * @since 0.1.0
 */
import { AuditTelemetry } from "@effect-ahp/harness"
import type { Audit } from "@effect-ahp/harness"
import * as OtlpLogger from "@effect/opentelemetry/OtlpLogger"
import * as OtlpSerialization from "@effect/opentelemetry/OtlpSerialization"
import * as OtlpTracer from "@effect/opentelemetry/OtlpTracer"
import * as FetchHttpClient from "@effect/platform/FetchHttpClient"
import { Duration, Effect, Layer, Logger, Option, type Tracer } from "effect"
import type * as ConfigError from "effect/ConfigError"
import type * as Scope from "effect/Scope"

/**
 * The environment the export reads.
 *
 * @since 0.1.0
 * @category models
 */
export type Env = Readonly<Record<string, string | undefined>>

/**
 * What the export needs to know from the environment.
 *
 * @since 0.1.0
 * @category models
 */
export interface Settings {
  readonly traces: Option.Option<string>
  readonly logs: Option.Option<string>
  readonly headers: Readonly<Record<string, string>>
  readonly protocol: "http/protobuf" | "http/json"
  readonly serviceName: string
  /** How long each exporter may take to export what is left when the command ends. */
  readonly shutdownTimeout: Duration.Duration
}

const decode = (text: string) => {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/** `OTEL_EXPORTER_OTLP_TIMEOUT` (milliseconds), at most 10 s; 1 s when unset or unusable. */
const timeoutMs = (text: string | undefined): number => {
  const value = Number(text?.trim() || "1000")
  return Number.isFinite(value) && value > 0 ? Math.min(value, 10_000) : 1000
}

/**
 * Reads the settings from the environment.
 *
 * @since 0.1.0
 * @category settings
 */
export const settings = (env: Env): Settings => {
  const base = (env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || "http://localhost:4318").replace(/\/+$/, "")
  const signal = (specific: string | undefined, path: string, exporter: string | undefined) =>
    exporter === "none" ? Option.none() : Option.some(specific?.trim() || `${base}${path}`)
  const headers: Record<string, string> = {}
  for (const pair of (env.OTEL_EXPORTER_OTLP_HEADERS ?? "").split(",")) {
    const at = pair.indexOf("=")
    if (at > 0) headers[decode(pair.slice(0, at).trim())] = decode(pair.slice(at + 1).trim())
  }
  return {
    traces: signal(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, "/v1/traces", env.OTEL_TRACES_EXPORTER),
    logs: signal(env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT, "/v1/logs", env.OTEL_LOGS_EXPORTER),
    headers,
    protocol: env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() === "http/json" ? "http/json" : "http/protobuf",
    serviceName: env.OTEL_SERVICE_NAME?.trim() || "ahp",
    shutdownTimeout: Duration.millis(timeoutMs(env.OTEL_EXPORTER_OTLP_TIMEOUT))
  }
}

/**
 * The exporters and the audit sink, for the lifetime of the scope: closing it writes the
 * queued records, then exports what is left.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (env: Env, options: Audit.Options): Effect.Effect<
  { readonly tracer: Tracer.Tracer | undefined; readonly audit: Audit.Audit["Type"] },
  ConfigError.ConfigError,
  Scope.Scope
> => {
  const s = settings(env)
  return Effect.gen(function*() {
    const common = { resource: { serviceName: s.serviceName }, headers: s.headers, shutdownTimeout: s.shutdownTimeout }
    const tracer = yield* Option.match(s.traces, {
      onNone: () => Effect.succeed(undefined),
      onSome: (url) => OtlpTracer.make({ ...common, url })
    })
    const logger = yield* Option.match(s.logs, {
      onNone: () => Effect.succeed(Logger.none),
      onSome: (url) => OtlpLogger.make({ ...common, url })
    })
    const audit = yield* AuditTelemetry.make({ ...options, logger })
    return { tracer, audit }
  }).pipe(
    Effect.provide(Layer.merge(
      FetchHttpClient.layer,
      s.protocol === "http/json" ? OtlpSerialization.layerJson : OtlpSerialization.layerProtobuf
    ))
  )
}
