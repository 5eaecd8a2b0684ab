/**
 * `ahp conformance` on the official fixtures (skipped when they are absent), in this process and, from the repository's folder, as a child process.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { runInProcess } from "./inProcess.js"
import { output, root, runCli } from "./support.js"

const shared = process.env.AHP_SHARED ?? path.join(root, "..", "shared", "ahp")
const present = fs.existsSync(path.join(shared, "fixtures", "draft", "manifest.json"))

describe("ahp conformance", () => {
  it.live.skipIf(!present)("runs every official fixture and prints the summary tables", () =>
    Effect.gen(function*() {
      const run = yield* runInProcess(["conformance", "--fixtures", shared])
      assert.strictEqual(run.code, 0, run.stdout + run.stderr)
      assert.match(run.stdout, /fixture group\s+cases\s+checks\s+passed\s+failed\s+missing/)
      assert.match(run.stdout, /^\s+http\s+\d+/m)
      assert.match(run.stdout, /^\s+tool-interception\s+\d+/m)
      assert.match(run.stdout, /All \d+ checks passed/)
      const json = output(yield* runInProcess(["conformance", "--fixtures", shared, "--json"]))
      assert.isAtLeast(json.total.cases, 150)
      assert.strictEqual(json.total.failed, 0)
      assert.deepStrictEqual(json.failures, [])
      assert.deepStrictEqual(json.groups.map((g: any) => g.name), ["http", "registration", "stdio"])
    }))

  it.live.skipIf(!present)("finds ../shared/ahp by default", () =>
    Effect.gen(function*() {
      const run = yield* runCli(["conformance", "--json"], { cwd: root })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(output(run).root, path.resolve(shared))
    }))

  it.live("exits 2 when no fixtures are found", () =>
    Effect.gen(function*() {
      const run = yield* runInProcess(["conformance", "--fixtures", path.join(root, "no-such-folder")])
      assert.strictEqual(run.code, 2)
      assert.match(run.stderr, /no official fixtures found/)
    }))
})
