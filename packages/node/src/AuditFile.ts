/**
 * The decision audit's JSON Lines file sink: one `Audit.Record` per line, appended to a
 * file opened (created if absent) when the layer is built and closed with its scope.
 *
 * Records are written by the audit's background fiber (see `Audit.make`): a decision never
 * waits for the file. At most `capacity` (default 1024) settled calls wait to be written;
 * beyond that records are dropped and counted, and the count is logged as a warning when
 * the scope closes. Closing the scope writes every queued record before the file is closed.
 * A write that fails loses its records and is logged once per batch (path and error code only).
 *
 * @since 0.1.0
 */
import { Audit } from "@effect-ahp/harness"
import { Decoder, Json } from "@effect-ahp/protocol"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as fs from "node:fs"

const encode = Decoder.lazy(() => Schema.encodeSync(Audit.Record))

/**
 * The audit file could not be opened.
 *
 * @since 0.1.0
 * @category errors
 */
export class AuditFileError extends Schema.TaggedError<AuditFileError>("@effect-ahp/node/AuditFileError")(
  "AuditFileError",
  { path: Schema.String, code: Schema.String }
) {
  override get message(): string {
    return `cannot open the audit file ${this.path}: ${this.code}`
  }
}

const codeOf = (error: unknown): string =>
  typeof error === "object" && error !== null && typeof (error as { code?: unknown }).code === "string"
    ? (error as { code: string }).code
    : "error"

/**
 * An `Audit` service appending JSON Lines to `path`, for the lifetime of the scope.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fn("AuditFile.make")(function*(path: string, options?: Audit.Options) {
  const fd = yield* Effect.acquireRelease(
    Effect.try({
      try: () => fs.openSync(path, "a"),
      catch: (error) => new AuditFileError({ path, code: codeOf(error) })
    }),
    (fd) => Effect.sync(() => fs.closeSync(fd))
  )
  const write = (records: ReadonlyArray<Audit.Record>) =>
    Effect.async<void>((resume) => {
      const text = records.map((record) => Json.stringify(encode(record)) + "\n").join("")
      fs.write(fd, text, (error) => {
        resume(
          error === null ? Effect.void : Effect.logWarning("audit: records lost").pipe(
            Effect.annotateLogs({ path, code: codeOf(error) })
          )
        )
      })
    })
  const audit = yield* Audit.make(write, options)
  yield* Effect.addFinalizer(() =>
    Effect.flatMap(audit.dropped, (dropped) =>
      dropped === 0
        ? Effect.void
        : Effect.logWarning("audit: records dropped, the queue was full").pipe(Effect.annotateLogs({ path, dropped })))
  )
  return audit
})

/**
 * A layer providing the file-backed `Audit` service.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (path: string, options?: Audit.Options): Layer.Layer<Audit.Audit, AuditFileError> =>
  Layer.scoped(Audit.Audit, make(path, options))
