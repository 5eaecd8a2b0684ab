/**
 * Scale: in-process dispatch cost as the number of interceptors grows (1 → 10 → 50, no
 * effect, 1 KiB) and as the event grows (1 KiB → 1 MiB, 3 interceptors answering a modify
 * merge), each point against the minimal loop. Growth is linear when the marginal cost
 * (per added interceptor, per added KiB) stays about the same from one step to the next:
 * the `growth` rows give the later step's marginal cost over the earlier one's (≈ 1 is
 * linear, clearly above 1 is super-linear).
 */
import * as fixtures from "./fixtures.js"
import { chainPair } from "./inProcess.js"
import { compare, type Comparison, type Pace } from "./measure.js"
import { latencyRow, quantityRow, type Row } from "./report.js"

interface Point {
  readonly x: number
  readonly comparison: Comparison
}

const measure = async (
  count: number,
  handler: (index: number) => fixtures.Handler,
  bytes: number,
  pace: Pace
): Promise<Comparison> => {
  const pair = await chainPair(count, handler, bytes)
  try {
    const ops = Math.max(4, Math.round(pace.ops / count / Math.max(1, bytes / (16 * fixtures.KiB))))
    return await compare(pair.ours, pair.baseline, { ...pace, ops })
  } finally {
    await pair.close()
  }
}

/** Marginal cost between consecutive points, for ours and the baseline. */
const growthRow = (name: string, points: ReadonlyArray<Point>): Row => {
  const slope = (side: "ours" | "baseline", a: Point, b: Point) =>
    (b.comparison[side].median - a.comparison[side].median) / (b.x - a.x)
  const [first, middle, last] = points as [Point, Point, Point]
  return quantityRow(
    name,
    slope("ours", middle, last) / slope("ours", first, middle),
    slope("baseline", middle, last) / slope("baseline", first, middle),
    "×"
  )
}

/** The family. */
export const run = async (pace: Pace): Promise<Array<Row>> => {
  const rows: Array<Row> = []
  const byCount: Array<Point> = []
  for (const count of [1, 10, 50]) {
    const comparison = await measure(count, fixtures.noEffect, fixtures.KiB, pace)
    byCount.push({ x: count, comparison })
    rows.push(latencyRow(`scale ${count} interceptor(s), no effect, 1 KiB`, comparison))
  }
  rows.push(growthRow("scale growth: µs per interceptor 10→50 over 1→10", byCount))
  const bySize: Array<Point> = []
  for (const [label, kib] of [["1 KiB", 1], ["256 KiB", 256], ["1 MiB", 1024]] as const) {
    const comparison = await measure(3, fixtures.modifyMerge, kib * fixtures.KiB, pace)
    bySize.push({ x: kib, comparison })
    rows.push(latencyRow(`scale 3 interceptors, modify merge, ${label}`, comparison))
  }
  rows.push(growthRow("scale growth: µs per KiB 256 KiB→1 MiB over 1→256 KiB", bySize))
  return rows
}
