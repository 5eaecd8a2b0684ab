/**
 * The host bridge. Cold rows: the wall time of one command-hook process per Claude Code
 * tool call (`node dist/ahp.mjs hook claude-code`, payload on stdin, answer on
 * stdout), against `node -e 0` timed in the same run, the pair alternating — the physical
 * floor of any command hook written for Node. Three cases: no subscription selects the
 * event (the target: within 2× of the floor), one persistent stdio backend (started
 * by the call), one HTTP backend (already listening). Then the warm path with `ahp bridge`
 * running: the same command hook forwarding over the bridge's socket (again against
 * `node -e 0`), and Claude Code's http hook posted to the bridge against the backend's own
 * round trip (a raw line to an identical persistent child) — the latency the warm path adds
 * (target 3 ×) — and the bridge process's CPU time per such request over 1 000 requests
 * after 1 000 more of warm-up, read from `/proc/<pid>/stat` (Linux only; the backend
 * child's CPU is not counted), against the budget of 300 µs.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { performance } from "node:perf_hooks"
import { fileURLToPath } from "node:url"
import * as fixtures from "./fixtures.js"
import { latencyStats, type Pace, timeAsync } from "./measure.js"
import { httpClient, httpServer, lineClient } from "./raw.js"
import { latencyRow, quantityRow, type Row } from "./report.js"

const root = fileURLToPath(new URL("../../", import.meta.url))
const launcher = join(root, "apps", "ahp", "bin", "ahp.mjs")
const bundle = join(root, "dist", "ahp.mjs")

const preToolUse = (command: string) =>
  JSON.stringify({
    session_id: "bench-session",
    transcript_path: "/tmp/bench.jsonl",
    cwd: "/tmp",
    hook_event_name: "PreToolUse",
    permission_mode: "default",
    tool_name: "Bash",
    tool_input: { command, description: "bench" },
    tool_use_id: "toolu_bench"
  })

const userPrompt = JSON.stringify({
  session_id: "bench-session",
  transcript_path: "/tmp/bench.jsonl",
  cwd: "/tmp",
  hook_event_name: "UserPromptSubmit",
  permission_mode: "default",
  prompt: "list the files"
})

const registration = (transport: unknown) => ({
  protocolVersion: "draft",
  hooks: [{
    id: "com.example.bench",
    transport,
    subscriptions: [{
      mode: "intercept",
      events: ["tool.before"],
      timeoutMs: 10_000,
      failurePolicy: "fail-closed",
      content: { default: "body" }
    }]
  }]
})

/** Wall time of one process run to its exit, in µs; fails loudly on a wrong answer. */
const timed = (
  args: ReadonlyArray<string>,
  input: string,
  env: NodeJS.ProcessEnv,
  expect?: (stdout: string) => boolean
) => {
  const start = performance.now()
  const run = spawnSync(process.execPath, args, { input, env, encoding: "utf8" })
  const elapsed = (performance.now() - start) * 1000
  if (run.status !== 0 || (expect !== undefined && !expect(run.stdout))) {
    throw new Error(`unexpected hook run: ${run.status} ${run.stdout} ${run.stderr}`)
  }
  return elapsed
}

/** Ours and `node -e 0` alternating (order flipped every pair), after `warmup` pairs. */
const processPair = (name: string, run: () => number, pace: Pace, target?: number): Row => {
  const floor = () => timed(["-e", "0"], "", process.env)
  for (let i = 0; i < pace.warmup; i++) {
    run()
    floor()
  }
  const ours: Array<number> = []
  const baseline: Array<number> = []
  for (let i = 0; i < pace.rounds; i++) {
    if (i % 2 === 0) {
      ours.push(run())
      baseline.push(floor())
    } else {
      baseline.push(floor())
      ours.push(run())
    }
  }
  return latencyRow(name, {
    ours: latencyStats(ours),
    baseline: latencyStats(baseline)
  }, target)
}

/** Rebuilds the bundle when a source changed (the workspace's `ahp` does). */
const build = () => {
  const run = spawnSync(process.execPath, [launcher, "--version"], { cwd: root, stdio: "ignore" })
  if (run.status !== 0) throw new Error("could not build the ahp bundle")
}

/** Starts `ahp bridge`; resolves once its socket and HTTP port listen. */
const startBridge = (reg: string, socket: string, env: NodeJS.ProcessEnv) =>
  new Promise<{ readonly url: string; readonly child: ChildProcess }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [bundle, "bridge", "--registration", reg, "--socket", socket, "--http", "0"],
      { env, stdio: ["ignore", "pipe", "inherit"] }
    )
    let out = ""
    child.once("error", reject)
    child.stdout!.setEncoding("utf8").on("data", (text: string) => {
      out += text
      const url = /listening on (http:\/\/\S+)/.exec(out)?.[1]
      if (url !== undefined && out.includes("listening on socket")) resolve({ url, child })
    })
  })

const stop = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once("exit", () => resolve())
    child.kill("SIGTERM")
  })

/** The bridge's CPU budget per http hook request (issue 37), µs. */
const bridgeCpuBudget = 300

/** Clock ticks per second of `/proc/<pid>/stat`'s times. */
const clockTicks = () => Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim()) || 100

/** The CPU time (user and system) a process has used, µs; `undefined` where `/proc` does not tell. */
const cpuOf = (pid: number | undefined, ticks: number): number | undefined => {
  try {
    // the fields after the command name, which is in parentheses and may hold spaces
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
    return (Number(fields[11]) + Number(fields[12])) * 1e6 / ticks
  } catch {
    return undefined
  }
}

const denies = (stdout: string) => stdout.includes("\"permissionDecision\":\"deny\"")

/** The family. */
export const run = async (pace: Pace): Promise<Array<Row>> => {
  build()
  const dir = mkdtempSync(join(tmpdir(), "ahp-bench-hook-"))
  const env = {
    ...process.env,
    HOME: dir,
    AHP_CACHE_DIR: join(dir, "cache"),
    XDG_RUNTIME_DIR: join(dir, "run"),
    AHP_BRIDGE: "0"
  }
  const http = await httpServer(`effects=${JSON.stringify([{ type: "deny", reason: "bench" }])}`)
  const deny = `effects=${JSON.stringify([{ type: "deny", reason: "bench" }])}`
  const stdioReg = join(dir, "stdio.json")
  const httpReg = join(dir, "http.json")
  writeFileSync(stdioReg, JSON.stringify(registration(fixtures.stdioTransport(deny))))
  writeFileSync(httpReg, JSON.stringify(registration({ type: "http", url: http.url })))
  const hook =
    (reg: string, input: string, environment: NodeJS.ProcessEnv, expect?: (stdout: string) => boolean) => () =>
      timed([bundle, "hook", "claude-code", "--registration", reg], input, environment, expect)
  const rows: Array<Row> = []
  try {
    rows.push(processPair(
      "hook cold, no subscription selects the event, vs node -e 0",
      hook(stdioReg, userPrompt, env, (out) => out === "{}\n"),
      pace,
      2
    ))
    rows.push(processPair(
      "hook cold, 1 persistent stdio backend (started per call), vs node -e 0",
      hook(stdioReg, preToolUse("rm -rf /"), env, denies),
      pace
    ))
    rows.push(processPair(
      "hook cold, 1 HTTP backend (listening), vs node -e 0",
      hook(httpReg, preToolUse("rm -rf /"), env, denies),
      pace
    ))
    const socket = join(dir, "run", "bridge.sock")
    // the secret Claude Code's http hook entry sends from its environment
    const secret = randomBytes(24).toString("hex")
    const bridgeEnv = { ...env, AHP_BRIDGE: "1", AHP_BRIDGE_SOCKET: socket, AHP_BRIDGE_SECRET: secret }
    const bridge = await startBridge(stdioReg, socket, bridgeEnv)
    try {
      rows.push(processPair(
        "hook forwarded to ahp bridge (warm stdio backend), vs node -e 0",
        hook(stdioReg, preToolUse("rm -rf /"), bridgeEnv, denies),
        pace
      ))
      const client = httpClient(bridge.url, { "x-ahp-bridge-secret": secret })
      const raw = lineClient(deny)
      const body = Buffer.from(preToolUse("rm -rf /"))
      const line = fixtures.requestLine({ ...fixtures.toolBefore(512), id: "evt_bench" })
      const ops = pace.rounds * 5
      const posts = (n: number) =>
        timeAsync(n, async () => {
          if (!denies(await client.post(body))) throw new Error("the bridge did not deny")
        })
      const trips = (n: number) => timeAsync(n, () => raw.roundTrip(line))
      await posts(ops)
      await trips(ops)
      const ours = [...(await posts(ops)), ...(await posts(ops))]
      const baseline = [...(await trips(ops)), ...(await trips(ops))]
      // the CPU of a long-running bridge: after as many calls again as warm-up, enough calls
      // for the clock ticks of /proc to resolve a few per cent
      const cpuOps = 1000
      await posts(cpuOps)
      const ticks = clockTicks()
      const cpuBefore = cpuOf(bridge.child.pid, ticks)
      await posts(cpuOps)
      const cpuAfter = cpuOf(bridge.child.pid, ticks)
      rows.push(latencyRow("ahp bridge, Claude Code http hook, warm stdio backend, vs the backend's own round trip", {
        ours: latencyStats(ours),
        baseline: latencyStats(baseline)
      }, 3))
      if (cpuBefore !== undefined && cpuAfter !== undefined) {
        rows.push({
          ...quantityRow(
            "ahp bridge CPU per request, Claude Code http hook, warm stdio backend (baseline: the 300 µs budget)",
            (cpuAfter - cpuBefore) / cpuOps,
            bridgeCpuBudget,
            "µs"
          ),
          target: 1
        })
      }
      client.close()
      await raw.close()
    } finally {
      await stop(bridge.child)
    }
  } finally {
    await http.close()
    rmSync(dir, { recursive: true, force: true })
  }
  return rows
}
