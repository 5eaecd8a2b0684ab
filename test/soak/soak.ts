/**
 * `pnpm soak [--minutes N] [--seed S] [--lanes L]`: runs the soak (default 1 minute),
 * prints the report and exits non-zero if any check failed.
 */
import * as SoakRun from "./SoakRun.js"

const flag = (name: string): number | undefined => {
  const at = process.argv.indexOf(`--${name}`)
  if (at === -1) return undefined
  const value = Number(process.argv[at + 1])
  if (!Number.isFinite(value) || value <= 0) throw new Error(`--${name} needs a positive number`)
  return value
}

const minutes = flag("minutes") ?? 1
const report = await SoakRun.run({
  durationMs: minutes * 60_000,
  seed: flag("seed"),
  lanes: flag("lanes"),
  onProgress: (line) => process.stderr.write(`${line}\n`)
})
console.log(SoakRun.format(report))
process.exitCode = report.failed.length === 0 ? 0 : 1
