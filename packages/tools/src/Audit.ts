/**
 * The decision audit of the commands that settle calls, `--audit FILE [--audit-content]`:
 * the hook package's `AuditSinks` with the command line's OpenTelemetry export, an audit
 * file that cannot be opened reported as an `InputError`.
 *
 * @since 0.1.0
 */
import type * as Audit from "@effect-ahp/harness/Audit"
import * as AuditSinks from "@effect-ahp/hook/AuditSinks"
import * as AuditFile from "@effect-ahp/node/AuditFile"
import { Effect, type Option } from "effect"
import type * as Scope from "effect/Scope"
import * as Io from "./Io.js"

/**
 * Loads the command line's OpenTelemetry export (`Telemetry`).
 *
 * @since 0.1.0
 * @category audit
 */
export const telemetry: AuditSinks.LoadTelemetry = () => import("./Telemetry.js")

/**
 * Provides the decision audit (`AuditSinks.withAudit`); a file that cannot be opened is an
 * `InputError`.
 *
 * @since 0.1.0
 * @category audit
 */
export const withAudit =
  (file: Option.Option<string>, content: boolean) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | Io.InputError, Exclude<R, Audit.Audit | Scope.Scope>> =>
    AuditSinks.withAudit(file, content, telemetry)(self).pipe(
      Effect.catchIf(
        (error): error is AuditFile.AuditFileError => error instanceof AuditFile.AuditFileError,
        (error) =>
          Effect.fail(
            new Io.InputError({ file: error.path, message: error.message, issues: [{ path: "", message: error.code }] })
          )
      )
    ) as Effect.Effect<A, E | Io.InputError, Exclude<R, Audit.Audit | Scope.Scope>>
