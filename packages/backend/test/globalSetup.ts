/**
 * Bundles the stdio backend of the tests (`fixtures/stdioBackend.ts`) once for the whole
 * run, into a temporary folder, and hands its path to the tests as `stdioBackend`: each
 * test then starts it with plain `node`, not a TypeScript loader compiling it at every
 * start.
 */
import { build } from "esbuild"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    readonly stdioBackend: string
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "ahp-backend-fixture-"))
  const outfile = join(dir, "stdioBackend.mjs")
  await build({
    entryPoints: [fileURLToPath(new URL("./fixtures/stdioBackend.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile,
    logLevel: "warning",
    banner: { js: "import{createRequire}from'module';const require=createRequire(import.meta.url);" }
  })
  project.provide("stdioBackend", outfile)
  return () => rmSync(dir, { recursive: true, force: true })
}
