/**
 * What Claude Code reports after a tool call that failed or that a hook denied, and what
 * a policy can still do there. A failed Bash call arrives as PostToolUseFailure with the
 * command's output in `error` (`Exit code N` and the output): it is `tool.after` with that
 * text as its items, so a backend sees the output. Claude Code does not let a hook rewrite
 * it, nor does it honour `continue: false` there (the next tool call still runs); its
 * PostToolBatch, though, runs before the next model request and does honour
 * `continue: false`, so a backend at `tool.batch.after` keeps the output from the model.
 * `tool.batch.after` reports a call a hook denied as denied, not as executed.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as FakeModel from "../src/FakeModel.js"
import * as Hosts from "../src/Hosts.js"
import * as Registrations from "../src/Registrations.js"
import * as Scenario from "../src/Scenario.js"
import * as Workspace from "../src/Workspace.js"

const bundle = inject("bundle")
const host = Hosts.claudeCode
const batchGuard = path.join(path.dirname(new URL(import.meta.url).pathname), "..", "src", "batch-guard.mjs")

/** The events a logging scripted backend received, by type. */
const received = (log: string, type: string): Array<any> =>
  Workspace.jsonLines(log).filter((line) => line.event === "message" && line.message?.params?.event?.type === type)
    .map((line) => line.message.params.event)

describe(`${host.title} ${host.version}: a failed call's output`, () => {
  let result: Scenario.Result
  let log: string
  beforeAll(async () => {
    result = await Scenario.run({
      host,
      bundle,
      registration: (w) => {
        log = w.file("observer.jsonl")
        return Registrations.exampleWith(
          bundle,
          w,
          Registrations.redactor(bundle),
          Workspace.scripted("com.example.observer", "ok", [
            Registrations.intercept("observe", ["tool.after", "tool.batch.after"], { failClosed: false })
          ], { log }),
          {
            id: "com.example.batch-guard",
            transport: { type: "stdio", command: process.execPath, args: [batchGuard], lifecycle: "persistent" },
            subscriptions: [Registrations.intercept("batch-guard", ["tool.batch.after"])]
          }
        )
      },
      prepare: (w) => fs.writeFileSync(w.file("build.log"), `token=${Registrations.secret}\n`),
      steps: (w) => [
        host.shell(`mkfs.ext4 ${w.file("disk.img")}`),
        host.shell(`cat ${w.file("build.log")}; exit 3`),
        host.shell(`touch ${w.file("after-the-failure")}`)
      ]
    })
  })
  afterAll(() => result?.dispose())

  it("is tool.after with the failure's text as the tool's output", () => {
    const failed = received(log, "tool.after").find((e) => e.outcome === "error")
    expect(failed?.error).toEqual({ class: "tool", message: "Exit code 3" })
    expect(failed?.items?.[0]?.parts?.[0]?.text).toBe(`Exit code 3\ntoken=${Registrations.secret}`)
  })

  it("reports the call the hook denied as denied in tool.batch.after, and the failed one as an error", () => {
    const calls = received(log, "tool.batch.after").flatMap((e) => e.calls)
    expect(calls.map((c) => [c.call.id, c.outcome, c.execution.status])).toEqual([
      [result.call(1), "denied", "skipped"],
      [result.call(2), "error", "executed"]
    ])
  })

  it("is kept from the model by a stop at tool.batch.after: the turn ends before the next model request", () => {
    expect(result.model.anyRequestContains(Registrations.secret)).toBe(false)
    expect(result.model.agentRequests()).toHaveLength(2)
    expect(fs.existsSync(result.workspace.file("after-the-failure"))).toBe(false)
  })

  it("logs no hook problem and leaves no process behind", () => {
    expect(result.run).toMatchObject({ timedOut: false })
    expect(host.hookProblems(result.run)).toEqual([])
    expect(result.run.leftovers).toEqual([])
  })
})

describe(`${host.title} ${host.version} at PostToolUseFailure`, () => {
  it("ignores continue: false and a rewritten output (so the adapter offers neither there)", async () => {
    const workspace = Workspace.make("failure-stop")
    const model = await FakeModel.start(host.vendor, {
      steps: [host.shell("echo visible-failure; exit 3"), host.shell(`touch ${workspace.file("next-call-ran")}`)]
    })
    try {
      const answer = {
        continue: false,
        stopReason: "stop",
        hookSpecificOutput: { hookEventName: "PostToolUseFailure", updatedToolOutput: "rewritten" }
      }
      fs.writeFileSync(workspace.file("answer.json"), JSON.stringify(answer))
      Workspace.writeJson(Workspace.settingsFile(workspace, "claude-code"), {
        hooks: {
          PostToolUseFailure: [{
            hooks: [{ type: "command", command: `cat > /dev/null; cat ${workspace.file("answer.json")}` }]
          }]
        }
      })
      const run = await host.run(workspace, model)
      expect(model.resultOf(model.vendor.callId(1))?.result.text).toContain("visible-failure")
      expect(fs.existsSync(workspace.file("next-call-ran"))).toBe(true)
      expect(run.log).toContain(
        "Hook JSON output had unrecognized keys (ignored): hookSpecificOutput.updatedToolOutput"
      )
      expect(host.hookProblems(run).filter((line) => !/unrecognized keys/.test(line))).toEqual([])
    } finally {
      await model.close()
      workspace.remove()
    }
  })
})
