// Runs the `ahp` command line from a single-file bundle (dist/ahp.mjs), rebuilding it with
// esbuild whenever a source file is newer. Starting the bundle takes a fraction of a second;
// running the TypeScript sources through a loader takes several.
import { build } from "esbuild"
import { existsSync, readdirSync, renameSync, statSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath, pathToFileURL } from "node:url"
import { buildHook } from "./hook-bundle.mjs"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const bundle = join(root, "dist", "ahp.mjs")
const sources = [join(root, "apps", "ahp", "src"), ...["protocol", "harness", "hosts", "node", "backend"].map((p) => join(root, "packages", p, "src"))]

const newest = (dir) => {
  let latest = 0
  if (!existsSync(dir)) return latest
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(path) : statSync(path).mtimeMs)
  }
  return latest
}

const stale = (file) => !existsSync(file) || Math.max(...sources.map(newest)) > statSync(file).mtimeMs

// `ahp hook …` runs from its own small bundle (dist/hook/ahp-hook.mjs), which starts fast.
const hook = process.argv[2] === "hook" ? join(root, "dist", "hook", "ahp-hook.mjs") : undefined
if (hook !== undefined) {
  if (stale(hook)) await buildHook(dirname(hook))
  process.argv.splice(2, 1)
} else if (stale(bundle)) {
  const temporary = `${bundle}.${process.pid}.tmp`
  await build({
    entryPoints: [join(root, "apps", "ahp", "src", "bin.ts")],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: temporary,
    logLevel: "warning",
    banner: { js: "import{createRequire as __ahpRequire}from'module';const require=__ahpRequire(import.meta.url);" }
  })
  renameSync(temporary, bundle)
}

// pnpm runs scripts from the workspace root; resolve file arguments where the user typed them.
if (process.env.INIT_CWD !== undefined && existsSync(process.env.INIT_CWD)) process.chdir(process.env.INIT_CWD)
await import(pathToFileURL(hook ?? bundle).href)
