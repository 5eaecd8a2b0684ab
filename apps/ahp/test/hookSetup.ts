/**
 * Builds the hook bundle once for the whole test run, into a temporary folder (the same
 * build as `scripts/ahp.mjs` runs for `ahp hook`), and hands the path of its entry to the
 * tests as `hookBundle`. The hook tests run it as the hosts do: `node <hookBundle> <host>`.
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
// @ts-expect-error: a plain ES module of the repository's scripts, without type declarations
import { buildHook } from "../../../scripts/hook-bundle.mjs"

declare module "vitest" {
  export interface ProvidedContext {
    readonly hookBundle: string
  }
}

export default async function setup(project: TestProject) {
  const dir = mkdtempSync(join(tmpdir(), "ahp-hook-bundle-"))
  project.provide("hookBundle", await buildHook(join(dir, "hook")))
  return () => rmSync(dir, { recursive: true, force: true })
}
