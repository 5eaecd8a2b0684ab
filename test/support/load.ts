/**
 * Load: how many times slower than on a quiet machine a test's work runs here and now, so
 * that tests scale their time allowances (a host's timeout, the ceiling of a wait, a
 * deadline) with it, and never their verdicts. The factor is the largest of
 *
 * - `AHP_TEST_LOAD` (a number ≥ 1), for a machine known to be slow;
 * - the CPU contention met by this worker when it first asked (wall time over the CPU time
 *   this process got during a short busy loop, the median of three);
 * - the load average of the last minute per core, read at each call (it follows a load that
 *   started after the first measurement);
 *
 * at least 1, at most `maxFactor`: beyond that a test's own timeout is the bound. A test
 * that asserts a complexity bound (linear time) compares two sizes timed in the same run
 * (`fastestMs`), not an absolute time.
 */
import * as os from "node:os"

/** The largest factor applied. */
export const maxFactor = 10

const cores = Math.max(1, os.availableParallelism())

const fromEnvironment = (): number => {
  const value = Number(process.env["AHP_TEST_LOAD"] ?? "1")
  return Number.isFinite(value) && value >= 1 ? value : 1
}

/** Wall time over this process's CPU time while spinning for about `millis`. */
const contentionOnce = (millis: number): number => {
  const wallStart = performance.now()
  const cpuStart = process.cpuUsage()
  while (performance.now() - wallStart < millis) {
    // spinning: the CPU time it gets is the measurement
  }
  const cpu = process.cpuUsage(cpuStart)
  const wall = performance.now() - wallStart
  return wall / Math.max(0.1, (cpu.user + cpu.system) / 1000)
}

let contention: number | undefined

const measuredContention = (): number => {
  if (contention === undefined) {
    const samples = [contentionOnce(20), contentionOnce(20), contentionOnce(20)].sort((a, b) => a - b)
    contention = samples[1]!
  }
  return contention
}

/** The load factor now (see the module's header): at least 1, at most `maxFactor`. */
export const loadFactor = (): number =>
  Math.min(
    maxFactor,
    Math.max(1, fromEnvironment(), measuredContention(), os.loadavg()[0]! / cores)
  )

/** `millis` scaled by the load factor, rounded up to a whole millisecond. */
export const scaled = (millis: number): number => Math.ceil(millis * loadFactor())

/**
 * The shortest of `repeats` timings of `run`, in milliseconds: the run least disturbed by
 * other work, for comparing the times of two sizes measured in the same test.
 */
export const fastestMs = (run: () => unknown, repeats = 5): number => {
  let best = Infinity
  for (let i = 0; i < repeats; i++) {
    const started = performance.now()
    run()
    best = Math.min(best, performance.now() - started)
  }
  return best
}

/**
 * How many times longer `large` takes than `small`, each the fastest of `rounds` timings
 * taken in alternation, so that a pause of the machine (other processes, a major
 * collection) hits both alike: a complexity bound asserted as a ratio of two sizes measured
 * in the same run, which a loaded machine slows alike.
 */
export const timeRatio = (small: () => unknown, large: () => unknown, rounds = 7): number => {
  let fastSmall = Infinity
  let fastLarge = Infinity
  for (let round = 0; round < rounds; round++) {
    fastSmall = Math.min(fastSmall, fastestMs(small, 1))
    fastLarge = Math.min(fastLarge, fastestMs(large, 1))
  }
  return fastLarge / fastSmall
}
