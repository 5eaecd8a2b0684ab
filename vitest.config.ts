import { defineConfig } from "vitest/config"
import { BaseSequencer, type TestSpecification } from "vitest/node"

/**
 * The projects in the order each pool runs them: the command line before the suites (forks),
 * and in the worker thread `node` (the node and backend packages) first, whose files mostly
 * wait on processes and deadlines, so that `core` (protocol, harness, hosts), which only
 * computes, fills the end of the run. Each project a pool starts loads its module graph
 * anew, so the library packages are two projects, not five: one per platform, as they
 * build (tsconfig.core.json, tsconfig.node.json). (One project for all five made harness
 * tests fail at random after the node tests in the same worker.)
 */
const order = ["ahp", "suites", "node", "core", "consumer"]

const rank = (file: TestSpecification): number =>
  order.includes(file.project.name) ? order.indexOf(file.project.name) : order.length

/**
 * Files that take long whatever the machine, mostly waiting (a soak of fixed length,
 * deadlines and kill graces to wait out): first in their project, in this order, also on a fresh clone,
 * where vitest has no timings yet and orders by file size. The one long file that only
 * computes (the generated-value comparison with the official JSON Schemas, about 9 s) comes
 * early too, beside the waiting ones: last, it ran alone at the end of the run with one
 * core idle. The short files fill the end.
 */
const long = [
  "Soak.test.ts",
  "StdioFaults.test.ts",
  "conformance/Schemas.test.ts",
  "HostileJson.test.ts",
  "HttpFaults.test.ts",
  "StdioHostile.test.ts",
  "e2e/Backend.test.ts",
  "Hook.test.ts",
  "Auth.test.ts",
  "StdioProcesses.test.ts"
]

/** The file's place in `long` (the list's length for the others). */
const longRank = (file: TestSpecification): number => {
  const at = long.findIndex((name) => file.moduleId.endsWith(`/${name}`))
  return at === -1 ? long.length : at
}

/**
 * vitest's order (slowest first, from its cache), grouped by project in the order above, the
 * long files first in the order of `long`.
 */
class LongestProjectsFirst extends BaseSequencer {
  override async sort(files: Array<TestSpecification>): Promise<Array<TestSpecification>> {
    const sorted = await super.sort(files)
    return sorted
      .map((file, index) => ({ file, index }))
      .sort((a, b) => rank(a.file) - rank(b.file) || longRank(a.file) - longRank(b.file) || a.index - b.index)
      .map(({ file }) => file)
  }
}

export default defineConfig({
  test: {
    projects: [
      "packages/vitest.node.config.ts",
      "packages/vitest.core.config.ts",
      "apps/*/vitest.config.ts",
      "test/vitest.config.ts",
      "test/hosts/vitest.config.ts",
      "test/consumer/vitest.config.ts"
    ],
    // Two pools run side by side: two forked workers for the command line and the suites,
    // whose files mostly wait on child processes, sockets and deadlines, and a worker thread
    // for the packages, whose tests mostly compute. More would starve the deadline and
    // linear-time tests on 2 cores beside the type-check and the consumer check.
    // A pool runs one project at a time, its files spread over its workers, which share
    // their module graph (effect and the packages load once per worker, not once per file):
    // no test relies on a fresh module state. Equal min and max: workers are reused, never
    // retired midway.
    poolOptions: {
      forks: { isolate: false, minForks: 2, maxForks: 2 },
      threads: { isolate: false, minThreads: 1, maxThreads: 1 }
    },
    sequence: { sequencer: LongestProjectsFirst }
  }
})
