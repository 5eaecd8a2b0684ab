/**
 * `ahp validate` exit codes, through the command line's entry in this process.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { runInProcess } from "./inProcess.js"
import { guardRegistration, output, tempDir, writeFile } from "./support.js"

describe("ahp validate", () => {
  it.scopedLive("0 when valid, 1 when invalid, 2 when unreadable", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const valid = writeFile(dir, "valid.json", guardRegistration)
      const invalid = writeFile(dir, "invalid.json", { protocolVersion: "draft", hooks: [] })
      const ok = yield* runInProcess(["validate", valid])
      assert.strictEqual(ok.code, 0, ok.stderr)
      assert.match(ok.stdout, /valid \(registration\)/)
      const bad = yield* runInProcess(["validate", valid, invalid, "--json"])
      assert.strictEqual(bad.code, 1)
      assert.deepStrictEqual(output(bad).files.map((f: any) => f.valid), [true, false])
      const missing = yield* runInProcess(["validate", valid, `${dir}/missing.json`])
      assert.strictEqual(missing.code, 2)
      assert.match(
        missing.stdout,
        /missing\.json: unreadable\n  cannot read the document file .*missing\.json: no such file/
      )
      const usage = yield* runInProcess(["validate"])
      assert.strictEqual(usage.code, 2)
    }))

  it.scopedLive("refuses what Hooks refuses: a timeoutMs beyond the longest timer delay", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const long = structuredClone(guardRegistration) as any
      long.hooks[0].subscriptions[0].timeoutMs = 3_000_000_000
      const file = writeFile(dir, "long.json", long)
      const run = yield* runInProcess(["validate", file, "--json"])
      assert.strictEqual(run.code, 1, run.stdout)
      assert.deepStrictEqual(output(run).files[0].issues, [{
        path: "/hooks/0/subscriptions/0/timeoutMs",
        message: "timeoutMs must be an integer from 1 to 2147483647"
      }])
    }))

  it.scopedLive("says a registration using the in-process extension is valid but not portable", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const local = structuredClone(guardRegistration) as any
      local.hooks[0].transport = { type: "in-process" }
      const file = writeFile(dir, "local.json", local)
      const text = yield* runInProcess(["validate", file])
      assert.strictEqual(text.code, 0, text.stdout)
      assert.strictEqual(
        text.stdout.trim(),
        `${file}: valid (registration)\n  note /hooks/0/transport: in-process is an effect-ahp extension served by ` +
          "the embedding host: the document is not portable"
      )
      const json = yield* runInProcess(["validate", file, "--json"])
      assert.deepStrictEqual(output(json).files[0].notes.map((n: any) => n.path), ["/hooks/0/transport"])
      const portable = yield* runInProcess(["validate", writeFile(dir, "portable.json", guardRegistration), "--json"])
      assert.notProperty(output(portable).files[0], "notes")
    }))
})
