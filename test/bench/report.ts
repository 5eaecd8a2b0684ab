/**
 * Result rows, their table and `bench/results.json`. Every ratio reads the same way:
 * above 1 means ours is slower (or bigger) than the baseline — ours/baseline for
 * time-like and size-like units, baseline/ours for throughput.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import {
  allocatedPerOperation,
  type Collections,
  type Comparison,
  type Pace,
  type Pair,
  sharingCpuComparison,
  transportComparisons
} from "./measure.js"

/** One line of `bench/results.json`. */
export interface Row {
  readonly name: string
  readonly ours: number
  readonly baseline: number
  readonly unit: string
  /** null when the figure divided by is 0 and the other is not (a raw loop without a collection, say). */
  readonly ratio: number | null
  /** How `ratio` is computed. */
  readonly ratioOf: "ours/baseline" | "baseline/ours"
  /** The 99th percentile per-operation latency of each side, µs. */
  readonly p99?: { readonly ours: number; readonly baseline: number } | undefined
  /** The 99.9th percentile per-operation latency of each side, µs. */
  readonly p999?: { readonly ours: number; readonly baseline: number } | undefined
  /** Garbage collections per 10 000 operations of each side (count, total pause in ms). */
  readonly gc?: { readonly ours: Collections; readonly baseline: Collections } | undefined
  readonly samples?: number | undefined
  /** The ratio this row must not exceed, when the issue sets one. */
  readonly target?: number | undefined
}

const round = (n: number): number => Number(n.toPrecision(4))

const roundCollections = (c: Collections): Collections => ({ count: round(c.count), pauseMs: round(c.pauseMs) })

/** What every row from a comparison carries besides its main figure. */
const tails = (c: Comparison) => ({
  p99: { ours: round(c.ours.p99), baseline: round(c.baseline.p99) },
  p999: { ours: round(c.ours.p999), baseline: round(c.baseline.p999) },
  ...(c.ours.gc !== undefined && c.baseline.gc !== undefined
    ? { gc: { ours: roundCollections(c.ours.gc), baseline: roundCollections(c.baseline.gc) } }
    : {}),
  samples: c.ours.samples
})

/** A throughput row (events per second) from a comparison. */
export const throughputRow = (name: string, c: Comparison, target?: number): Row => ({
  name,
  ours: round(c.ours.throughput),
  baseline: round(c.baseline.throughput),
  unit: "events/s",
  ratio: round(c.baseline.throughput / c.ours.throughput),
  ratioOf: "baseline/ours",
  ...tails(c),
  target
})

/** A median-latency row (µs) from a comparison. */
export const latencyRow = (name: string, c: Comparison, target?: number): Row => ({
  name,
  ours: round(c.ours.median),
  baseline: round(c.baseline.median),
  unit: "µs",
  ratio: round(c.ours.median / c.baseline.median),
  ratioOf: "ours/baseline",
  ...tails(c),
  target
})

/** A tail-latency row (µs): the `p99` or `p999` quantile of a comparison. */
export const tailRow = (name: string, c: Comparison, quantile: "p99" | "p999", target?: number): Row => ({
  name: `${name}, ${quantile === "p99" ? "p99" : "p99.9"}`,
  ours: round(c.ours[quantile]),
  baseline: round(c.baseline[quantile]),
  unit: "µs",
  ratio: round(c.ours[quantile] / c.baseline[quantile]),
  ratioOf: "ours/baseline",
  samples: c.ours.samples,
  target
})

/**
 * The garbage-collection rows of a comparison (count and total pause per 10 000
 * operations), when it observed them; `countTarget` bounds the count's ratio.
 */
export const collectionRows = (name: string, c: Comparison, countTarget?: number): Array<Row> =>
  c.ours.gc === undefined || c.baseline.gc === undefined ? [] : [
    {
      ...quantityRow(`${name}, gc count per 10k calls`, c.ours.gc.count, c.baseline.gc.count, "collections"),
      target: countTarget
    },
    quantityRow(`${name}, gc pause per 10k calls`, c.ours.gc.pauseMs, c.baseline.gc.pauseMs, "ms")
  ]

/**
 * A transport family's rows: p50 for every backend count and size (target 1.5 at 1 KiB:
 * the protocol-work floor's 1.25 times the harness's 1.2; 1.3 at 256 KiB), and for one
 * backend at 1 KiB also p99 (target 3), p99.9 and the collections (count target 2).
 */
const transportRows = (
  comparisons: ReadonlyArray<{ readonly count: number; readonly label: string; readonly comparison: Comparison }>,
  name: (count: number, label: string) => string
): Array<Row> =>
  comparisons.flatMap(({ comparison, count, label }) => {
    const small = label === "1 KiB"
    const row = latencyRow(name(count, label), comparison, small ? 1.5 : 1.3)
    if (!small || count !== 1) return [row]
    return [
      row,
      tailRow(row.name, comparison, "p99", 3),
      tailRow(row.name, comparison, "p999"),
      ...collectionRows(row.name, comparison, 2)
    ]
  })

/** The 1-backend 1 KiB pair's JavaScript heap allocated per call, each side in a pass of its own. */
const allocationRow = async (
  pace: Pace,
  pair: (count: number, bytes: number) => Promise<Pair>,
  name: string
): Promise<Row> => {
  const { baseline, close, ours } = await pair(1, 1024)
  try {
    const ops = Math.max(pace.ops, 2000)
    const [oursBytes, baselineBytes] = [
      await allocatedPerOperation(ours, ops),
      await allocatedPerOperation(baseline, ops)
    ]
    return quantityRow(`${name}, heap allocated per call`, oursBytes / 1024, baselineBytes / 1024, "KiB")
  } finally {
    await close()
  }
}

/**
 * A transport family's rows: 1 and 3 backends, 1 KiB and 256 KiB events (`transportRows`),
 * the heap allocated per call (1 backend, 1 KiB; no target: it explains the collections);
 * then, when the family runs pinned, the 1-backend 1 KiB pair with the backend on the
 * bench's CPU (no target).
 */
export const transportFamily = async (
  pace: Pace,
  pair: (count: number, bytes: number) => Promise<Pair>,
  name: (count: number, label: string) => string
): Promise<Array<Row>> => {
  const rows = [
    ...transportRows(await transportComparisons(pace, pair), name),
    await allocationRow(pace, pair, name(1, "1 KiB"))
  ]
  const sharing = await sharingCpuComparison(pace, pair)
  return sharing === undefined
    ? rows
    : [...rows, latencyRow(`${name(1, "1 KiB")}, the backend on the bench's CPU`, sharing)]
}

/** A row of two plain quantities (sizes, slopes). */
export const quantityRow = (name: string, ours: number, baseline: number, unit: string): Row => ({
  name,
  ours: round(ours),
  baseline: round(baseline),
  unit,
  ratio: ours === baseline ? 1 : baseline === 0 ? null : round(ours / baseline),
  ratioOf: "ours/baseline"
})

/** Whether a row meets its target (rows without one always do). */
export const meetsTarget = (row: Row): boolean =>
  row.target === undefined || (row.ratio !== null && row.ratio <= row.target)

const pad = (text: string, width: number, right = false) => right ? text.padStart(width) : text.padEnd(width)

/** The rows as a fixed-width text table. */
export const table = (rows: ReadonlyArray<Row>): string => {
  const header = ["benchmark", "ours", "baseline", "unit", "ratio", "ratio of", "p99 ours µs", "p99 base µs", "target"]
  const cells = rows.map((r) => [
    r.name,
    String(r.ours),
    String(r.baseline),
    r.unit,
    r.ratio === null ? "n/a" : String(r.ratio),
    r.ratioOf,
    r.p99 === undefined ? "" : String(r.p99.ours),
    r.p99 === undefined ? "" : String(r.p99.baseline),
    r.target === undefined ? "" : `≤ ${r.target} ${meetsTarget(r) ? "ok" : "MISSED"}`
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)))
  const line = (c: ReadonlyArray<string>) =>
    c.map((text, i) => pad(text, widths[i]!, i > 0 && i < 8 && i !== 3 && i !== 5)).join("  ")
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)].join("\n")
}

/** Writes the rows as JSON. */
export const write = (file: string, rows: ReadonlyArray<Row>): void => {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, JSON.stringify(rows, null, 2) + "\n")
}
