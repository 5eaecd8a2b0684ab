/**
 * The real hosts' rows of `pnpm bench` (the `hosts` family; run by test/bench/hosts.ts as
 * `node --import tsx`, rows as JSON on stdout): the wall time each host spends in one hook
 * call. A run's fake model calls the shell tool (`true`) several times; for each call the
 * gap from the end of the model's answer carrying the call to the arrival of the request
 * carrying its result is the tool's own run plus the host's work plus the hooks. Four
 * variants, alternating run by run in the same process: the host's own PreToolUse hook
 * running `true` (the baseline), ours as a cold command hook (`ahp hook install
 * --registration` with the example shell guard alone, so PreToolUse is the one hook per
 * call), the same command hook forwarding to a running `ahp bridge`, and no hook at all (the
 * host's own work, printed only). A row's figures are the median gaps less the tool's own
 * run (`/bin/bash -c true`, timed beside). Not a test: a run that fails throws.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { freshBundle } from "../../../scripts/bundle.mjs"
import * as Bridge from "./Bridge.js"
import * as FakeModel from "./FakeModel.js"
import * as Hosts from "./Hosts.js"
import * as Registrations from "./Registrations.js"
import * as Workspace from "./Workspace.js"

/** The ways a run's PreToolUse is hooked. */
type Variant = "none" | "true" | "cold" | "bridge"

const variants: ReadonlyArray<Variant> = ["true", "cold", "bridge", "none"]

/** The pace: runs per variant and tool calls per run. */
export interface Pace {
  readonly rounds: number
  readonly calls: number
}

const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** The tool-call gaps (ms) of one host run with a variant. */
const gaps = async (bundle: string, host: Hosts.Host, variant: Variant, calls: number): Promise<Array<number>> => {
  const workspace = Workspace.make("bench")
  const model = await FakeModel.start(host.vendor, {
    steps: Array.from({ length: calls }, () => host.shell("true")),
    maxRequests: calls * 4 + 8
  })
  let bridge: Bridge.Bridge | undefined
  try {
    Workspace.writeRegistration(
      workspace,
      Registrations.of(
        Workspace.exampleBackend(bundle, "com.example.shell-guard", "shell-guard", [
          Registrations.intercept("guard", ["tool.before"])
        ])
      )
    )
    if (variant !== "none") {
      Workspace.install(bundle, workspace, host.name, ["--registration", Workspace.registrationFile(workspace)])
      Workspace.trust(bundle, workspace)
    }
    if (variant === "true") {
      const file = Workspace.settingsFile(workspace, host.name)
      const settings = Workspace.readJson(file)
      for (const group of settings.hooks.PreToolUse) {
        for (const handler of group.hooks) handler.command = "true"
      }
      Workspace.writeJson(file, settings)
    }
    if (variant === "bridge") bridge = await Bridge.start(bundle, workspace)
    const run = await host.run(workspace, model, { env: { AHP_BRIDGE_SECRET: Bridge.secret(workspace) } })
    const problems = host.hookProblems(run)
    if (run.exitCode !== 0 || problems.length > 0) {
      throw new Error(
        `${host.name} (${variant}) exited with ${run.exitCode}: ${problems.join("; ")} ${run.stderr.slice(-1000)}`
      )
    }
    if (variant === "bridge" && !bridge!.stderr().includes(`${host.name} PreToolUse →`)) {
      throw new Error(`${host.name}: the command hook did not forward to the bridge`)
    }
    return model.exchanges.filter((e) => e.callId !== undefined).map((call) => {
      const result = model.resultOf(call.callId!)
      if (result === undefined) throw new Error(`${host.name} (${variant}): no result for ${call.callId}`)
      return result.exchange.receivedAt - call.answeredAt
    })
  } finally {
    await bridge?.stop()
    await model.close()
    workspace.remove()
  }
}

/** One bench row (the shape of test/bench/report.ts's `Row`). */
export interface Row {
  readonly name: string
  readonly ours: number
  readonly baseline: number
  readonly unit: "ms"
  readonly ratio: number
  readonly ratioOf: "ours/baseline"
  readonly samples: number
}

const round = (n: number): number => Number(n.toPrecision(4))

/** The tool's own run: the median wall time of `/bin/bash -c true` (ms). */
const toolRun = (): number =>
  median(Array.from({ length: 21 }, () => {
    const started = performance.now()
    spawnSync("/bin/bash", ["-c", "true"])
    return performance.now() - started
  }))

/** Measures both hosts; the rows, and a line per host with the medians on stderr. */
export const run = async (pace: Pace): Promise<Array<Row>> => {
  const bundle = await freshBundle(`${Workspace.root}/dist`)
  const rows: Array<Row> = []
  for (const host of Hosts.both) {
    const samples: Record<Variant, Array<number>> = { none: [], true: [], cold: [], bridge: [] }
    for (let r = 0; r < pace.rounds; r++) {
      // the order turns every round, so no variant always runs first or last
      for (const variant of [...variants.slice(r % 4), ...variants.slice(0, r % 4)]) {
        samples[variant].push(...await gaps(bundle, host, variant, pace.calls))
      }
    }
    const m = Object.fromEntries(variants.map((v) => [v, median(samples[v])])) as Record<Variant, number>
    const tool = toolRun()
    process.stderr.write(
      `${host.name} ${host.version}: median tool-call gap ${
        variants.map((v) => `${v} ${m[v].toFixed(1)} ms`).join(", ")
      } (${samples.none.length} calls each); the tool's own run ${tool.toFixed(1)} ms\n`
    )
    const row = (what: string, variant: Variant): Row => ({
      name: `${host.name} ${host.version}: one hook call, ${what} vs the host's own hook running true`,
      ours: round(m[variant] - tool),
      baseline: round(m.true - tool),
      unit: "ms",
      ratio: round((m[variant] - tool) / (m.true - tool)),
      ratioOf: "ours/baseline",
      samples: samples[variant].length
    })
    rows.push(row("cold command hook", "cold"), row("command hook forwarded to ahp bridge", "bridge"))
  }
  return rows
}

if (process.argv[1] !== undefined && fs.realpathSync(process.argv[1]) === fs.realpathSync(new URL(import.meta.url))) {
  const rows = await run({ rounds: Number(process.argv[2] ?? 3), calls: Number(process.argv[3] ?? 5) })
  process.stdout.write(`${JSON.stringify(rows)}\n`)
}
