// Bundles the `ahp` command line with esbuild: `ahp.mjs` (the launcher, the package's bin)
// and the chunks it loads on demand (the command line, each command), split so that a
// command loads only the code it runs. Used by the workspace's `ahp` (apps/ahp/bin/ahp.mjs),
// the package build (scripts/build.mjs) and the tests (apps/ahp/test/globalSetup.ts).
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

export const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** The folders whose files go into the bundle. */
export const sources = [
  join(root, "apps", "ahp", "src"),
  join(root, "apps", "ahp", "package.json"),
  ...["protocol", "harness", "hosts", "node", "backend"].map((p) => join(root, "packages", p, "src"))
]

/**
 * Writes `<outdir>/ahp.mjs` and `<outdir>/chunks/`. The new files are built beside the old
 * ones and moved in place, the entry last, so a process starting meanwhile runs either the
 * old or the new bundle, never a mix.
 */
export const bundle = async (outdir) => {
  const staging = join(outdir, `.ahp-${process.pid}-${Date.now()}`)
  // loaded here, not at the top: the workspace's `ahp` imports this file on every start and
  // needs esbuild only when it rebuilds
  const { build } = await import("esbuild")
  await build({
    entryPoints: { ahp: join(root, "apps", "ahp", "src", "bin.ts") },
    outdir: staging,
    bundle: true,
    splitting: true,
    format: "esm",
    platform: "node",
    target: "node20",
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    legalComments: "none",
    // smaller code compiles faster at every start; names stay readable in stack traces
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "warning",
    // this build's identity: the hook trusts only the summaries of compiled registrations
    // that the same build cached (apps/ahp/src/hook/Cache.ts)
    define: { __AHP_BUILD__: JSON.stringify(`${Date.now().toString(36)}-${process.pid}`) },
    banner: { js: "import{createRequire as __ahpRequire}from'module';const require=__ahpRequire(import.meta.url);" }
  })
  mkdirSync(join(outdir, "chunks"), { recursive: true })
  const fresh = readdirSync(join(staging, "chunks"))
  for (const chunk of fresh) renameSync(join(staging, "chunks", chunk), join(outdir, "chunks", chunk))
  renameSync(join(staging, "ahp.mjs"), join(outdir, "ahp.mjs"))
  rmSync(staging, { recursive: true, force: true })
  return { entry: join(outdir, "ahp.mjs"), chunks: fresh }
}

/** Removes the chunks of earlier builds that `keep` does not list. */
export const pruneChunks = (outdir, keep) => {
  const dir = join(outdir, "chunks")
  if (!existsSync(dir)) return
  for (const chunk of readdirSync(dir)) if (!keep.includes(chunk)) rmSync(join(dir, chunk), { force: true })
}
