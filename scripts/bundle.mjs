// Bundles the `ahp` command line with esbuild: `ahp.mjs` (the launcher, the package's bin)
// and the chunks it loads on demand (the command line as one CommonJS file, the command
// hook's entry as ES modules). Used by the workspace's `ahp` (apps/ahp/bin/ahp.mjs),
// the package build (scripts/build.mjs) and the tests (apps/ahp/test/globalSetup.ts).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

export const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** The folders whose files go into the bundle. */
export const sources = [
  join(root, "apps", "ahp", "src"),
  join(root, "apps", "ahp", "package.json"),
  ...["protocol", "harness", "hosts", "node", "backend"].map((p) => join(root, "packages", p, "src"))
]

/** What both builds share: one build identity, the same target and minification. */
const common = () => ({
  // the repository, whatever the caller's working directory (the workspace's `ahp` runs
  // anywhere): the metafile names the files it wrote relative to it
  absWorkingDir: root,
  bundle: true,
  platform: "node",
  target: "node20",
  legalComments: "none",
  // smaller code compiles faster at every start; names stay readable in stack traces
  minifyWhitespace: true,
  minifySyntax: true,
  logLevel: "warning",
  metafile: true,
  // this build's identity: the hook trusts only the summaries of compiled registrations
  // that the same build cached (apps/ahp/src/hook/Cache.ts)
  define: { __AHP_BUILD__: JSON.stringify(`${Date.now().toString(36)}-${process.pid}`) }
})

/** The files a build wrote, relative to `dir`. */
const written = (result, dir) => Object.keys(result.metafile.outputs).map((file) => relative(dir, resolve(root, file)))

/**
 * Writes `<outdir>/ahp.mjs` and `<outdir>/chunks/`: the launcher (src/bin.ts); the command
 * line and the command hook's cold path (src/internal/entry.ts) as one CommonJS file named
 * after its content's digest, which the launcher compiles through V8's code cache
 * (src/internal/codeCache.ts); and the command hook's entry as ES modules, split so that a
 * hook call loads only the code it runs. The new files are built beside the old ones and
 * moved in place, the entry last, so a process starting meanwhile runs either the old or the
 * new bundle, never a mix.
 */
export const bundle = async (outdir) => {
  const staging = join(outdir, `.ahp-${process.pid}-${Date.now()}`)
  // loaded here, not at the top: the workspace's `ahp` imports this file on every start and
  // needs esbuild only when it rebuilds
  const { build } = await import("esbuild")
  const shared = common()
  const main = await build({
    ...shared,
    entryPoints: { Main: join(root, "apps", "ahp", "src", "internal", "entry.ts") },
    outdir: staging,
    format: "cjs",
    entryNames: "chunks/[name]-[hash]",
    outExtension: { ".js": ".cjs" },
    // the command line's `import.meta.url` (Conformance finds the shared fixtures from it):
    // the CommonJS file's own URL
    banner: { js: "var __ahpImportMetaUrl=require(\"node:url\").pathToFileURL(__filename).href;" },
    define: { ...shared.define, "import.meta.url": "__ahpImportMetaUrl" }
  })
  const [mainFile] = written(main, staging)
  await build({
    ...shared,
    entryPoints: { ahp: join(root, "apps", "ahp", "src", "bin.ts") },
    outdir: staging,
    splitting: true,
    format: "esm",
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    define: { ...shared.define, __AHP_MAIN__: JSON.stringify(`./${mainFile.split("\\").join("/")}`) },
    banner: { js: "import{createRequire as __ahpRequire}from'module';const require=__ahpRequire(import.meta.url);" }
  })
  mkdirSync(join(outdir, "chunks"), { recursive: true })
  const fresh = readdirSync(join(staging, "chunks"))
  for (const chunk of fresh) renameSync(join(staging, "chunks", chunk), join(outdir, "chunks", chunk))
  renameSync(join(staging, "ahp.mjs"), join(outdir, "ahp.mjs"))
  rmSync(staging, { recursive: true, force: true })
  return { entry: join(outdir, "ahp.mjs"), chunks: fresh }
}

/** Removes the chunks of earlier builds that `keep` does not list, and their code caches. */
export const pruneChunks = (outdir, keep) => {
  const dir = join(outdir, "chunks")
  if (!existsSync(dir)) return
  for (const file of readdirSync(dir)) {
    if (!keep.some((chunk) => file === chunk || file.startsWith(`${chunk}.`))) rmSync(join(dir, file), { force: true })
  }
}
