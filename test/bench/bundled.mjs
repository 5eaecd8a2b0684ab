// Runs a TypeScript entry point as production code runs: bundled by esbuild into one ES
// module (no loader hooks, no source maps) and executed by plain node with --expose-gc.
// Usage: node test/bench/bundled.mjs <entry.ts> [args...]
// The bundle is written next to the entry (so paths relative to it still hold) and removed
// afterwards; the exit code is the entry's.
import { build } from "esbuild"
import { spawnSync } from "node:child_process"
import { rmSync } from "node:fs"
import { basename, dirname, join, resolve } from "node:path"

const [entry, ...args] = process.argv.slice(2)
if (entry === undefined) {
  process.stderr.write("usage: node test/bench/bundled.mjs <entry.ts> [args...]\n")
  process.exit(2)
}
const source = resolve(entry)
const bundle = join(dirname(source), `.${basename(source, ".ts")}.bundle.mjs`)
try {
  await build({
    entryPoints: [source],
    outfile: bundle,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    logLevel: "warning",
    banner: { js: "import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);" }
  })
  const run = spawnSync(process.execPath, ["--expose-gc", bundle, ...args], { stdio: "inherit" })
  process.exitCode = run.status ?? 1
} finally {
  rmSync(bundle, { force: true })
}
