/**
 * Memory: heap and RSS after 100k in-process dispatches (1 interceptor) and after 10k
 * stdio dispatches (1 persistent backend), 1 KiB events, both measured after a full
 * garbage collection (run node with `--expose-gc`). The "baseline" of these rows is the
 * same measurement taken right before the dispatches, after warm-up: a ratio near 1 means
 * nothing accumulated.
 */
import { Hooks } from "@effect-ahp/harness"
import { Effect, type ManagedRuntime } from "effect"
import * as fixtures from "./fixtures.js"
import { quantityRow, type Row } from "./report.js"

const MiB = 1024 * 1024

interface Snapshot {
  readonly heap: number
  readonly rss: number
}

/** Heap and RSS in MiB after a full collection. */
export const snapshot = (): Snapshot => {
  const gc = (globalThis as { gc?: () => void }).gc
  if (gc === undefined) throw new Error("run node with --expose-gc to measure memory")
  gc()
  gc()
  const usage = process.memoryUsage()
  return { heap: usage.heapUsed / MiB, rss: usage.rss / MiB }
}

const dispatches = async (
  runtime: ManagedRuntime.ManagedRuntime<Hooks.Hooks, unknown>,
  count: number
): Promise<void> => {
  const event = fixtures.toolBefore(fixtures.KiB)
  const batch = Effect.flatMap(Hooks.Hooks, (hooks) => Effect.repeatN(hooks.dispatchUnknown("tool.before", event), 999))
  for (let done = 0; done < count; done += 1000) await runtime.runPromise(batch)
}

const scenario = async (
  label: string,
  runtime: ManagedRuntime.ManagedRuntime<Hooks.Hooks, unknown>,
  count: number
): Promise<Array<Row>> => {
  try {
    await dispatches(runtime, 2000)
    const before = snapshot()
    await dispatches(runtime, count)
    const after = snapshot()
    return [
      quantityRow(`memory: heap after ${label} (baseline: before)`, after.heap, before.heap, "MiB"),
      quantityRow(`memory: RSS after ${label} (baseline: before)`, after.rss, before.rss, "MiB")
    ]
  } finally {
    await runtime.dispose()
  }
}

/** The family. */
export const run = async (): Promise<Array<Row>> => {
  const inProcess = fixtures.registration([fixtures.inProcessTransport(0)])
  const inProcessRuntime = fixtures.inProcessHooks(inProcess, {
    [fixtures.backendId(0)]: fixtures.inProcess(fixtures.noEffect())
  })
  const stdioRuntime = fixtures.nodeHooks(fixtures.registration([fixtures.stdioTransport("ok")]))
  return [
    ...(await scenario("100k in-process dispatches", inProcessRuntime, 100_000)),
    ...(await scenario("10k stdio dispatches", stdioRuntime, 10_000))
  ]
}
