// The whole test suite: type-check every project, run every vitest project, and end with
// one line `N passed, N failed, N skipped` derived from vitest's JSON report.
// A failing type-check counts as one failed check. Exit code is non-zero on any failure.
import { spawnSync } from "node:child_process"
import { existsSync, readFileSync, rmSync } from "node:fs"

const report = ".vitest.json"
const run = (command, args) => spawnSync(command, args, { stdio: "inherit", shell: false }).status ?? 1

const typecheck = run("pnpm", ["exec", "tsc", "-b", "tsconfig.json"])
rmSync(report, { force: true })
const vitest = run("pnpm", [
  "exec", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`,
  ...process.argv.slice(2)
])

let passed = 0, failed = 0, skipped = 0
if (existsSync(report)) {
  const r = JSON.parse(readFileSync(report, "utf8"))
  passed = r.numPassedTests
  failed = r.numFailedTests
  skipped = r.numPendingTests + r.numTodoTests
  // a file that fails to load has no tests but is a failure
  failed += r.testResults.filter((f) => f.status === "failed" && f.assertionResults.length === 0).length
} else {
  failed += 1
}
if (typecheck !== 0) failed += 1
if (vitest !== 0 && failed === 0) failed += 1
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed === 0 ? 0 : 1)
