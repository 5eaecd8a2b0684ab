// Bundles the `ahp` command line with esbuild: `ahp.mjs` (the launcher, the package's bin)
// and the chunks it loads on demand (the command line as one CommonJS file, the command
// hook's entry as ES modules). The workspace's `ahp` (apps/ahp/bin/ahp.mjs), the tests
// (test/support/bundleSetup.ts) and the package build (scripts/build.mjs) share one bundle,
// <repository>/dist, rebuilt when a source is newer (`freshBundle`).
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"

export const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** The folders whose files go into the bundle. */
const sources = [
  join(root, "apps", "ahp", "src"),
  join(root, "apps", "ahp", "package.json"),
  ...["protocol", "harness", "hosts", "node", "backend", "hook", "tools"].map((p) => join(root, "packages", p, "src"))
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
  // that the same build cached (packages/hook/src/Cache.ts)
  define: { __AHP_BUILD__: JSON.stringify(`${Date.now().toString(36)}-${process.pid}`) }
})

/** The files a build wrote, relative to `dir`. */
const written = (result, dir) => Object.keys(result.metafile.outputs).map((file) => relative(dir, resolve(root, file)))

/**
 * Writes `<outdir>/ahp.mjs` and `<outdir>/chunks/`: the launcher (src/bin.ts); the command
 * line and the command hook's cold path (src/internal/entry.ts) as one CommonJS file named
 * after its content's digest, which the launcher compiles through V8's code cache
 * (src/internal/startup.ts); and the command hook's entry as ES modules, split so that a
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
    define: {
      ...shared.define,
      __AHP_MAIN__: JSON.stringify(`./${mainFile.split("\\").join("/")}`),
      __AHP_VERSION__: JSON.stringify(
        JSON.parse(readFileSync(join(root, "apps", "ahp", "package.json"), "utf8")).version
      )
    },
    banner: { js: "import{createRequire as __ahpRequire}from'module';const require=__ahpRequire(import.meta.url);" }
  })
  mkdirSync(join(outdir, "chunks"), { recursive: true })
  const fresh = readdirSync(join(staging, "chunks"))
  for (const chunk of fresh) renameSync(join(staging, "chunks", chunk), join(outdir, "chunks", chunk))
  renameSync(join(staging, "ahp.mjs"), join(outdir, "ahp.mjs"))
  rmSync(staging, { recursive: true, force: true })
  return { entry: join(outdir, "ahp.mjs"), chunks: fresh }
}

/** The newest modification time of a file, or of any file under a folder; 0 when it does not exist. */
const newest = (path) => {
  if (!existsSync(path)) return 0
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))))
}

/** What a bundle is made from: the sources and this script. */
const inputs = [...sources, fileURLToPath(import.meta.url)]

/**
 * `<outdir>/ahp.mjs`, bundled first (and the chunks of earlier builds pruned) when it is
 * missing or older than a source or this script.
 */
export const freshBundle = async (outdir) => {
  const entry = join(outdir, "ahp.mjs")
  if (!existsSync(entry) || Math.max(...inputs.map(newest)) > statSync(entry).mtimeMs) {
    const { chunks } = await bundle(outdir)
    pruneChunks(outdir, chunks)
  }
  return entry
}

/** A chunk named in a bundle's ES modules (esbuild names each after a digest of its content). */
const chunkReference = /"\.\/(?:chunks\/)?([A-Za-z]+-[A-Z0-9]{8}\.[cm]js)"/g

/**
 * The files of the bundle in `outdir`, relative to it: `ahp.mjs` and every chunk it loads,
 * directly or through other chunks (not the code caches, nor chunks of earlier builds).
 * Throws when a chunk it names is missing.
 */
export const bundleFiles = (outdir) => {
  const files = ["ahp.mjs"]
  for (let i = 0; i < files.length; i++) {
    if (!files[i].endsWith(".mjs")) continue
    for (const [, name] of readFileSync(join(outdir, files[i]), "utf8").matchAll(chunkReference)) {
      if (!files.includes(`chunks/${name}`)) files.push(`chunks/${name}`)
    }
  }
  const missing = files.filter((file) => !existsSync(join(outdir, file)))
  if (missing.length > 0) throw new Error(`the bundle in ${outdir} is incomplete: ${missing.join(", ")} missing`)
  return files
}

/** Removes the chunks of earlier builds that `keep` does not list, and their code caches. */
const pruneChunks = (outdir, keep) => {
  const dir = join(outdir, "chunks")
  if (!existsSync(dir)) return
  for (const file of readdirSync(dir)) {
    if (!keep.some((chunk) => file === chunk || file.startsWith(`${chunk}.`))) rmSync(join(dir, file), { force: true })
  }
}
