/**
 * Builds the `ahp` bundle once for the whole test run, into a temporary folder (the same
 * esbuild options as `scripts/ahp.mjs`), and hands its path to the tests as `bundle`. The
 * tests run the command line for real: `node <bundle> …`.
 */
import { build } from "esbuild"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { TestProject } from "vitest/node"

declare module "vitest" {
  export interface ProvidedContext {
    readonly bundle: string
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "ahp-bundle-"))
  const bundle = join(dir, "ahp.mjs")
  await build({
    entryPoints: [fileURLToPath(new URL("../src/bin.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: bundle,
    logLevel: "warning",
    banner: { js: "import{createRequire as __ahpRequire}from'module';const require=__ahpRequire(import.meta.url);" }
  })
  project.provide("bundle", bundle)
  return () => rmSync(dir, { recursive: true, force: true })
}
