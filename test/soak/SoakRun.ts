/**
 * The soak: dispatches continuously against a mix of healthy and misbehaving stdio and
 * HTTP backends and checks that nothing goes wrong over time.
 *
 * The run is made of epochs (see `Epoch.ts`), `lanes` of them running side by side, each
 * with 2–4 freshly started scripted backends whose behaviours are planned in `plan.ts`,
 * hostile ones among them (answers nested too deep, numbers no double holds, per-event
 * children exiting 1 after answering, grandchildren ignoring SIGTERM), and an upload
 * endpoint per epoch for the dispatches that carry an attachment.
 *
 * The report: dispatches, wrong decisions (must be 0; a huge number written otherwise in a
 * decision or in what a backend received counts as one), dispatches that were late (a route
 * planned to answer in time went past its deadline on a busy machine, and the decision is
 * exactly the plan's with that route failed: reported, not wrong), backend processes left over (must
 * be 0, grandchildren included, by the pids the backends logged and by a `ps` scan), fibers still alive after the run
 * (tracked with a `Supervisor`, must be back to the baseline) and heap growth: the median
 * of the last third of the per-epoch samples (each after a full gc) against the first
 * third's — a leak when it grew by more than 16 MiB and more than half.
 */
import { Effect, Supervisor } from "effect"
import { execFileSync } from "node:child_process"
import { mkdirSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { setFlagsFromString } from "node:v8"
import { runInNewContext } from "node:vm"
import * as Epoch from "./Epoch.js"
import * as plan from "./plan.js"

/** How long and how wide to soak. */
export interface Options {
  readonly durationMs: number
  /**
   * The run goes on past `durationMs` until this many dispatches ran (late ones not counted) (at most five times
   * `durationMs`): a seed whose plan holds many hangs (each a 2 s timeout) still runs enough
   * dispatches in a short soak. Default 0.
   */
  readonly minDispatches?: number | undefined
  /** The seed of every random choice (printed, so a run can be replayed). */
  readonly seed?: number | undefined
  /** Epochs running side by side (default 2). */
  readonly lanes?: number | undefined
  /** Receives a progress line now and then. */
  readonly onProgress?: ((line: string) => void) | undefined
}

/** What the soak found. */
export interface Report {
  readonly seed: number
  readonly elapsedMs: number
  readonly epochs: number
  readonly dispatches: number
  /** Dispatches whose `interrupt` fired before the chain finished. */
  readonly interrupted: number
  /** Dispatches whose fiber was interrupted. */
  readonly abandoned: number
  readonly wrongDecisions: number
  /** The first few wrong decisions, described. */
  readonly wrongSamples: ReadonlyArray<string>
  /** Dispatches a route of which went past its deadline only because the machine was busy. */
  readonly late: number
  readonly lateSamples: ReadonlyArray<string>
  readonly processesStarted: number
  /** Grandchildren ignoring SIGTERM among the started processes. */
  readonly grandchildren: number
  /** Huge-number values checked in what the backends received. */
  readonly numbersChecked: number
  /** Dispatches that carried an attachment, uploads received, references checked. */
  readonly attachments: { readonly dispatches: number; readonly uploads: number; readonly refsChecked: number }
  /** Pids the backends logged that still exist after their epoch closed. */
  readonly processesLeft: ReadonlyArray<number>
  /** Scripted backend processes of this run that `ps` still lists at the end. */
  readonly processesListed: ReadonlyArray<number>
  readonly fibersBaseline: number
  readonly fibersAfter: number
  readonly heap: { readonly firstMiB: number; readonly lastMiB: number; readonly growthMiB: number }
  /** The checks that failed (empty when the soak passed). */
  readonly failed: ReadonlyArray<string>
}

const MiB = 1024 * 1024

/** A full garbage collection, exposing `gc` first if node was started without it. */
const collectGarbage = (): void => {
  let gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) {
    setFlagsFromString("--expose-gc")
    gc = runInNewContext("gc") as () => void
  }
  gc()
  gc()
}

/** Processes whose command line mentions `marker` (this run's directory). */
const listed = (marker: string): Array<number> =>
  execFileSync("ps", ["-eo", "pid=,args="], { encoding: "utf8" })
    .split("\n")
    .filter((line) => line.includes(marker) && line.includes("scripted-backend"))
    .map((line) => Number(line.trim().split(/\s+/)[0]))

const median = (xs: ReadonlyArray<number>): number => {
  const sorted = [...xs].sort((a, b) => a - b)
  return sorted.length === 0 ? 0 : sorted[Math.floor(sorted.length / 2)]!
}

/** Runs the soak. */
export const run = async (options: Options): Promise<Report> => {
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31)
  const lanes = options.lanes ?? 2
  const started = Date.now()
  const deadline = started + options.durationMs
  const hardStop = started + 5 * options.durationMs
  const minDispatches = options.minDispatches ?? 0
  const root = mkdtempSync(join(tmpdir(), "ahp-soak-"))
  const supervisor = Supervisor.unsafeTrack()
  const fibersBaseline = Effect.runSync(supervisor.value).length
  const tally = Epoch.tally()
  const heap: Array<number> = []
  let lastProgress = started
  let processesListed: Array<number> = []
  const going = () => {
    const now = Date.now()
    return now < deadline || (tally.dispatches - tally.late < minDispatches && now < hardStop)
  }
  try {
    await Promise.all(Array.from({ length: lanes }, async (_, lane) => {
      const rng = plan.random(seed + lane)
      for (let n = 0; going(); n++) {
        const dir = join(root, `${lane}-${n}`)
        mkdirSync(dir)
        await Epoch.run({ rng, dir, name: `l${lane}e${n}`, going, supervisor, tally })
        collectGarbage()
        heap.push(process.memoryUsage().heapUsed / MiB)
        if (Date.now() - lastProgress > 10_000) {
          lastProgress = Date.now()
          options.onProgress?.(
            `${
              ((lastProgress - started) / 1000).toFixed(0)
            } s: ${tally.dispatches} dispatches, ${tally.wrong} wrong, ` +
              `${tally.processesLeft.length} processes left, ${Effect.runSync(supervisor.value).length} fibers alive`
          )
        }
      }
    }))
  } finally {
    processesListed = listed(root)
    rmSync(root, { recursive: true, force: true })
  }
  collectGarbage()
  const fibersAfter = Effect.runSync(supervisor.value).length
  const third = Math.max(1, Math.floor(heap.length / 3))
  const firstMiB = median(heap.slice(0, third))
  const lastMiB = median(heap.slice(-third))
  const growthMiB = lastMiB - firstMiB
  const failed = [
    ...(tally.wrong > 0 ? ["wrong decisions"] : []),
    ...(tally.processesLeft.length > 0 || processesListed.length > 0 ? ["child processes left over"] : []),
    ...(fibersAfter > fibersBaseline ? ["live fibers above the baseline"] : []),
    ...(growthMiB > 16 && lastMiB > firstMiB * 1.5 ? ["heap growth"] : []),
    ...(tally.dispatches === 0 ? ["no dispatch ran"] : []),
    ...(tally.dispatches > 0 && tally.dispatches === tally.late ? ["no dispatch was decided in time"] : [])
  ]
  return {
    seed,
    elapsedMs: Date.now() - started,
    epochs: tally.epochs,
    dispatches: tally.dispatches,
    interrupted: tally.interrupted,
    abandoned: tally.abandoned,
    wrongDecisions: tally.wrong,
    wrongSamples: tally.wrongSamples,
    late: tally.late,
    lateSamples: tally.lateSamples,
    processesStarted: tally.processesStarted,
    grandchildren: tally.grandchildren,
    numbersChecked: tally.numbersChecked,
    attachments: { dispatches: tally.attached, uploads: tally.uploads, refsChecked: tally.refsChecked },
    processesLeft: tally.processesLeft,
    processesListed,
    fibersBaseline,
    fibersAfter,
    heap: { firstMiB, lastMiB, growthMiB },
    failed
  }
}

/** The report as text. */
export const format = (r: Report): string =>
  [
    `soak: ${(r.elapsedMs / 60_000).toFixed(2)} min, seed ${r.seed}, ${r.epochs} epochs`,
    `dispatches: ${r.dispatches} (interrupted: ${r.interrupted}, abandoned: ${r.abandoned})`,
    `wrong decisions: ${r.wrongDecisions}`,
    ...r.wrongSamples.map((w) => `  ${w}`),
    `late on a busy machine (a route past its deadline, the policy applied; the epoch ended there): ${r.late}`,
    ...r.lateSamples.map((w) => `  ${w}`),
    `huge-number values received exactly by backends: ${r.numbersChecked} checked`,
    `attachments: ${r.attachments.dispatches} dispatches, ${r.attachments.uploads} uploads, ${r.attachments.refsChecked} references received checked`,
    `child processes left over: ${r.processesLeft.length} of ${r.processesStarted} started (${r.grandchildren} grandchildren ignoring SIGTERM)${
      r.processesLeft.length > 0 ? ` (${r.processesLeft.join(", ")})` : ""
    }`,
    `scripted-backend processes listed by ps after the run: ${r.processesListed.length}`,
    `live fibers after the run: ${r.fibersAfter} (baseline ${r.fibersBaseline})`,
    `heap: ${r.heap.firstMiB.toFixed(1)} MiB (first third) -> ${r.heap.lastMiB.toFixed(1)} MiB (last third), growth ${
      r.heap.growthMiB >= 0 ? "+" : ""
    }${r.heap.growthMiB.toFixed(1)} MiB`,
    `result: ${r.failed.length === 0 ? "PASS" : `FAIL (${r.failed.join(", ")})`}`
  ].join("\n")
