/**
 * What the real hosts show the model after a policy changed it: a credential in a tool's
 * output reaches the model redacted by the example secret redactor (Claude Code's
 * `updatedToolOutput`, Codex's replaced result), and context injected at the prompt
 * (the example prompt annotator, UserPromptSubmit) and at the session's start (a scripted
 * backend, SessionStart) is in the model's request.
 */
import { policyNote } from "@effect-ahp/tools/examples/PromptAnnotator"
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as Hosts from "../src/Hosts.js"
import * as Registrations from "../src/Registrations.js"
import * as Scenario from "../src/Scenario.js"

const bundle = inject("bundle")
const sessionNote = "Session note from the policy: the release branch is frozen."

describe.each(Hosts.both)("$title $version", (host) => {
  let result: Scenario.Result
  beforeAll(async () => {
    result = await Scenario.run({
      host,
      bundle,
      registration: (w) =>
        Registrations.exampleWith(
          bundle,
          w,
          Registrations.redactor(bundle),
          Registrations.annotator(bundle),
          Registrations.answering("com.example.session-note", ["session.start"], [{
            type: "inject",
            target: "context",
            operation: "append",
            deliverAt: "now",
            value: [Registrations.developerMessage("note", sessionNote)]
          }])
        ),
      prepare: (w) => fs.writeFileSync(w.file("build.log"), `step 1 ok\ntoken=${Registrations.secret}\nstep 2 ok\n`),
      steps: (w) => [host.shell(`cat ${w.file("build.log")}`)]
    })
  })
  afterAll(() => result?.dispose())

  it("shows the model the tool's output with the credential redacted", () => {
    const seen = Scenario.resultOf(result, result.call(1))
    expect(seen.text).toContain("step 2 ok")
    expect(seen.text).toContain("[REDACTED:")
    expect(result.model.anyRequestContains(Registrations.secret)).toBe(false)
  })

  it("puts the context injected at the prompt and at the session's start into the model's first request", () => {
    const [first] = result.model.agentRequests()
    expect(first?.raw).toContain(policyNote)
    expect(first?.raw).toContain(sessionNote)
  })

  if (host.name === "codex") {
    it("keeps the raw tool output in its rollout files even though the model got the redacted text", () => {
      const rollouts = files(path.join(result.workspace.codexHome, "sessions")).filter((f) =>
        path.basename(f).startsWith("rollout-")
      )
      expect(rollouts.length).toBeGreaterThan(0)
      expect(rollouts.some((f) => fs.readFileSync(f, "utf8").includes(Registrations.secret))).toBe(true)
    })
  }

  it("ends by itself, with no hook problem in the host's log and no process left behind", () => {
    expect(result.run).toMatchObject({ timedOut: false, exitCode: 0 })
    expect(host.hookProblems(result.run)).toEqual([])
    expect(result.run.leftovers).toEqual([])
  })
})

const files = (dir: string): Array<string> =>
  fs.existsSync(dir)
    ? fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
      entry.isDirectory() ? files(path.join(dir, entry.name)) : [path.join(dir, entry.name)]
    )
    : []
