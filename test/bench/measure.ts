/**
 * The shared measurement helper. Ours and the baseline run side by side in one process:
 * after warm-up rounds (discarded; a number of rounds and a minimum time per side), they
 * alternate in rounds — the order flips every
 * round so neither side always runs on a warmer cache — and every operation is timed on
 * its own. A comparison yields the median and p99 per-operation latency of each side and
 * the median per-round throughput. Garbage collections are observed throughout (`perf_hooks`
 * 'gc' entries) and each is counted for the side whose round it started in.
 */
import { Effect, type ManagedRuntime } from "effect"
import { Session } from "node:inspector/promises"
import { performance, PerformanceObserver } from "node:perf_hooks"
import * as placement from "./placement.js"

/** Runs `ops` operations and returns each one's duration in microseconds. */
export type Batch = (ops: number) => Promise<ReadonlyArray<number>>

/** How a comparison is paced. */
export interface Pace {
  /** Rounds per side discarded before measuring (at least). */
  readonly warmup: number
  /**
   * Time each side spends in discarded rounds before measuring (at least), so that the JIT
   * has optimised both before anything is kept, however slow one operation is.
   */
  readonly warmupMillis?: number | undefined
  /** Measured rounds per side. */
  readonly rounds: number
  /** Operations per round. */
  readonly ops: number
}

/** One side's figures. */
export interface Stats {
  /** Median per-operation latency, µs. */
  readonly median: number
  /** 99th percentile per-operation latency, µs. */
  readonly p99: number
  /** 99.9th percentile per-operation latency, µs. */
  readonly p999: number
  /** Median over rounds of operations per second. */
  readonly throughput: number
  readonly samples: number
  /** Collections that started during this side's measured rounds, per 10 000 operations. */
  readonly gc?: Collections | undefined
}

/** Garbage collections per 10 000 operations: how many, and their total pause. */
export interface Collections {
  readonly count: number
  /** Total pause, ms. */
  readonly pauseMs: number
}

/** Both sides' figures. */
export interface Comparison {
  readonly ours: Stats
  readonly baseline: Stats
}

/** The `q` quantile (0..1) of unsorted samples, nearest rank. */
export const quantile = (samples: ReadonlyArray<number>, q: number): number => {
  if (samples.length === 0) return Number.NaN
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

/** The figures of per-operation latencies measured one at a time (throughput not measured). */
export const latencyStats = (latencies: ReadonlyArray<number>): Stats => stats(latencies, [], undefined)

const stats = (
  latencies: ReadonlyArray<number>,
  throughputs: ReadonlyArray<number>,
  gc: Collections | undefined
): Stats => ({
  median: quantile(latencies, 0.5),
  p99: quantile(latencies, 0.99),
  p999: quantile(latencies, 0.999),
  throughput: throughputs.length === 0 ? 0 : quantile(throughputs, 0.5),
  samples: latencies.length,
  gc
})

/** A time window (`performance.now()` ms) in which one side ran a measured round. */
interface Window {
  readonly start: number
  readonly end: number
}

/**
 * Records every garbage collection from now on; `per10k` stops recording and counts, per
 * 10 000 of `ops` operations, the collections that started inside `windows`.
 */
export const observeCollections = () => {
  const entries: Array<{ readonly startTime: number; readonly duration: number }> = []
  const observer = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) entries.push({ startTime: e.startTime, duration: e.duration })
  })
  observer.observe({ entryTypes: ["gc"] })
  return {
    stop: () => {
      for (const e of observer.takeRecords()) entries.push({ startTime: e.startTime, duration: e.duration })
      observer.disconnect()
    },
    per10k: (windows: ReadonlyArray<Window>, ops: number): Collections => {
      const inside = entries.filter((e) => windows.some((w) => e.startTime >= w.start && e.startTime < w.end))
      const scale = 10_000 / ops
      return {
        count: inside.length * scale,
        pauseMs: inside.reduce((sum, e) => sum + e.duration, 0) * scale
      }
    }
  }
}

/** Times a synchronous operation `ops` times (for baselines that do not await). */
export const timeSync = (ops: number, operation: () => unknown): ReadonlyArray<number> => {
  const out = new Array<number>(ops)
  for (let i = 0; i < ops; i++) {
    const start = performance.now()
    operation()
    out[i] = (performance.now() - start) * 1000
  }
  return out
}

/** Times an asynchronous operation `ops` times, one after another. */
export const timeAsync = async (ops: number, operation: () => Promise<unknown>): Promise<ReadonlyArray<number>> => {
  const out = new Array<number>(ops)
  for (let i = 0; i < ops; i++) {
    const start = performance.now()
    await operation()
    out[i] = (performance.now() - start) * 1000
  }
  return out
}

/** Times `effect` run `ops` times, one after another, inside one fiber of `runtime`. */
export const timeEffect = <R, ER>(
  runtime: ManagedRuntime.ManagedRuntime<R, ER>,
  effect: Effect.Effect<unknown, unknown, R>
): Batch =>
(ops) =>
  runtime.runPromise(Effect.suspend(() => {
    const out = new Array<number>(ops)
    let i = 0
    let start = 0
    return Effect.whileLoop({
      while: () => i < ops,
      body: () => Effect.zipRight(Effect.sync(() => void (start = performance.now())), effect),
      step: () => void (out[i++] = (performance.now() - start) * 1000)
    }).pipe(Effect.as(out))
  }))

/** Measures ours and the baseline in alternating rounds after warm-up. */
export const compare = async (ours: Batch, baseline: Batch, pace: Pace): Promise<Comparison> => {
  const side = (batch: Batch) => ({
    batch,
    latencies: [] as Array<number>,
    throughputs: [] as Array<number>,
    windows: [] as Array<Window>
  })
  const sides = { ours: side(ours), baseline: side(baseline) }
  const warming = { ours: 0, baseline: 0 }
  const warmupMillis = pace.warmupMillis ?? 0
  for (let round = 0; round < pace.warmup || Math.min(warming.ours, warming.baseline) < warmupMillis; round++) {
    for (const [name, batch] of [["ours", ours], ["baseline", baseline]] as const) {
      const start = performance.now()
      await batch(pace.ops)
      warming[name] += performance.now() - start
    }
  }
  const collections = observeCollections()
  for (let round = 0; round < pace.rounds; round++) {
    const order = round % 2 === 0 ? [sides.ours, sides.baseline] : [sides.baseline, sides.ours]
    for (const side of order) {
      const start = performance.now()
      const latencies = await side.batch(pace.ops)
      const end = performance.now()
      side.latencies.push(...latencies)
      side.throughputs.push((pace.ops * 1000) / (end - start))
      side.windows.push({ start, end })
    }
  }
  collections.stop()
  const of = (s: typeof sides.ours) =>
    stats(s.latencies, s.throughputs, collections.per10k(s.windows, s.latencies.length))
  return { ours: of(sides.ours), baseline: of(sides.baseline) }
}

/** Ours, its baseline, and how to release what they hold. */
export interface Pair {
  readonly ours: Batch
  readonly baseline: Batch
  readonly close: () => Promise<void>
}

/**
 * The transport families' rows: each pair made for 1 and 3 backends and 1 KiB and 256 KiB
 * events (an 80th of the operations at 256 KiB, at least 3), compared, then closed.
 */
export const transportComparisons = async (
  pace: Pace,
  pair: (count: number, bytes: number) => Promise<Pair>
): Promise<Array<{ readonly count: number; readonly label: string; readonly comparison: Comparison }>> => {
  const out: Array<{ readonly count: number; readonly label: string; readonly comparison: Comparison }> = []
  for (const count of [1, 3]) {
    for (
      const [label, bytes, ops] of [["1 KiB", 1024, pace.ops], [
        "256 KiB",
        256 * 1024,
        Math.max(3, Math.ceil(pace.ops / 80))
      ]] as const
    ) {
      const { baseline, close, ours } = await pair(count, bytes)
      try {
        out.push({ count, label, comparison: await compare(ours, baseline, { ...pace, ops }) })
      } finally {
        await close()
      }
    }
  }
  return out
}

/**
 * The 1-backend 1 KiB pair once more with its backend children on the bench's own CPU (see
 * `placement.sharingCpuWhile`); undefined when the family is not pinned.
 */
export const sharingCpuComparison = (
  pace: Pace,
  pair: (count: number, bytes: number) => Promise<Pair>
): Promise<Comparison | undefined> =>
  placement.sharingCpuWhile(async () => {
    const { baseline, close, ours } = await pair(1, 1024)
    try {
      return await compare(ours, baseline, pace)
    } finally {
      await close()
    }
  })

/** A node of V8's sampling heap profile: the bytes sampled in a function, and its callees. */
interface ProfileNode {
  readonly selfSize: number
  readonly children: ReadonlyArray<ProfileNode>
}

const sampledBytes = (node: ProfileNode): number =>
  node.children.reduce((sum, child) => sum + sampledBytes(child), node.selfSize)

/**
 * Bytes of JavaScript heap allocated per operation of `batch` over `ops` operations, after
 * one warm-up batch: V8's sampling heap profiler (a sample every 512 bytes), counting the
 * objects that collections already freed. Buffers' external memory is not counted. The
 * profiler slows what it samples, so this runs in a pass of its own, never inside a timed
 * comparison.
 */
export const allocatedPerOperation = async (batch: Batch, ops: number): Promise<number> => {
  await batch(ops)
  const session = new Session()
  session.connect()
  try {
    await session.post("HeapProfiler.enable")
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 512,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true
    })
    await batch(ops)
    const { profile } = await session.post("HeapProfiler.stopSampling")
    return sampledBytes(profile.head as ProfileNode) / ops
  } finally {
    session.disconnect()
  }
}
