/**
 * The decision audit sinks: a file that cannot be opened is an `AuditFileError` for
 * `withAudit` and a warning for `withAuditOrWarn` (the call still runs); with
 * neither a file nor an export asked for, the effect runs without an audit.
 */
import * as Audit from "@effect-ahp/harness/Audit"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as AuditSinks from "../src/AuditSinks.js"

/** A path whose folder does not exist. */
const unopenable = () => path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ahp-sinks-")), "missing", "audit.jsonl")

describe("AuditSinks", () => {
  it.effect("withAudit fails with an AuditFileError naming the file when it cannot be opened", () =>
    Effect.gen(function*() {
      const file = unopenable()
      const result = yield* Effect.either(AuditSinks.withAudit(Option.some(file), false)(Effect.succeed(1)))
      assert.isTrue(Either.isLeft(result))
      if (Either.isLeft(result)) {
        assert.strictEqual(result.left._tag, "AuditFileError")
        assert.strictEqual(result.left.path, file)
      }
    }))

  it.effect("withAuditOrWarn warns and runs the call unaudited when the file cannot be opened", () =>
    Effect.gen(function*() {
      const warnings: Array<string> = []
      const ran = yield* Effect.scoped(
        AuditSinks.withAuditOrWarn(unopenable(), false, (message) => Effect.sync(() => void warnings.push(message)))(
          Effect.succeed("answered")
        )
      )
      assert.strictEqual(ran, "answered")
      assert.strictEqual(warnings.length, 1)
      assert.include(warnings[0]!, "the call is not audited")
    }))

  it.effect("withAudit provides an audit when the file opens", () =>
    Effect.gen(function*() {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "ahp-sinks-")), "audit.jsonl")
      const audited = yield* AuditSinks.withAudit(Option.some(file), false)(Effect.serviceOption(Audit.Audit))
      assert.isTrue(Option.isSome(audited))
      assert.isTrue(fs.existsSync(file))
    }))
})
