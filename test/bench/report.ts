/**
 * Result rows, their table and `bench/results.json`. Every ratio reads the same way:
 * above 1 means ours is slower (or bigger) than the baseline — ours/baseline for
 * time-like and size-like units, baseline/ours for throughput.
 */
import { mkdirSync, writeFileSync } from "node:fs"
import { dirname } from "node:path"
import type { Comparison } from "./measure.js"

/** One line of `bench/results.json`. */
export interface Row {
  readonly name: string
  readonly ours: number
  readonly baseline: number
  readonly unit: string
  readonly ratio: number
  /** How `ratio` is computed. */
  readonly ratioOf: "ours/baseline" | "baseline/ours"
  /** The 99th percentile per-operation latency of each side, µs. */
  readonly p99?: { readonly ours: number; readonly baseline: number } | undefined
  readonly samples?: number | undefined
  /** The ratio this row must not exceed, when the issue sets one. */
  readonly target?: number | undefined
}

const round = (n: number): number => Number(n.toPrecision(4))

/** A throughput row (events per second) from a comparison. */
export const throughputRow = (name: string, c: Comparison, target?: number): Row => ({
  name,
  ours: round(c.ours.throughput),
  baseline: round(c.baseline.throughput),
  unit: "events/s",
  ratio: round(c.baseline.throughput / c.ours.throughput),
  ratioOf: "baseline/ours",
  p99: { ours: round(c.ours.p99), baseline: round(c.baseline.p99) },
  samples: c.ours.samples,
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
  p99: { ours: round(c.ours.p99), baseline: round(c.baseline.p99) },
  samples: c.ours.samples,
  target
})

/** A row of two plain quantities (sizes, slopes). */
export const quantityRow = (name: string, ours: number, baseline: number, unit: string): Row => ({
  name,
  ours: round(ours),
  baseline: round(baseline),
  unit,
  ratio: round(ours / baseline),
  ratioOf: "ours/baseline"
})

/** Whether a row meets its target (rows without one always do). */
export const meetsTarget = (row: Row): boolean => row.target === undefined || row.ratio <= row.target

const pad = (text: string, width: number, right = false) => right ? text.padStart(width) : text.padEnd(width)

/** The rows as a fixed-width text table. */
export const table = (rows: ReadonlyArray<Row>): string => {
  const header = ["benchmark", "ours", "baseline", "unit", "ratio", "ratio of", "p99 ours µs", "p99 base µs", "target"]
  const cells = rows.map((r) => [
    r.name,
    String(r.ours),
    String(r.baseline),
    r.unit,
    String(r.ratio),
    r.ratioOf,
    r.p99 === undefined ? "" : String(r.p99.ours),
    r.p99 === undefined ? "" : String(r.p99.baseline),
    r.target === undefined ? "" : `≤ ${r.target} ${meetsTarget(r) ? "ok" : "MISSED"}`
  ])
  const widths = header.map((h, i) => Math.max(h.length, ...cells.map((c) => c[i]!.length)))
  const line = (c: ReadonlyArray<string>) => c.map((text, i) => pad(text, widths[i]!, i > 0 && i < 8 && i !== 3 && i !== 5)).join("  ")
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)].join("\n")
}

/** Writes the rows as JSON. */
export const write = (file: string, rows: ReadonlyArray<Row>): void => {
  mkdirSync(dirname(file), { recursive: true })
  writeFileSync(file, JSON.stringify(rows, null, 2) + "\n")
}
