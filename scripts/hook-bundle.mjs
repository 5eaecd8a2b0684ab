// Builds the hook bundle: `apps/ahp/src/hook/bin.ts` as `<dir>/ahp-hook.mjs`, split so that
// what only some hook calls need (the harness, each transport, install) sits in chunks of
// `<dir>/chunks/` loaded on demand. The bundle is built next to `<dir>` and swapped in whole,
// so a hook starting meanwhile sees either the old bundle or the new one.
import { build } from "esbuild"
import { existsSync, renameSync, rmSync } from "node:fs"
import { dirname, join } from "node:path"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")

/** Builds the hook bundle into `dir`; resolves with the path of its entry. */
export const buildHook = async (dir) => {
  const temporary = `${dir}.${process.pid}.tmp`
  rmSync(temporary, { recursive: true, force: true })
  await build({
    entryPoints: { "ahp-hook": join(root, "apps", "ahp", "src", "hook", "bin.ts") },
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outdir: temporary,
    outExtension: { ".js": ".mjs" },
    chunkNames: "chunks/[name]-[hash]",
    logLevel: "warning",
    define: { __AHP_BUILD__: JSON.stringify(`${Date.now().toString(36)}-${process.pid}`) },
    banner: { js: "import{createRequire as __ahpRequire}from'module';const require=__ahpRequire(import.meta.url);" }
  })
  const old = `${dir}.${process.pid}.old`
  if (existsSync(dir)) renameSync(dir, old)
  renameSync(temporary, dir)
  rmSync(old, { recursive: true, force: true })
  return join(dir, "ahp-hook.mjs")
}
