/** The environment the OpenTelemetry export reads. */
export type Env = Readonly<Record<string, string | undefined>>

const set = (value: string | undefined) => value !== undefined && value.trim() !== ""

/**
 * Whether the standard `OTEL_*` variables ask for an OTLP export: an endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, or the traces or logs one) or an `otlp` exporter
 * (`OTEL_TRACES_EXPORTER`, `OTEL_LOGS_EXPORTER`), unless `OTEL_SDK_DISABLED=true` or both
 * exporters are `none`. Reads only the environment: nothing is loaded to answer it.
 */
export const configured = (env: Env): boolean => {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false
  if (env.OTEL_TRACES_EXPORTER === "none" && env.OTEL_LOGS_EXPORTER === "none") return false
  return set(env.OTEL_EXPORTER_OTLP_ENDPOINT) || set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) ||
    set(env.OTEL_EXPORTER_OTLP_LOGS_ENDPOINT) || env.OTEL_TRACES_EXPORTER === "otlp" || env.OTEL_LOGS_EXPORTER === "otlp"
}
