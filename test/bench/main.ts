/**
 * `pnpm bench`: runs every family (or those named with `--only a,b`), prints the table and
 * writes `bench/results.json`. Not part of the test run.
 */
import * as floor from "./floor.js"
import * as hook from "./hook.js"
import * as hosts from "./hosts.js"
import * as http from "./http.js"
import * as inProcess from "./inProcess.js"
import type { Pace } from "./measure.js"
import * as memory from "./memory.js"
import * as placement from "./placement.js"
import * as reference from "./reference.js"
import { meetsTarget, type Row, table, write } from "./report.js"
import * as scale from "./scale.js"
import * as sessions from "./sessions.js"
import * as stdio from "./stdio.js"

// In-process rounds last tens of milliseconds, so one garbage collection does not decide a
// round; warm-up gives the JIT thousands of dispatches per row before anything is kept.
// Transport rows warm up for at least 2 s per side: a few hundred exchanges leave the
// harness's code unoptimised (measured: 1 KiB stdio p50 340 µs after 300 dispatches,
// 100 µs after 3 000), while the raw loops are warm after a handful.
const pace: Pace = { warmup: 5, rounds: 15, ops: 2000 }
// 20 rounds of 250 give each side 5 000 timed calls at 1 KiB, enough for a p99.9 and for
// collections per 10k calls to mean something (256 KiB rounds are an 80th of that).
const transportPace: Pace = { warmup: 10, warmupMillis: 2000, rounds: 20, ops: 250 }

// The latency families (stdio, http, floor) run with the bench process and its backend
// children pinned to two CPUs (placement.ts): each exchange crosses CPUs, for ours and the
// baseline alike. The sessions family measures how many calls a process serves when it may
// use every CPU, as a host would, and runs unpinned.
const families: ReadonlyArray<readonly [string, () => Promise<Array<Row>>]> = [
  ["in-process", () => inProcess.run(pace)],
  ["stdio", () => placement.pinnedWhile(() => stdio.run(transportPace))],
  ["http", () => placement.pinnedWhile(() => http.run(transportPace))],
  ["floor", () => placement.pinnedWhile(() => floor.run(transportPace))],
  ["reference", () => placement.pinnedWhile(() => reference.run(transportPace))],
  ["scale", () => scale.run({ ...pace, rounds: 10 })],
  // HTTP sessions rounds run 1 000 calls (16 per caller at least) after 2 s of warm-up per
  // side: a round of 60 calls lasted about 10 ms, so one collection or one scheduling
  // hiccup under load decided a round.
  ["sessions", () => sessions.run({ warmup: 5, warmupMillis: 2000, rounds: 10, ops: 1000 })],
  ["memory", () => memory.run()],
  ["hook", () => hook.run({ warmup: 3, rounds: 20, ops: 1 })],
  // each host run starts a whole host: 4 runs of 6 tool calls per variant and host
  ["hosts", () => hosts.run({ rounds: 4, calls: 6 })]
]

const only = (() => {
  const at = process.argv.indexOf("--only")
  return at === -1 ? undefined : new Set(process.argv[at + 1]?.split(","))
})()

const rows: Array<Row> = []
for (const [name, run] of families) {
  if (only !== undefined && !only.has(name)) continue
  const started = Date.now()
  const measured = await run()
  rows.push(...measured)
  process.stderr.write(`${name}: ${measured.length} rows in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
}

const resultsFile = new URL("../../bench/results.json", import.meta.url)
write(resultsFile.pathname, rows)
const targeted = rows.filter((r) => r.target !== undefined)
console.log(table(rows))
const verdict = targeted.length === 0
  ? "no row here has a target"
  : `${targeted.filter(meetsTarget).length}/${targeted.length} targets met`
console.log(`\n${placement.describe()}\n${verdict}; results in bench/results.json`)
