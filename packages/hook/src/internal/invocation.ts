/**
 * When the host started this process's hook call. A host starts a command hook through a
 * shell (Claude Code `sh -c`, Codex its user's login shell `$SHELL -lc`) and counts its
 * timeout from then; `performance.timeOrigin` is when Node started, after the shell's own
 * start-up, which for a login shell reading the user's profile can take seconds.
 *
 * On Linux the start of each process is read from `/proc`: this process's (a shell that ran
 * the hook as its last command replaced itself with Node and kept its start), and that of
 * each parent that is a shell started within `withinMs` (a shell that forked the hook waits
 * for it; an older one, such as the terminal a user runs the hook from, is no part of the
 * call). The earliest of these and Node's start is the call's start. Elsewhere, or when
 * `/proc` cannot be read, Node's start.
 *
 * @internal
 */
import * as fs from "node:fs"

/** The clock ticks per second of `/proc/<pid>/stat` (`USER_HZ`, 100 on every Linux port in use). */
const ticksPerSecond = 100

/** The names (`/proc/<pid>/comm`) of the shells a host or a launcher script may run the hook through. */
const shells = new Set(["sh", "dash", "bash", "zsh", "ksh", "mksh", "ash", "busybox", "fish", "yash", "posh"])

/** How many shells up the chain are looked at. */
const maxDepth = 4

interface Stat {
  readonly parent: number
  /** Seconds since boot when the process started. */
  readonly startedAt: number
}

const stat = (pid: number | "self"): Stat | undefined => {
  const text = fs.readFileSync(`/proc/${pid}/stat`, "latin1")
  // the name (field 2) is in parentheses and may hold anything: the fields after its last ")"
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ")
  const parent = Number(fields[1])
  const started = Number(fields[19])
  return Number.isInteger(parent) && Number.isFinite(started)
    ? { parent, startedAt: started / ticksPerSecond }
    : undefined
}

const uptime = (): number => Number(fs.readFileSync("/proc/uptime", "latin1").split(" ")[0])

const isShell = (pid: number): boolean => shells.has(fs.readFileSync(`/proc/${pid}/comm`, "latin1").trim())

/**
 * The call's start in milliseconds since the epoch: the earliest of `nodeStart` and the
 * start of this process and of the shells that started it within `withinMs` of now.
 *
 * @internal
 */
export const started = (nodeStart: number, withinMs: number): number => {
  if (process.platform !== "linux") return nodeStart
  try {
    const now = Date.now()
    const up = uptime()
    // both counters move in steps of a tick: the earliest the process can have started
    const epochOf = (s: Stat) => now - (up - s.startedAt) * 1000 - 1000 / ticksPerSecond
    let current = stat("self")
    if (current === undefined) return nodeStart
    let earliest = Math.min(nodeStart, epochOf(current))
    for (let depth = 0; depth < maxDepth && current.parent > 1 && isShell(current.parent); depth++) {
      const parent = stat(current.parent)
      if (parent === undefined || now - epochOf(parent) > withinMs) break
      earliest = Math.min(earliest, epochOf(parent))
      current = parent
    }
    return earliest
  } catch {
    return nodeStart
  }
}
