/**
 * `pnpm soak [--minutes N] [--seed S] [--lanes L]`: runs the soak (default 1 minute),
 * prints the report and exits non-zero if any check failed. `pnpm soak --concurrent
 * [--minutes N] [--seed S] [--callers C]` runs the concurrency soak instead (Concurrent.ts).
 */
import * as Concurrent from "./Concurrent.js"
import * as SoakRun from "./SoakRun.js"

const flag = (name: string): number | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  if (at === -1) return undefined
  const value = Number(process.argv[at + 1])
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`)
  return value
}

const minutes = flag("minutes") ?? 1
if (process.argv.includes("--concurrent")) {
  const report = await Concurrent.run({ durationMs: minutes * 60_000, seed: flag("seed"), callers: flag("callers") })
  console.log(Concurrent.format(report))
  process.exitCode = report.failed.length === 0 ? 0 : 1
} else {
  const report = await SoakRun.run({
    durationMs: minutes * 60_000,
    seed: flag("seed"),
    lanes: flag("lanes"),
    onProgress: (line) => process.stderr.write(`${line}\n`)
  })
  console.log(SoakRun.format(report))
  process.exitCode = report.failed.length === 0 ? 0 : 1
}
