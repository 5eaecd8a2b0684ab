/**
 * Where the latency families' processes run (stdio, http, floor). A round trip between two processes costs
 * what waking the other one costs, and that depends on where Linux placed it: on the
 * 2-vCPU machines here a line to a child and back took about 17 µs when both shared a CPU
 * and about 85 µs when the child was woken on the other, idle, CPU. Linux decides per
 * process and may decide differently for ours and for the baseline, so unpinned rows
 * compared placements rather than code (one quiet run: the raw stdio loop at 21.8 µs in one
 * row and 95.9 µs in the next, ours at 57 µs beating a raw loop at 96).
 *
 * So while such a family runs, the bench process (all its threads) is pinned to one CPU
 * and every backend child started through `nodeCommand` to another: each exchange, ours and
 * the baseline's alike, crosses CPUs, as a host's exchange with a backend process of its own
 * does. Where `taskset` is missing or refused, or there is one CPU, nothing is pinned and
 * `describe` says so.
 */
import { spawnSync } from "node:child_process"

/** Runs `taskset` with `args`; its output, or undefined when it failed or is missing. */
const taskset = (args: ReadonlyArray<string>): string | undefined => {
  const run = spawnSync("taskset", args, { encoding: "utf8" })
  return run.status === 0 ? run.stdout : undefined
}

/** The CPUs in a `taskset` list such as `0,2-3`. */
const cpusOf = (list: string): Array<number> =>
  list.split(",").flatMap((part) => {
    const [from, to] = part.split("-").map(Number)
    return to === undefined ? [from!] : Array.from({ length: to - from! + 1 }, (_, i) => from! + i)
  })

/** The CPUs this process may run on, as `taskset` lists them, when it can tell. */
const allowed = (() => {
  if (process.platform !== "linux") return undefined
  const list = /list:\s*(\S+)/.exec(taskset(["-c", "-p", String(process.pid)]) ?? "")?.[1]
  return list === undefined ? undefined : { list, cpus: cpusOf(list) }
})()

/** The bench's CPU and the backends' CPU, when there are two to choose. */
const chosen = allowed !== undefined && allowed.cpus.length >= 2
  ? { bench: String(allowed.cpus[0]), backends: String(allowed.cpus[1]) }
  : undefined

let pinned = false
let refused = false
let sharing = false

/** Pins the bench process (every thread) to its CPU; whether it is now pinned. */
const pin = (): boolean =>
  chosen !== undefined && taskset(["-a", "-c", "-p", chosen.bench, String(process.pid)]) !== undefined

/** Gives the bench process back every CPU it was allowed. */
const unpin = (): void => {
  if (allowed !== undefined) taskset(["-a", "-c", "-p", allowed.list, String(process.pid)])
}

/** Runs `family` with the bench process pinned (when it can be), and unpins it afterwards. */
export const pinnedWhile = async <A>(family: () => Promise<A>): Promise<A> => {
  pinned = pin()
  refused ||= chosen !== undefined && !pinned
  try {
    return await family()
  } finally {
    if (pinned) unpin()
    pinned = false
  }
}

/**
 * Runs `rows` with the backend children it starts on the bench's own CPU, when the family is
 * pinned (undefined otherwise): each exchange then costs two context switches instead of a
 * wake-up across CPUs, and a row shows what each side's own CPU work costs.
 */
export const sharingCpuWhile = async <A>(rows: () => Promise<A>): Promise<A | undefined> => {
  if (!pinned) return undefined
  sharing = true
  try {
    return await rows()
  } finally {
    sharing = false
  }
}

/** How a backend child running node with `args` is started: on the backends' CPU while a family is pinned. */
export const nodeCommand = (args: ReadonlyArray<string>): { readonly command: string; readonly args: Array<string> } =>
  pinned && chosen !== undefined
    ? { command: "taskset", args: ["-c", sharing ? chosen.bench : chosen.backends, process.execPath, ...args] }
    : { command: process.execPath, args: [...args] }

/** One line on the placement the latency families run with. */
export const describe = (): string =>
  chosen === undefined
    ? `placement: not pinned (${
      allowed === undefined ? "taskset is missing or refused" : "one CPU"
    }); latency rows depend on where Linux places each process`
    : refused
    ? "placement: taskset refused to pin the bench process; latency rows depend on where Linux places each process"
    : `placement: latency families (stdio, http, floor) with the bench process on CPU ${chosen.bench} and every backend child on CPU ${chosen.backends}`
