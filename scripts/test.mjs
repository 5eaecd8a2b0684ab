// The whole test suite, three things side by side so that both cores work from the first
// second:
// - the type-check: `tsc -b tsconfig.json` (what `pnpm check` runs): the packages' sources,
//   built into build/, then the tests, docs and command line;
// - vitest on every project but `consumer`;
// - lint and format (eslint.config.mjs: typescript-eslint and Effect's dprint formatting),
//   at a lower priority than the rest; its problems are printed when it ends; first, the
//   import-cycle check of the product code (scripts/cycles.mjs);
// - vitest on the `consumer` project (test/consumer: pack, install with npm, type-check and
//   run a consumer), which packs the type-check's build: this script tells it the build is
//   done through the file named by AHP_TYPECHECK_RESULT (it receives 0 when the packages
//   built without errors). Its report is printed when it ends.
// The tests run a little below the type-check and the consumer check (one chain of
// processes, one at a time; niceness 2): far below (10), they sat starved for a minute until
// the chain ended; alike, the chain became the end of the run. Ends with one line `N passed, N failed, N skipped`
// derived from vitest's JSON reports; a failing type-check counts as one failed check, and
// so does each file with lint problems. Exit
// code non-zero on any failure. Arguments go to one vitest run of the projects they select
// (`pnpm test --project ahp`), the consumer check included only when selected.
import { spawn } from "node:child_process"
import { existsSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs"
import { setPriority, tmpdir } from "node:os"
import { join, relative } from "node:path"
import { root } from "./bundle.mjs"

const work = mkdtempSync(join(tmpdir(), "ahp-test-"))
const typecheckResult = join(work, "typecheck")
const started = Date.now()
const seconds = () => `${((Date.now() - started) / 1000).toFixed(0)} s`
const exited = (child) => new Promise((resolve) => child.on("close", (code) => resolve(code ?? 1)))
/** Lowers a child's priority by `niceness` (lint 10, the tests 2), where this is permitted. */
const lower = (child, niceness) => {
  try {
    setPriority(child.pid, niceness)
  } catch {
    // not permitted here: it runs at the priority of the rest
  }
}

const tscBin = join(root, "node_modules", "typescript", "bin", "tsc")
/** What `tsc -b --verbose` prints about its progress, as opposed to diagnostics. */
const progress = /^\S.* - (Projects in this build|Project '|Building project|Updating |Skipping build)|^\s+\* \S|^\s*$/
/** The first line `tsc -b --verbose` prints about the project that comes after the packages. */
const checkProject = /'(\/.*\/)?tsconfig\.check\.json'/
const diagnostic = /: error TS\d+:/

/** Tells the consumer check that the packages' build ended, and how (`code`: 0 when it built them without errors). */
const announceBuild = (code) => {
  writeFileSync(`${typecheckResult}.tmp`, String(code))
  renameSync(`${typecheckResult}.tmp`, typecheckResult)
  if (code === 0) {
    console.log(`type-check: packages built (${seconds()}); checking the tests, docs and command line…`)
  }
}

console.log("type-check: building the packages, then checking the tests (tsc -b tsconfig.json), beside the tests…")
/**
 * One `tsc -b` for the packages and the tests: one process reads effect's and Node's
 * declarations once for all three projects (about 12 CPU-s less than a build and a check of
 * their own). Its `--verbose` progress says when it turns to tsconfig.check.json, which
 * comes after the packages: their build is then on disk, and the consumer check may pack it.
 */
const typecheck = (async () => {
  const child = spawn(process.execPath, [tscBin, "-b", "--verbose", "tsconfig.json"], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"]
  })
  let diagnostics = ""
  let built = false
  let pending = ""
  const onLine = (line) => {
    if (!built && checkProject.test(line) && progress.test(line)) {
      built = true
      announceBuild(diagnostic.test(diagnostics) ? 1 : 0)
    }
    if (!progress.test(line)) diagnostics += `${line}\n`
  }
  child.stdout.setEncoding("utf8").on("data", (text) => {
    const lines = (pending + text).split("\n")
    pending = lines.pop()
    lines.forEach(onLine)
  })
  child.stderr.setEncoding("utf8").on("data", (text) => (diagnostics += text))
  const code = await exited(child)
  if (pending !== "") onLine(pending)
  if (!built) announceBuild(code)
  if (code === 0) console.log(`type-check: passed (${seconds()})`)
  else console.log(`${diagnostics.trimEnd()}\ntype-check: FAILED (exit code ${code}, ${seconds()})`)
  return code
})()

const vitest = (args, report, stdio, niceness = 0) => {
  const child = spawn(
    process.execPath,
    [
      // a larger young generation: the worker thread's tests (node, core) allocate much that
      // dies young; about 4 % less CPU for them
      "--max-semi-space-size=64",
      join(root, "node_modules", "vitest", "vitest.mjs"),
      "run",
      "--reporter=json",
      `--outputFile.json=${report}`,
      ...args
    ],
    { cwd: root, stdio, env: { ...process.env, AHP_TYPECHECK_RESULT: typecheckResult } }
  )
  if (niceness > 0) lower(child, niceness)
  return exited(child).then((code) => ({ code, report }))
}

/**
 * Lints the tree; resolves to the number of files with problems (one if eslint could not
 * run), each import cycle of the product code counted as one.
 */
const lint = async () => {
  const { findCycles, importGraph, productFiles } = await import("./cycles.mjs")
  const cycles = findCycles(importGraph(productFiles()))
  for (const cycle of cycles) console.log(`lint: import cycle: ${cycle.map((f) => relative(root, f)).join(" -> ")}`)
  console.log("lint: eslint (formatting by dprint) runs beside the tests")
  const child = spawn(process.execPath, [
    join(root, "node_modules", "eslint", "bin", "eslint.js"),
    "--format",
    "json",
    "."
  ], {
    cwd: root,
    stdio: ["ignore", "pipe", "inherit"]
  })
  lower(child, 10)
  let output = ""
  child.stdout.setEncoding("utf8").on("data", (text) => (output += text))
  const code = await exited(child)
  let files
  try {
    files = JSON.parse(output).filter((file) => file.messages.length > 0)
  } catch {
    console.log(`lint: FAILED (eslint exited with ${code} and no report, ${seconds()})`)
    return 1
  }
  for (const file of files) {
    for (const m of file.messages) {
      console.log(`lint: ${relative(root, file.filePath)}:${m.line}:${m.column} ${m.message} (${m.ruleId})`)
    }
  }
  if (files.length === 0 && code !== 0) {
    console.log(`lint: FAILED (eslint exited with ${code}, ${seconds()})`)
    return 1
  }
  console.log(
    files.length + cycles.length === 0
      ? `lint: passed (${seconds()})`
      : `lint: FAILED in ${files.length} files and ${cycles.length} import cycles (${seconds()}); \`pnpm lint --fix\` formats`
  )
  return files.length + cycles.length
}

const selected = process.argv.slice(2)
const main = join(root, ".vitest.json")
const consumer = join(work, "consumer.json")
rmSync(main, { force: true })
/** Runs the consumer check quietly and prints its tests when it ends. */
const consumerCheck = async () => {
  console.log(
    "consumer check: waits for the packages' build, then packs it, installs it with npm, type-checks and runs a consumer…"
  )
  const run = await vitest(["--project", "consumer"], consumer, ["ignore", "ignore", "inherit"])
  if (existsSync(run.report)) {
    for (const file of JSON.parse(readFileSync(run.report, "utf8")).testResults) {
      for (const test of file.assertionResults) {
        console.log(
          `consumer check: ${test.status === "passed" ? "✓" : "×"} ${test.title} (${Math.round(test.duration ?? 0)} ms)`
        )
        for (const message of test.failureMessages) console.log(message)
      }
      if (file.assertionResults.length === 0 && file.message) {
        console.log(`consumer check: ${relative(root, file.name)}: ${file.message}`)
      }
    }
  }
  console.log(`consumer check: ${run.code === 0 ? "passed" : "FAILED"} (${seconds()})`)
  return run
}

const runs = selected.length > 0
  ? [vitest(["--reporter=default", ...selected], main, "inherit", 2)]
  : [vitest(["--reporter=default", "--project", "!consumer"], main, "inherit", 2), consumerCheck()]
const [typecheckCode, lintFailures, ...finished] = await Promise.all([
  typecheck,
  selected.length > 0 ? 0 : lint(),
  ...runs
])

let passed = 0, failed = 0, skipped = 0
for (const run of finished) {
  if (!existsSync(run.report)) {
    failed += 1
    continue
  }
  const r = JSON.parse(readFileSync(run.report, "utf8"))
  passed += r.numPassedTests
  failed += r.numFailedTests
  skipped += r.numPendingTests + r.numTodoTests
  // a file that fails to load has no tests but is a failure
  const unloaded = r.testResults.filter((f) => f.status === "failed" && f.assertionResults.length === 0).length
  failed += unloaded
  if (run.code !== 0 && r.numFailedTests === 0 && unloaded === 0) failed += 1
}
if (typecheckCode !== 0) failed += 1
failed += lintFailures
rmSync(work, { recursive: true, force: true })
console.log(`all done in ${seconds()}`)
console.log(`${passed} passed, ${failed} failed, ${skipped} skipped`)
process.exit(failed === 0 ? 0 : 1)
