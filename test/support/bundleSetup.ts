/**
 * A vitest global setup handing the tests the workspace's `ahp` bundle (<repository>/dist,
 * what `pnpm ahp` runs and the package ships), bundled first when a source is newer
 * (`scripts/bundle.mjs`), as `bundle`: the tests run the command line for real, as
 * `node <bundle> …`. `AHP_TEST_BUNDLE=<file>` runs them against another build instead (an
 * older one, to see a test fail against the behaviour it guards). The command line's tests
 * and the real-host suite both use it as their `globalSetup`.
 */
import { join } from "node:path"
import type { TestProject } from "vitest/node"
import { freshBundle, root } from "../../scripts/bundle.mjs"

declare module "vitest" {
  export interface ProvidedContext {
    readonly bundle: string
  }
}

/** Provides `bundle`: `AHP_TEST_BUNDLE` when set, else the fresh workspace bundle. */
export default async function setup(project: TestProject) {
  const given = process.env.AHP_TEST_BUNDLE
  if (given !== undefined && given !== "") {
    project.provide("bundle", given)
    return
  }
  project.provide("bundle", await freshBundle(join(root, "dist")))
}
