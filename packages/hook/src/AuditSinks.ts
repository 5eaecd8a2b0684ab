/**
 * The decision audit sinks of whatever settles calls (the hook's cold path, the bridge, the
 * command line's `dispatch` and `demo`): an audit file (JSON Lines, `AuditFile`) and, when
 * the standard `OTEL_*` variables ask for it, an OpenTelemetry export that the program
 * supplies (loaded only then).
 *
 * @since 0.1.0
 */
import * as Audit from "@effect-ahp/harness/Audit"
import * as Tracing from "@effect-ahp/harness/Tracing"
import * as AuditFile from "@effect-ahp/node/AuditFile"
import { Effect, Either, Option } from "effect"
import type * as Scope from "effect/Scope"
import type * as Tracer from "effect/Tracer"

/**
 * An OpenTelemetry export of the decision audit and the traces: what a program that wants
 * one supplies (the command line's `Telemetry`).
 *
 * @since 0.1.0
 * @category models
 */
export interface TelemetryExport {
  readonly make: (
    env: Readonly<Record<string, string | undefined>>,
    options: { readonly content: boolean }
  ) => Effect.Effect<
    { readonly tracer: Tracer.Tracer | undefined; readonly audit: Audit.Audit["Type"] },
    { readonly message: string },
    Scope.Scope
  >
}

/**
 * Loads the OpenTelemetry export, only when the environment asks for one.
 *
 * @since 0.1.0
 * @category models
 */
export type LoadTelemetry = () => Promise<TelemetryExport>

interface Sinks {
  readonly audit: Audit.Audit["Type"] | undefined
  readonly tracer: Tracer.Tracer | undefined
}

/**
 * Opens the sinks for the scope; `onFileError` decides what an unopenable file does, a
 * telemetry set-up that fails is reported through `warn` and left out.
 */
const open = <E>(
  file: string | undefined,
  content: boolean,
  onFileError: (error: AuditFile.AuditFileError) => Effect.Effect<void, E>,
  warn: (message: string) => Effect.Effect<void>,
  telemetry: LoadTelemetry | undefined
): Effect.Effect<Sinks, E, Scope.Scope> =>
  Effect.gen(function*() {
    const services: Array<Audit.Audit["Type"]> = []
    if (file !== undefined) {
      const opened = yield* Effect.either(AuditFile.make(file, { content }))
      if (Either.isLeft(opened)) yield* onFileError(opened.left)
      else services.push(opened.right)
    }
    let tracer: Tracer.Tracer | undefined
    if (Tracing.exportRequested(process.env)) {
      if (telemetry === undefined) yield* warn("the OpenTelemetry export is off: this program has none")
      else {
        const Telemetry = yield* Effect.promise(telemetry)
        const exported = yield* Effect.either(Telemetry.make(process.env, { content }))
        if (Either.isLeft(exported)) yield* warn(`the OpenTelemetry export is off: ${exported.left.message}`)
        else {
          services.push(exported.right.audit)
          tracer = exported.right.tracer
        }
      }
    }
    return { audit: services.length === 0 ? undefined : Audit.combine(services), tracer }
  })

const provideSinks = <A, E, R>(self: Effect.Effect<A, E, R>, sinks: Sinks) => {
  const audited = sinks.audit === undefined
    ? self as Effect.Effect<A, E, Exclude<R, Audit.Audit>>
    : Effect.provideService(self, Audit.Audit, sinks.audit)
  return sinks.tracer === undefined ? audited : Effect.withTracer(audited, sinks.tracer)
}

/**
 * Provides the decision audit: records appended to `file` (JSON Lines) and exported through
 * OpenTelemetry when the environment asks for it, all written before the effect ends;
 * with neither, no audit at all. A file that cannot be opened is an `AuditFileError`.
 *
 * @since 0.1.0
 * @category audit
 */
export const withAudit = (file: Option.Option<string>, content: boolean, telemetry?: LoadTelemetry) =>
<A, E, R>(
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E | AuditFile.AuditFileError, Exclude<R, Audit.Audit | Scope.Scope>> =>
  Effect.suspend(() => {
    if (Option.isNone(file) && !Tracing.exportRequested(process.env)) {
      return self as Effect.Effect<A, E, Exclude<R, Audit.Audit | Scope.Scope>>
    }
    return Effect.scoped(Effect.flatMap(
      open(
        Option.getOrUndefined(file),
        content,
        Effect.fail,
        (message) => Effect.logWarning(message),
        telemetry
      ),
      (sinks) => provideSinks(self, sinks)
    )) as Effect.Effect<A, E | AuditFile.AuditFileError, Exclude<R, Audit.Audit | Scope.Scope>>
  })

/**
 * Provides the decision audit for a hook call, which must be answered whatever happens: a
 * file that cannot be opened, or a telemetry export that cannot be set up, is reported
 * through `warn` and left out. The records are written when the enclosing scope closes.
 *
 * @since 0.1.0
 * @category audit
 */
export const withAuditOrWarn = (
  file: string | undefined,
  content: boolean,
  warn: (message: string) => Effect.Effect<void>,
  telemetry?: LoadTelemetry
) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Audit.Audit> | Scope.Scope> =>
  Effect.flatMap(
    open(file, content, (error) => warn(`${error.message}: the call is not audited`), warn, telemetry),
    (sinks) => provideSinks(self, sinks)
  )
