/**
 * The `hosts` family: the real Claude Code and Codex of the host suite, one row per host
 * and hook kind — the wall time the host spends in one hook call, cold command hook and
 * forwarded to `ahp bridge`, against the host's own hook running `true` in the same run
 * (test/hosts/src/Bench.ts says how it is measured). It runs in a process of its own
 * (`node --import tsx`), where the host packages resolve from the suite's package.
 */
import { spawnSync } from "node:child_process"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import type { Row } from "./report.js"

const root = fileURLToPath(new URL("../../", import.meta.url))

/** Runs the host suite's bench: `rounds` runs per variant and host, `calls` tool calls per run. */
export const run = (pace: { readonly rounds: number; readonly calls: number }): Promise<Array<Row>> => {
  const ran = spawnSync(
    process.execPath,
    ["--import", "tsx", join(root, "test", "hosts", "src", "Bench.ts"), String(pace.rounds), String(pace.calls)],
    { cwd: root, stdio: ["ignore", "pipe", "inherit"], encoding: "utf8", maxBuffer: 16 * 1024 * 1024 }
  )
  if (ran.status !== 0) return Promise.reject(new Error(`the hosts bench exited with ${ran.status}`))
  return Promise.resolve(JSON.parse(ran.stdout.trim().split("\n").at(-1)!) as Array<Row>)
}
