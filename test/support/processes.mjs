// Which processes are running, from `ps`: the leak checks of the suites that spawn.
import { execFileSync } from "node:child_process"

/** The processes (pid and command line) whose command line contains `marker`, this process excluded. */
export const processesWith = (marker) =>
  execFileSync("ps", ["-eo", "pid=,stat=,args="], { encoding: "utf8" })
    .split("\n")
    .map((line) => /^\s*(\d+)\s+(\S+)\s+(.*)$/.exec(line))
    .filter((match) => match !== null && match[3].includes(marker) && Number(match[1]) !== process.pid)
    .map((match) => ({ pid: Number(match[1]), stat: match[2], args: match[3] }))
