/**
 * The soak and the benchmarks run bundled by esbuild (`test/bench/bundled.mjs`), and their
 * bundles take in the test servers' scripts (through `test/support/e2e.ts`). A script imported
 * into a bundle must not run as a script: its `import.meta.url` is then the bundle's own, the
 * file node runs (before, the bundled soak stopped at once with the scripted backend's usage
 * error).
 */
import { assert, describe, it } from "@effect/vitest"
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"

const script = (relative: string) => fileURLToPath(new URL(relative, import.meta.url))

describe("bundled test servers", () => {
  it("a script bundled into another entry point does not run as a script, and its exports work", async () => {
    const dir = mkdtempSync(join(tmpdir(), "ahp-bundled-"))
    try {
      const entry = join(dir, "entry.mjs")
      const bundle = join(dir, "entry.bundle.mjs")
      writeFileSync(
        entry,
        [
          `import { startHttp as scripted } from ${JSON.stringify(script("../support/scripted-backend.mjs"))}`,
          `import { startHttp as raw } from ${JSON.stringify(script("../e2e/fixtures/rawBackend.mjs"))}`,
          "console.log(typeof scripted, typeof raw)"
        ].join("\n")
      )
      await build({
        entryPoints: [entry],
        outfile: bundle,
        bundle: true,
        platform: "node",
        format: "esm",
        logLevel: "silent"
      })
      const run = spawnSync(process.execPath, [bundle, "stdio", "ok"], { encoding: "utf8", input: "" })
      assert.deepStrictEqual([run.status, run.stdout, run.stderr], [0, "function function\n", ""])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
