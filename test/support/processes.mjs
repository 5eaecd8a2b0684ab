// Which processes are running: the leak checks of the suites that spawn. On Linux they are
// read from /proc (polling `ps` forked the test worker, a large process, every 10 ms); on
// other systems from `ps`.
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"

/**
 * The processes whose command line contains `marker`: pid, state (`Z` for an unreaped
 * zombie) and command line, from /proc (the state read only for those).
 */
const fromProc = (marker) =>
  readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .flatMap((name) => {
      try {
        const args = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").trim()
        if (!args.includes(marker)) return []
        // the state follows the command name in parentheses, which may itself hold spaces or parentheses
        const stat = readFileSync(`/proc/${name}/stat`, "utf8")
        return [{ pid: Number(name), stat: stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0], args }]
      } catch {
        return [] // it ended meanwhile
      }
    })

/** The processes whose command line contains `marker`, from `ps`. */
const fromPs = (marker) =>
  execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null)
    .map((match) => ({ pid: Number(match[1]), stat: match[2], args: match[3] }))
    .filter((p) => p.args.includes(marker))

const procfs = existsSync("/proc/self/cmdline")

/** The processes (pid, state and command line) whose command line contains `marker`, this process excluded. */
export const processesWith = (marker) => (procfs ? fromProc : fromPs)(marker).filter((p) => p.pid !== process.pid)
