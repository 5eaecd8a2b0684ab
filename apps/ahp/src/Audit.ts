/**
 * The `--audit FILE [--audit-content]` options of the commands that settle calls: the
 * decision audit written as JSON Lines (`AuditFile`), loaded only by those commands.
 *
 * @since 0.1.0
 */
import * as Audit from "@effect-ahp/harness/Audit"
import * as AuditFile from "@effect-ahp/node/AuditFile"
import { Effect, Either, Layer, Option } from "effect"
import type * as Scope from "effect/Scope"
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

/**
 * Provides the decision audit for a hook call, which must be answered whatever happens: a
 * file that cannot be opened is reported through `warn` and the call runs without audit.
 * The records are written when the enclosing scope closes at the latest.
 *
 * @since 0.1.0
 * @category audit
 */
export const withAuditOrWarn = (file: string, content: boolean, warn: (message: string) => Effect.Effect<void>) =>
<A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, Exclude<R, Audit.Audit> | Scope.Scope> =>
  Effect.flatMap(Effect.either(AuditFile.make(file, { content })), (opened) =>
    Either.match(opened, {
      onLeft: (error) => Effect.zipRight(warn(`${error.message}: the call is not audited`), self as Effect.Effect<A, E, Exclude<R, Audit.Audit>>),
      onRight: (audit) => Effect.provideService(self, Audit.Audit, audit)
    }))
