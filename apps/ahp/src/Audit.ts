/**
 * The `--audit FILE [--audit-content]` options of the commands that settle calls: the
 * decision audit written as JSON Lines (`AuditFile`), loaded only by those commands.
 *
 * @since 0.1.0
 */
import { Audit } from "@effect-ahp/harness"
import { AuditFile } from "@effect-ahp/node"
import { Effect, Layer, Option } from "effect"
import * as Io from "./Io.js"

/**
 * Provides the decision audit: records appended to `file` (JSON Lines), written before the
 * effect ends; without a file, no audit at all. A file that cannot be opened is an
 * `InputError`.
 *
 * @since 0.1.0
 * @category audit
 */
export const withAudit = (file: Option.Option<string>, content: boolean) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E | Io.InputError, Exclude<R, Audit.Audit>> =>
  Option.match(file, {
    onNone: () => self as Effect.Effect<A, E, Exclude<R, Audit.Audit>>,
    onSome: (path) =>
      Effect.provide(
        self,
        AuditFile.layer(path, { content }).pipe(
          Layer.catchAll((error) =>
            Layer.fail(new Io.InputError({ file: path, message: error.message, issues: [{ path: "", message: error.code }] }))
          )
        )
      )
  })
