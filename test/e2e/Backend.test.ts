/**
 * A backend written with `@effect-ahp/backend` (guard, redactor, observer) driven by the
 * real harness over every transport: in-process, stdio (bundled with esbuild, run with
 * node as a persistent and as a per_event backend) and HTTP (`Http.serve` on 127.0.0.1).
 * Every transport must give the same decisions, effective events and observations.
 */
import { Http, InProcess } from "@effect-ahp/backend"
import type { Hooks, Observation, Settlement } from "@effect-ahp/harness"
import { Transport } from "@effect-ahp/harness"
import type { Json } from "@effect-ahp/protocol"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import { Context, Effect, Layer, Ref } from "effect"
import type { Fiber } from "effect"
import * as esbuild from "esbuild"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import {
  failures,
  nodeTransports,
  observe,
  openHooks,
  registration,
  running,
  tempDir,
  tracked,
  waitUntil
} from "../support/e2e.js"
import { policyBackend } from "./fixtures/policyBackend.js"

const ID = "com.example.policy"
const time = "2026-01-01T00:00:00.000Z"

let bundleDir: string
let bundle: string
beforeAll(async () => {
  bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), "ahp-e2e-bundle-"))
  bundle = path.join(bundleDir, "policy.mjs")
  await esbuild.build({
    entryPoints: [fileURLToPath(new URL("./fixtures/policyStdio.ts", import.meta.url))],
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    outfile: bundle,
    logLevel: "silent",
    banner: { js: "import{createRequire}from'module';const require=createRequire(import.meta.url);" }
  })
})
afterAll(() => fs.rmSync(bundleDir, { recursive: true, force: true }))

const interceptAt = (event: string) => ({
  mode: "intercept",
  events: [event],
  timeoutMs: 10_000,
  failurePolicy: "fail-closed",
  content: { default: "body" }
})
const subscriptions = [interceptAt("tool.before"), interceptAt("tool.after"), observe(["tool.*"])]

const text = (id: string, t: string) => ({ id, kind: "text", mediaType: "text/plain", selection: "body", text: t })
const output = (t: string) => [{ id: "m1", role: "tool", parts: [text("p1", t)] }]

const call = (id: string, command: string) => ({
  id,
  time,
  session: { id: "sess_backend" },
  tool: { name: "Bash", kind: "shell", input: { command }, origin: "native" },
  call: { id: `call_${id}` },
  path: "native"
})

/** The boundary calls every transport must answer identically. */
const script: ReadonlyArray<{ readonly type: "tool.before" | "tool.after"; readonly input: Json.JsonObject }> = [
  { type: "tool.before", input: call("evt_ls", "ls -la") },
  { type: "tool.before", input: call("evt_rm", "rm -rf /") },
  {
    type: "tool.after",
    input: {
      ...call("evt_secret", "cat .env"),
      outcome: "ok",
      execution: { status: "executed" },
      items: output("KEY=sk-abc123 ok")
    }
  },
  {
    type: "tool.after",
    input: { ...call("evt_plain", "echo hi"), outcome: "ok", execution: { status: "executed" }, items: output("hi") }
  }
]

const expectedObserved = ["tool.before:evt_ls", "tool.before:evt_rm", "tool.after:evt_secret", "tool.after:evt_plain"]

/** What one boundary call produced. */
interface Outcome {
  readonly event: Json.JsonObject
  readonly decision: Settlement.Decision
  readonly errors: ReturnType<typeof failures>
  readonly observations: ReadonlyArray<Observation.Observation>
  readonly interrupted: boolean
}

/**
 * Runs the script against a Hooks layer, then closes the layer. No call may leave a fiber
 * running, except the reader and pipes of a persistent child it started, which must end
 * when the layer closes. `afterEach` checks the children after each call.
 */
const runScript = (
  opened: { readonly hooks: Hooks.Hooks["Type"]; readonly close: Effect.Effect<void> },
  options: {
    readonly persistent?: boolean
    readonly afterEach?: () => void
    readonly beforeClose?: Effect.Effect<void>
  } = {}
) =>
  Effect.gen(function*() {
    const owned: Array<Fiber.RuntimeFiber<any, any>> = []
    const outcomes: Array<Outcome> = []
    for (const { input, type } of script) {
      const { fibers, live, result } = yield* tracked(opened.hooks.dispatchUnknown(type, input))
      if (options.persistent !== true) assert.deepStrictEqual(live, [], `${type}: no fiber of the call is left running`)
      owned.push(...fibers)
      options.afterEach?.()
      const { decision, errors, event, interrupted, observations } = result
      outcomes.push({ event, decision, errors: failures(errors), observations, interrupted })
    }
    if (options.beforeClose !== undefined) yield* options.beforeClose
    yield* opened.close
    assert.deepStrictEqual(yield* running(owned), [], "every fiber started by the calls has ended with the layer")
    return outcomes
  })

/** What the backend must decide, checked on the in-process baseline. */
const checkBaseline = (outcomes: ReadonlyArray<Outcome>) => {
  const [ls, rm, secret, plain] = outcomes
  for (const o of outcomes) {
    assert.deepStrictEqual(o.errors, [])
    assert.isFalse(o.interrupted)
    assert.deepStrictEqual(o.observations.map((x) => [x.backend, x.mode, x.outcome]), [[ID, "observe", "delivered"]])
  }
  assert.strictEqual(ls!.decision.permission, "none")
  assert.strictEqual(rm!.decision.permission, "deny")
  assert.deepStrictEqual(
    { reason: rm!.decision.denial?.reason, code: rm!.decision.denial?.code, synthetic: rm!.decision.denial?.synthetic },
    { reason: "rm -rf is not allowed", code: "com.example.guard.rm-rf", synthetic: false }
  )
  assert.deepStrictEqual(secret!.event.items, output("KEY=[redacted] ok"))
  assert.deepStrictEqual(secret!.decision.effects.map((a) => a.effect.type), ["modify"])
  assert.deepStrictEqual(plain!.event.items, output("hi"))
  assert.deepStrictEqual(plain!.decision.effects, [])
}

/** A recorder the in-process and HTTP servers' observer writes to. */
const recorder = Effect.map(Ref.make<ReadonlyArray<string>>([]), (ref) => ({
  record: (line: string) => Ref.update(ref, (lines) => [...lines, line]),
  lines: Ref.get(ref)
}))

const inProcess = Effect.gen(function*() {
  const observed = yield* recorder
  const backend = yield* InProcess.fromLayer(policyBackend(observed.record))
  const transport = { type: "http", url: "https://policy.invalid/hooks" }
  const reg = registration([{ id: ID, transport, subscriptions }])
  const outcomes = yield* runScript(yield* openHooks(reg, Transport.layerInProcess({ [ID]: backend })))
  return { outcomes, observed: yield* observed.lines }
})

const http = Effect.gen(function*() {
  const observed = yield* recorder
  const server = yield* Layer.build(Http.serve(policyBackend(observed.record), { port: 0, path: "/hooks" }))
  const { url } = Context.get(server, Http.Address)
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/hooks$/)
  const reg = registration([{ id: ID, transport: { type: "http", url }, subscriptions }])
  const outcomes = yield* runScript(yield* openHooks(reg, nodeTransports({})))
  return { outcomes, observed: yield* observed.lines }
})

const stdio = (lifecycle: "persistent" | "per_event") =>
  Effect.gen(function*() {
    const dir = yield* tempDir
    const observedFile = path.join(dir, "observed")
    const read = () =>
      fs.existsSync(observedFile) ? fs.readFileSync(observedFile, "utf8").split("\n").filter((l) => l !== "") : []
    const marker = `AHP_E2E_OBSERVED=${observedFile}`
    const reg = registration([{
      id: ID,
      transport: { type: "stdio", command: process.execPath, args: [bundle], lifecycle },
      subscriptions
    }])
    const opened = yield* openHooks(reg, nodeTransports({ stdio: { env: { AHP_E2E_OBSERVED: observedFile } } }))
    const outcomes = yield* runScript(opened, {
      persistent: lifecycle === "persistent",
      afterEach: () => {
        const children = childrenWith(marker)
        if (lifecycle === "per_event") {
          assert.deepStrictEqual(children, [], "per_event children are reaped before the call returns")
        } else {
          assert.strictEqual(children.length, 1, "one persistent child serves every call")
        }
      },
      // A persistent child has a notification once it is queued: wait for its observer.
      beforeClose: waitUntil("the stdio observer", () => read().length >= expectedObserved.length)
    })
    assert.deepStrictEqual(childrenWith(marker), [], "closing the layer reaps the child")
    return { outcomes, observed: read() }
  })

const transports = {
  "HTTP (Http.serve on 127.0.0.1)": http,
  "stdio persistent (bundled)": stdio("persistent"),
  "stdio per_event (bundled)": stdio("per_event")
}

describe.concurrent("a backend written with @effect-ahp/backend, driven by the harness", () => {
  it.scopedLive("in-process: the guard denies rm -rf, the redactor redacts, the observer sees every tool event", () =>
    Effect.gen(function*() {
      const baseline = yield* inProcess
      checkBaseline(baseline.outcomes)
      assert.deepStrictEqual(baseline.observed, expectedObserved)
    }))

  for (const [name, run] of Object.entries(transports)) {
    it.scopedLive(`${name}: the same decisions, effective events and observations as in-process`, () =>
      Effect.gen(function*() {
        const [baseline, other] = yield* Effect.all([inProcess, run], { concurrency: "unbounded" })
        assert.deepStrictEqual(other.outcomes, baseline.outcomes)
        assert.deepStrictEqual(other.observed, expectedObserved, "the observer saw every tool event once, in order")
      }))
  }
})

/**
 * Pids of this process's children (zombies included) whose environment holds `marker`,
 * read from /proc.
 */
const childrenWith = (marker: string): Array<number> => {
  const pids: Array<number> = []
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8")
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
      const environment = fs.readFileSync(`/proc/${entry}/environ`, "utf8")
      if (ppid === process.pid && environment.includes(marker)) pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}
