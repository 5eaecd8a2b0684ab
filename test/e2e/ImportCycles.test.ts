/**
 * The import-cycle check of `pnpm lint` (scripts/cycles.mjs): it finds cycles made by
 * value, type-only, re-exported, dynamic and workspace-package imports, in a small
 * workspace written for the test, and the product code has none.
 */
import { assert, describe, it } from "@effect/vitest"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { findCycles, importGraph, productFiles, root } from "../../scripts/cycles.mjs"

/** A workspace with apps/ahp and packages/lib, holding `files` (paths relative to it). */
const workspace = (files: Record<string, string>) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ahp-cycles-"))
  const write = (file: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true })
    fs.writeFileSync(path.join(dir, file), text)
  }
  write("apps/ahp/package.json", JSON.stringify({ name: "@effect-ahp/cli" }))
  write("packages/lib/package.json", JSON.stringify({ name: "@effect-ahp/lib" }))
  for (const [file, text] of Object.entries(files)) write(file, text)
  return dir
}

const cyclesIn = (dir: string) =>
  findCycles(importGraph(productFiles(dir), dir)).map((cycle) => cycle.map((file) => path.relative(dir, file)))

describe("the import-cycle check", () => {
  it("finds cycles through every kind of import, and only cycles", () => {
    const dir = workspace({
      "apps/ahp/src/A.ts": "import type { B } from \"./B.js\"\nexport type A = B",
      "apps/ahp/src/B.ts": "export type { A as B } from \"./A.js\"",
      "apps/ahp/src/C.ts": "export const c = () => import(\"./sub/D.js\")",
      "apps/ahp/src/sub/D.ts": "import * as C from \"../C.js\"\nexport const d = C",
      "apps/ahp/src/E.ts": "type F = typeof import(\"@effect-ahp/lib/F\")\nexport const e = 1",
      "packages/lib/src/F.ts": "import { g } from \"./index.js\"\nexport const f = g",
      "packages/lib/src/index.ts": "export { e as g } from \"@effect-ahp/cli/E\"",
      "apps/ahp/src/Self.ts": "import * as Self from \"./Self.js\"\nexport const self = Self",
      "apps/ahp/src/Leaf.ts":
        "import { c } from \"./C.js\"\nimport { Effect } from \"effect\"\nexport const leaf = [c, Effect]"
    })
    try {
      const found = cyclesIn(dir).map((cycle) => [...cycle].sort().join(" "))
      assert.sameMembers(
        found,
        [
          "apps/ahp/src/A.ts apps/ahp/src/B.ts",
          "apps/ahp/src/C.ts apps/ahp/src/sub/D.ts",
          "apps/ahp/src/Self.ts",
          "apps/ahp/src/E.ts packages/lib/src/F.ts packages/lib/src/index.ts"
        ].map((cycle) => cycle.split(" ").sort().join(" "))
      )
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it("passes on the product code (exit 0), and exits 1 naming the files of a cycle", () => {
    assert.deepStrictEqual(findCycles(importGraph(productFiles())), [])
    const run = spawnSync(process.execPath, [path.join(root, "scripts", "cycles.mjs")], { encoding: "utf8" })
    assert.strictEqual(run.status, 0, run.stderr)
    const dir = workspace({
      "scripts/cycles.mjs": fs.readFileSync(path.join(root, "scripts", "cycles.mjs"), "utf8"),
      "apps/ahp/src/A.ts": "import \"./B.js\"",
      "apps/ahp/src/B.ts": "import \"./A.js\""
    })
    try {
      fs.symlinkSync(path.join(root, "node_modules"), path.join(dir, "node_modules"))
      const failing = spawnSync(process.execPath, [path.join(dir, "scripts", "cycles.mjs")], { encoding: "utf8" })
      assert.strictEqual(failing.status, 1)
      assert.strictEqual(failing.stderr, "import cycle: apps/ahp/src/A.ts -> apps/ahp/src/B.ts\n")
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
