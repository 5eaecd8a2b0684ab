// The published `exports` of every library package: the package index, one subpath per
// public module (each top-level src/*.ts but index.ts) and package.json. `--write` rewrites
// each package.json's publishConfig.exports to match; without it, lists the packages whose
// exports differ (exit code 1), which test/e2e/Exports.test.ts checks.
// Usage: node scripts/exports.mjs [--write]
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join, resolve } from "node:path"
import { libraries } from "./build.mjs"
import { root } from "./bundle.mjs"

const entry = (base) => ({ types: `./dist/${base}.d.ts`, import: `./dist/${base}.js`, default: `./dist/${base}.js` })

/** The exports a package's src/ calls for. */
export const expectedExports = (dir) => {
  const modules = readdirSync(join(dir, "src"))
    .filter((file) => file.endsWith(".ts") && !file.endsWith(".d.ts") && file !== "index.ts")
    .map((file) => file.slice(0, -".ts".length))
    .sort()
  return {
    "./package.json": "./package.json",
    ".": entry("index"),
    ...Object.fromEntries(modules.map((module) => [`./${module}`, entry(module)]))
  }
}

/** The packages whose publishConfig.exports differ from their sources; rewritten when `write`. */
export const syncExports = (write) =>
  libraries.flatMap((name) => {
    const dir = join(root, "packages", name)
    const file = join(dir, "package.json")
    const manifest = JSON.parse(readFileSync(file, "utf8"))
    const expected = expectedExports(dir)
    if (JSON.stringify(manifest.publishConfig?.exports) === JSON.stringify(expected)) return []
    if (write) {
      manifest.publishConfig = { ...manifest.publishConfig, exports: expected }
      writeFileSync(file, `${JSON.stringify(manifest, null, 2)}\n`)
    }
    return [name]
  })

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const write = process.argv.includes("--write")
  const differing = syncExports(write)
  for (const name of differing) {
    process.stdout.write(`${write ? "rewrote" : "differs"}: packages/${name}/package.json\n`)
  }
  process.exit(write || differing.length === 0 ? 0 : 1)
}
