/**
 * The guardian of this process's stdio backends: a small `/bin/sh` process, one per process
 * (per worker thread), started with the first child it is to watch, in a process group of
 * its own, holding none of this process's standard streams. This process writes it the
 * process group of every child as the child starts (`+PGID`), and again once the group is
 * gone (`-PGID`). Its stdin is our end of a socket pair, closed by the operating system
 * however this process ends, SIGKILL included: at that end of input, every group still
 * listed gets `exitGrace` to end on its own (each child saw the end of its own stdin at the
 * same moment), then SIGTERM, then SIGKILL after `killGrace`, and the guardian exits. So a
 * backend that ignores the end of its stdin, or hangs in a request, never outlives the
 * process that started it by more than the two graces.
 *
 * Limits: a process that left its group (`setsid`) is out of reach, as for the transport
 * itself; a group that ended without this process noticing (it exited first) is signalled
 * by its id, which the system reuses only after handing out every other process id. A
 * guardian that dies (killed on its own) is replaced by the next child started, and told
 * every group still listed. A child is listed once its spawn has returned (its pid is known
 * only then): this process killed in between, a few statements, leaves the child unlisted.
 * Not on Windows (no process groups).
 *
 * @internal
 */
import * as ChildProcess from "node:child_process"
import type { Writable } from "node:stream"

/**
 * The guardian's program. `$1` and `$2` are the exit and kill graces in milliseconds (`$3`,
 * unused, is this process's id, for `ps`); the groups are polled every 50 ms (`sleep` with a fraction: GNU, BSD and BusyBox). dash's
 * `kill` needs `-s` to take a negative id (a group) after `--`.
 */
const script = `trap '' HUP INT
g=
while IFS= read -r l; do
  case $l in
    +*) g="$g \${l#+}" ;;
    -*) n=; for p in $g; do [ "$p" = "\${l#-}" ] || n="$n $p"; done; g=$n ;;
  esac
done
left() { for p in $g; do kill -s 0 -- "-$p" 2>/dev/null && return 0; done; return 1; }
within() { t=$1; while left; do [ "$t" -le 0 ] && return 1; sleep 0.05; t=$((t - 50)); done; return 0; }
within "$1" && exit 0
for p in $g; do kill -s TERM -- "-$p" 2>/dev/null; done
within "$2" && exit 0
for p in $g; do kill -s KILL -- "-$p" 2>/dev/null; done
exit 0
`

/** The name the guardian runs under (its `$0`, shown by `ps`). @internal */
export const processName = "ahp-stdio-guardian"

/** The graces the guardian applies once this process is gone, in milliseconds. @internal */
export interface Graces {
  readonly exitMs: number
  readonly killMs: number
}

const ignore = () => {}

let input: Writable | undefined
const watched = new Set<number>()

const start = (graces: Graces): Writable | undefined => {
  let handle: ChildProcess.ChildProcess
  try {
    handle = ChildProcess.spawn(
      "/bin/sh",
      [
        "-c",
        script,
        processName,
        String(Math.round(graces.exitMs)),
        String(Math.round(graces.killMs)),
        String(process.pid)
      ],
      { stdio: ["pipe", "ignore", "ignore"], detached: true }
    )
  } catch {
    return undefined
  }
  const stdin = handle.stdin!
  handle.on("error", ignore)
  stdin.on("error", ignore)
  handle.once("exit", () => {
    if (input === stdin) input = undefined
  })
  // neither keeps this process alive: the guardian's job starts when this process ends
  handle.unref()
  ;(stdin as Writable & { unref?: () => void }).unref?.()
  for (const group of watched) stdin.write(`+${group}\n`)
  return stdin
}

/**
 * Starts the guardian (with `graces`) when there is none, before a child it is to watch is
 * spawned: between the child's spawn and its `watch` only a few statements run then, not
 * the guardian's own spawn, and a kill of this process in that window leaves the child
 * unlisted (out of the guardian's reach).
 *
 * @internal
 */
export const prepare = (graces: Graces): void => {
  if (process.platform === "win32") return
  // a new guardian is told the groups already listed
  input ??= start(graces)
}

/**
 * Lists the process group `pid` leads with the guardian (started now when there is none,
 * with `graces`: see `prepare`); returns the call that takes it off the list once the
 * group is gone.
 *
 * @internal
 */
export const watch = (pid: number, graces: Graces): () => void => {
  if (process.platform === "win32") return ignore
  prepare(graces)
  watched.add(pid)
  input?.write(`+${pid}\n`)
  return () => {
    if (!watched.delete(pid)) return
    input?.write(`-${pid}\n`)
  }
}
