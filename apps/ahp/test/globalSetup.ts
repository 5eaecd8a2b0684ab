/**
 * Builds the `ahp` bundle once for the whole test run, into a temporary folder (the same
 * build as the package's and the workspace's, `scripts/bundle.mjs`), and hands the path
 * of its entry to the tests as `bundle`. The tests run the command line for real:
 * `node <bundle> …`. `AHP_TEST_BUNDLE=<file>` runs them against another build instead (an
 * older one, to see a test fail against the behaviour it guards).
 */
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { bundle } from "../../../scripts/bundle.mjs"

declare module "vitest" {
  export interface ProvidedContext {
    readonly bundle: string
  }
}

export default async function setup(project: TestProject) {
  const given = process.env.AHP_TEST_BUNDLE
  if (given !== undefined && given !== "") {
    project.provide("bundle", given)
    return
  }
  const dir = mkdtempSync(join(tmpdir(), "ahp-bundle-"))
  const { entry } = await bundle(dir)
  project.provide("bundle", entry)
  return () => rmSync(dir, { recursive: true, force: true })
}
