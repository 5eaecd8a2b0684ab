/**
 * A backend's rewrite of a shell command on the real hosts reaches the tool (the command
 * that ran is the rewritten one) — on Claude Code with the backend's `allow`, on Codex,
 * which offers no `allow` at PreToolUse, alone — and a rewrite without an approval never
 * becomes one: Claude Code gets `ask` with the rewritten input, which `-p` turns into a
 * denial, and Codex, whose only rewrite form is `allow` with `updatedInput`, still runs
 * the rewritten call through its own approval (its automatic reviewer is asked, and
 * declines here).
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as Hosts from "../src/Hosts.js"
import * as OpenAi from "../src/OpenAi.js"
import * as Registrations from "../src/Registrations.js"
import * as Scenario from "../src/Scenario.js"
import type { Workspace } from "../src/Workspace.js"

const bundle = inject("bundle")

const rewrite = (w: Workspace) => ({
  type: "modify",
  target: "input",
  operation: "merge",
  value: { command: `touch ${w.file("rewritten-ran")}` }
})

const rewriter = (w: Workspace, approve: boolean) =>
  Registrations.of(
    Registrations.answering("com.example.rewriter", ["tool.before"], [
      rewrite(w),
      ...(approve ? [{ type: "allow" }] : [])
    ])
  )

describe.each(Hosts.both)("$title $version: a rewrite (with the backend's allow where the host offers one)", (host) => {
  let result: Scenario.Result
  beforeAll(async () => {
    result = await Scenario.run({
      host,
      bundle,
      registration: (w) => rewriter(w, host.name === "claude-code"),
      steps: (w) => [host.shell(`touch ${w.file("original-ran")}`)]
    })
  })
  afterAll(() => result?.dispose())

  it("reaches the tool: the rewritten command ran, the original did not", () => {
    expect(fs.existsSync(result.workspace.file("rewritten-ran"))).toBe(true)
    expect(fs.existsSync(result.workspace.file("original-ran"))).toBe(false)
    expect(host.hookProblems(result.run)).toEqual([])
    expect(result.run.leftovers).toEqual([])
  })
})

describe(`${Hosts.claudeCode.title} ${Hosts.claudeCode.version}: a rewrite without an approval`, () => {
  const host = Hosts.claudeCode
  let result: Scenario.Result
  beforeAll(async () => {
    result = await Scenario.run({
      host,
      bundle,
      registration: (w) => rewriter(w, false),
      steps: (w) => [host.shell(`touch ${w.file("original-ran")}`)]
    })
  })
  afterAll(() => result?.dispose())

  it("asks, which -p turns into a denial the model is told about: neither command runs", () => {
    expect(fs.existsSync(result.workspace.file("rewritten-ran"))).toBe(false)
    expect(fs.existsSync(result.workspace.file("original-ran"))).toBe(false)
    expect(Scenario.resultOf(result, result.call(1)).text).toContain("a policy rewrote this call")
    expect(host.hookProblems(result.run)).toEqual([])
  })
})

describe(`${Hosts.codex.title} ${Hosts.codex.version}: a rewrite without an approval`, () => {
  // approvals kept, and routed to Codex's automatic reviewer (a request to the model)
  const host = Hosts.codexWith({ approvals: true })
  let result: Scenario.Result
  beforeAll(async () => {
    result = await Scenario.run({
      host,
      bundle,
      registration: (w) => rewriter(w, false),
      steps: (w) => [{
        _tag: "Tool",
        name: "exec_command",
        input: {
          cmd: `touch ${w.file("original-ran")}`,
          sandbox_permissions: "require_escalated",
          justification: "write outside the sandbox"
        }
      }],
      run: { args: ["--approve-for-me"] }
    })
  })
  afterAll(() => result?.dispose())

  it("is rendered allow + updatedInput, and Codex still asks its own approval for the rewritten call", () => {
    const reviews = result.model.exchanges.filter((e) => OpenAi.isReview(e.body))
    expect(reviews.length).toBeGreaterThan(0)
    expect(reviews[0]?.raw).toContain("rewritten-ran")
    expect(fs.existsSync(result.workspace.file("rewritten-ran"))).toBe(false)
    expect(fs.existsSync(result.workspace.file("original-ran"))).toBe(false)
    expect(host.hookProblems(result.run)).toEqual([])
  })
})
