/**
 * A backend written with `@effect-ahp/backend` (guard, redactor, observer) driven by the
 * real harness over every transport: in-process, stdio (bundled with esbuild, run with
 * node as a persistent and as a per_event backend) and HTTP (`Http.serve` on 127.0.0.1).
 * Every transport must give the same decisions, effective events and observations.
 */
import { Http, InProcess } from "@effect-ahp/backend"
import type { Hooks } from "@effect-ahp/harness"
import { Transport } from "@effect-ahp/harness"
import type { Json } from "@effect-ahp/protocol"
import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import * as esbuild from "esbuild"
import { Context, Effect, Layer, Ref } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { nodeTransports, observe, openHooks, registration, tempDir, tracked, waitUntil } from "../support/e2e.js"
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

const subscriptions = [
  { mode: "intercept", events: ["tool.before"], timeoutMs: 10_000, failurePolicy: "fail-closed", content: { default: "body" } },
  { mode: "intercept", events: ["tool.after"], timeoutMs: 10_000, failurePolicy: "fail-closed", content: { default: "body" } },
  observe(["tool.*"])
]

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
    input: { ...call("evt_secret", "cat .env"), outcome: "ok", execution: { status: "executed" }, items: output("KEY=sk-abc123 ok") }
  },
  {
    type: "tool.after",
    input: { ...call("evt_plain", "echo hi"), outcome: "ok", execution: { status: "executed" }, items: output("hi") }
  }
]

const expectedObserved = ["tool.before:evt_ls", "tool.before:evt_rm", "tool.after:evt_secret", "tool.after:evt_plain"]

/** Runs the script; every call leaves no fiber behind (and, when given, checks its children after each call). */
const runScript = (hooks: Hooks.Hooks["Type"], afterEach: () => void = () => {}) =>
  Effect.forEach(script, ({ input, type }) =>
    Effect.gen(function*() {
      const { live, result } = yield* tracked(hooks.dispatch(type, input))
      assert.deepStrictEqual(live, [])
      afterEach()
      return {
        event: result.event,
        decision: result.decision,
        errors: result.errors,
        observations: result.observations,
        interrupted: result.interrupted
      }
    }))

type Outcomes = Effect.Effect.Success<ReturnType<typeof runScript>>

/** What the backend must decide, checked on the in-process baseline. */
const checkBaseline = (outcomes: Outcomes) => {
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
  const reg = registration([{ id: ID, transport: { type: "http", url: "https://policy.invalid/hooks" }, subscriptions }])
  const { close, hooks } = yield* openHooks(reg, Transport.layerInProcess({ [ID]: backend }))
  const outcomes = yield* runScript(hooks)
  yield* close
  return { outcomes, observed: yield* observed.lines }
})

const http = Effect.gen(function*() {
  const observed = yield* recorder
  const server = yield* Layer.build(Http.serve(policyBackend(observed.record), { port: 0, path: "/hooks" }))
  const { url } = Context.get(server, Http.Address)
  assert.match(url, /^http:\/\/127\.0\.0\.1:\d+\/hooks$/)
  const reg = registration([{ id: ID, transport: { type: "http", url }, subscriptions }])
  const { close, hooks } = yield* openHooks(reg, nodeTransports({}))
  const outcomes = yield* runScript(hooks)
  yield* close
  return { outcomes, observed: yield* observed.lines }
})

const stdio = (lifecycle: "persistent" | "per_event") =>
  Effect.gen(function*() {
    const dir = yield* tempDir
    const observedFile = path.join(dir, "observed")
    const reg = registration([{ id: ID, transport: { type: "stdio", command: process.execPath, args: [bundle], lifecycle }, subscriptions }])
    const { close, hooks } = yield* openHooks(reg, nodeTransports({ stdio: { env: { AHP_E2E_OBSERVED: observedFile } } }))
    const marker = `AHP_E2E_OBSERVED=${observedFile}`
    const outcomes = yield* runScript(hooks, () => {
      const running = childrenWith(marker)
      if (lifecycle === "per_event") assert.deepStrictEqual(running, [], "per_event children are reaped before the call returns")
      else assert.strictEqual(running.length, 1, "one persistent child serves every call")
    })
    const read = () => fs.existsSync(observedFile) ? fs.readFileSync(observedFile, "utf8").split("\n").filter((l) => l !== "") : []
    // A persistent child has the notification once it is queued; wait for its observer.
    yield* waitUntil("the stdio observer", () => read().length >= expectedObserved.length)
    yield* close
    assert.deepStrictEqual(childrenWith(marker), [], "closing the layer reaps the child")
    return { outcomes, observed: read() }
  })

describe.concurrent("a backend written with @effect-ahp/backend, over every transport", () => {
  it.scopedLive("in-process, stdio (persistent and per_event) and HTTP decide identically", () =>
    Effect.gen(function*() {
      const baseline = yield* inProcess
      checkBaseline(baseline.outcomes)
      assert.deepStrictEqual(baseline.observed, expectedObserved)
      const others = yield* Effect.all({ http, persistent: stdio("persistent"), perEvent: stdio("per_event") }, {
        concurrency: "unbounded"
      })
      for (const [name, run] of Object.entries(others)) {
        assert.deepStrictEqual(run.outcomes, baseline.outcomes, `${name}: the same decisions and effective events`)
        assert.deepStrictEqual(run.observed, expectedObserved, `${name}: the observer saw every tool event once, in order`)
      }
    }))
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
      if (ppid === process.pid && fs.readFileSync(`/proc/${entry}/environ`, "utf8").includes(marker)) pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}
