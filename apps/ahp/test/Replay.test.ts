/**
 * `ahp replay`: records written with content are re-dispatched through a changed
 * registration (backends in process) and every changed decision is reported; records without
 * content are skipped; the untrusted audit file is read line by line within bounds.
 */
import { Hooks } from "@effect-ahp/harness"
import { AuditFile } from "@effect-ahp/node"
import * as Io from "@effect-ahp/tools/Io"
import type * as PolicyTest from "@effect-ahp/tools/PolicyTest"
import * as Replay from "@effect-ahp/tools/Replay"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { captured, guardId, guardTransports, runInProcess } from "./inProcess.js"
import { intercept, registration, tempDir, toolBefore, writeFile } from "./support.js"

const transports: PolicyTest.TransportsFor = () => guardTransports

const backend = (id: string, failurePolicy: string) => ({
  id,
  transport: { type: "stdio", command: "unused", lifecycle: "persistent" },
  subscriptions: [intercept(["tool.before"], { id: "s", failurePolicy })]
})

const oldPolicy = registration(backend(guardId, "fail-open"))
/** The guard, then a fail-closed backend that is not there: what the guard let through is now denied. */
const newPolicy = registration(backend(guardId, "fail-open"), backend("com.example.missing", "fail-closed"))

/** Writes an audit file by dispatching the commands through the old policy. */
const record = (file: string, content: boolean, commands: ReadonlyArray<string>) =>
  Effect.scoped(Effect.gen(function*() {
    const hooks = yield* Hooks.makeUnknown(oldPolicy)
    for (const command of commands) yield* hooks.dispatch("tool.before", toolBefore(command) as any)
  })).pipe(Effect.provide(AuditFile.layer(file, { content })), Effect.provide(guardTransports))

const replay = (file: string, reg: string) =>
  Effect.map(
    captured(Replay.run({ file, registration: Option.some(reg), transports })),
    ({ code, output, value }) => ({ code, output, outcomes: value })
  )

describe("ahp replay", () => {
  it.scoped("reports every decision that changed, with where the chain stopped, and exits 1", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const audit = path.join(dir, "audit.jsonl")
      yield* record(audit, true, ["rm -rf /", "ls -la", "git push --force origin main"])
      const same = yield* replay(audit, writeFile(dir, "old.json", oldPolicy))
      assert.strictEqual(same.code, 0, same.output)
      assert.include(same.output, "3 replayed: 0 changed, 3 unchanged; 0 skipped, 0 invalid")

      const changed = yield* replay(audit, writeFile(dir, "new.json", newPolicy))
      assert.strictEqual(changed.code, 1, changed.output)
      assert.deepStrictEqual(changed.outcomes.map((o) => o._tag), ["Same", "Changed", "Changed"])
      const lines = changed.output.split("\n")
      assert.match(
        lines[0]!,
        /^CHANGED {2}line 2 {2}\S+ tool\.before: allow → deny \(fail-closed\) \(was no interceptor stopped it; now stopped at com\.example\.missing\/s\)$/,
        changed.output
      )
      assert.match(
        lines[1]!,
        /^CHANGED {2}line 3 {2}\S+ tool\.before: ask → deny \(fail-closed\) \(was no interceptor stopped it; now stopped at com\.example\.missing\/s\)$/
      )
      assert.strictEqual(lines[2], "3 replayed: 2 changed, 1 unchanged; 0 skipped, 0 invalid")
    }))

  it.scoped("skips records without content, and a line that is not a record makes it exit 2", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const audit = path.join(dir, "audit.jsonl")
      yield* record(audit, false, ["ls"])
      fs.appendFileSync(audit, "\r\nnot json\n{\"version\":1}\n")
      const run = yield* replay(audit, writeFile(dir, "new.json", newPolicy))
      assert.strictEqual(run.code, 2, run.output)
      assert.deepStrictEqual(run.outcomes.map((o) => [o._tag, o.line]), [["Skipped", 1], ["Unreadable", 3], [
        "Unreadable",
        4
      ]])
      assert.match(run.output, /SKIPPED {2}line 1 {2}\S+: recorded without content/)
      assert.include(run.output, "INVALID  line 3: not JSON")
      assert.include(run.output, "INVALID  line 4: not an audit record: /time: is required")
    }))

  it.scoped("an unreadable audit file or registration exits 2", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const missing = yield* replay(path.join(dir, "nothing.jsonl"), writeFile(dir, "reg.json", oldPolicy))
      assert.strictEqual(missing.code, 2)
      assert.include(missing.output, "no such file")
      const audit = writeFile(dir, "audit.jsonl", "")
      const badReg = yield* replay(audit, writeFile(dir, "bad.json", { hooks: 1 }))
      assert.strictEqual(badReg.code, 2)
      assert.include(badReg.output, "\"error\":\"configuration\"")
    }))
})

describe("ahp replay (the real binary)", () => {
  it.scopedLive("replays a dispatch's audit against a registration whose policy changed: exit 1", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      /** An HTTP backend nobody listens for: fails `connection` at once. */
      const unreachable = (failurePolicy: string) =>
        registration({
          id: "com.example.gone",
          transport: { type: "http", url: "http://127.0.0.1:9/" },
          subscriptions: [intercept(["tool.before"], { id: "g", failurePolicy })]
        })
      const audit = path.join(dir, "audit.jsonl")
      const event = writeFile(dir, "event.json", toolBefore("ls"))
      const dispatched = yield* runInProcess([
        "dispatch",
        "--registration",
        writeFile(dir, "old.json", unreachable("fail-open")),
        "--event",
        event,
        "--audit",
        audit,
        "--audit-content"
      ])
      assert.strictEqual(dispatched.code, 0, dispatched.stderr)
      const run = yield* runInProcess([
        "replay",
        audit,
        "--registration",
        writeFile(dir, "new.json", unreachable("fail-closed"))
      ])
      assert.strictEqual(run.code, 1, run.stdout + run.stderr)
      assert.match(
        run.stdout,
        /^CHANGED {2}line 1 {2}\S+ tool\.before: none → deny \(fail-closed\) \(was no interceptor stopped it; now stopped at com\.example\.gone\/g\)$/m
      )
      assert.include(run.stdout, "1 replayed: 1 changed, 0 unchanged; 0 skipped, 0 invalid")
    }))
})

describe("Io.forEachLine", () => {
  it.effect("hands over each line, a too-long one as its reason, and refuses a file over the bound", () =>
    Effect.gen(function*() {
      const dir = fs.mkdtempSync(path.join(fs.realpathSync(process.env.TMPDIR ?? "/tmp"), "ahp-lines-"))
      const file = path.join(dir, "lines")
      fs.writeFileSync(
        file,
        Buffer.concat([
          Buffer.from(`short\r\n${"x".repeat(40)}\n\nlast-${"y".repeat(30)}`),
          Buffer.from([0x0a, 0xff, 0x0a])
        ])
      )
      const seen: Array<[number, Either.Either<string, string>]> = []
      yield* Io.forEachLine(
        file,
        "test",
        { maxLineBytes: 36, maxFileBytes: 1000 },
        (line, n) => Effect.sync(() => void seen.push([n, line]))
      )
      assert.deepStrictEqual(seen, [
        [1, Either.right("short")],
        [2, Either.left("longer than 36 bytes")],
        [4, Either.right(`last-${"y".repeat(30)}`)],
        [5, Either.left("not valid UTF-8")]
      ])
      const tooLarge = yield* Effect.either(
        Io.forEachLine(file, "test", { maxLineBytes: 36, maxFileBytes: 10 }, () => Effect.void)
      )
      assert(Either.isLeft(tooLarge))
      assert.include(tooLarge.left.message, "larger than")
      fs.rmSync(dir, { recursive: true, force: true })
    }))
})
