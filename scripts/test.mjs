// The whole test suite: the type-check and every vitest project, side by side so that both
// cores work from the first second. The type-check runs `tsc -b` on tsconfig.build.json (the
// packages' sources, built into build/) and then on tsconfig.json (the tests, docs and
// command line too: everything `pnpm exec tsc -b tsconfig.json` checks). The consumer check
// (test/consumer) packs that build: this script tells it the build is done through the file
// named by AHP_TYPECHECK_RESULT, which receives the first tsc's exit code. The tests run at a
// lower priority than the type-check, which is one process on one core and on the
// consumer check's path.
// Ends with one line `N passed, N failed, N skipped` derived from vitest's JSON report; a
// failing type-check counts as one failed check. Exit code non-zero on any failure.
// Arguments are passed to vitest (`pnpm test --project ahp`).
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { setPriority, tmpdir } from "node:os"
import { join } from "node:path"
import { root } from "./bundle.mjs"

const report = join(root, ".vitest.json")
const signals = mkdtempSync(join(tmpdir(), "ahp-test-"))
const typecheckResult = join(signals, "typecheck")
const started = Date.now()
const seconds = () => `${((Date.now() - started) / 1000).toFixed(0)} s`

const exited = (child) => new Promise((resolve) => child.on("close", (code) => resolve(code ?? 1)))

const tscBin = join(root, "node_modules", "typescript", "bin", "tsc")
let tscOutput = ""
const runTsc = (project) => {
  const child = spawn(process.execPath, [tscBin, "-b", project], { cwd: root, stdio: ["ignore", "pipe", "pipe"] })
  child.stdout.setEncoding("utf8").on("data", (text) => (tscOutput += text))
  child.stderr.setEncoding("utf8").on("data", (text) => (tscOutput += text))
  return exited(child)
}

console.log("type-check: tsc -b tsconfig.json (every package, test and doc file; builds the packages) runs beside the tests")
const typecheck = (async () => {
  const built = await runTsc("tsconfig.build.json")
  writeFileSync(`${typecheckResult}.tmp`, String(built))
  renameSync(`${typecheckResult}.tmp`, typecheckResult)
  const code = built === 0 ? await runTsc("tsconfig.json") : built
  if (code === 0) console.log(`type-check: passed (${seconds()})`)
  else console.log(`${tscOutput.trimEnd()}\ntype-check: FAILED (exit code ${code}, ${seconds()})`)
  return code
})()

rmSync(report, { force: true })
const vitest = spawn(
  process.execPath,
  [
    join(root, "node_modules", "vitest", "vitest.mjs"),
    "run",
    "--reporter=default",
    "--reporter=json",
    `--outputFile.json=${report}`,
    ...process.argv.slice(2)
  ],
  { cwd: root, stdio: "inherit", env: { ...process.env, AHP_TYPECHECK_RESULT: typecheckResult } }
)
try {
  setPriority(vitest.pid, 10)
} catch {
  // not permitted here: the tests run at the same priority
}
const [typecheckCode, vitestCode] = await Promise.all([typecheck, exited(vitest)])
rmSync(signals, { recursive: true, force: true })

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
if (typecheckCode !== 0) failed += 1
if (vitestCode !== 0 && failed === 0) failed += 1
console.log(`all done in ${seconds()}`)
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed === 0 ? 0 : 1)
