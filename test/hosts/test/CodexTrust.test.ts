/**
 * Codex's own project trust gates project hooks: Codex 0.169.0 loads `.codex/hooks.json`
 * only for a project `$CODEX_HOME/config.toml` marks `trust_level = "trusted"` (what
 * `codex exec --trust` writes); in any other project `codex exec` runs none of its hooks,
 * with nothing but a warning about project configuration, so the policy is off. `ahp hook
 * doctor codex` reads the same entry: exit 1 naming it while it is missing, 0 once Codex
 * trusts the project. The hooks' own trust (`/hooks`, by a hash of each entry) gates them
 * too: in a trusted project, hooks never trusted there are skipped without a word; the
 * other scenarios bypass it for the run.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as Hosts from "../src/Hosts.js"
import * as Scenario from "../src/Scenario.js"
import * as Workspace from "../src/Workspace.js"

const bundle = inject("bundle")

const destructive = (w: Workspace.Workspace) => `touch ${w.file("tool-ran")} && mkfs.ext4 ${w.file("disk.img")}`

describe(`${Hosts.codex.title} ${Hosts.codex.version} in a trusted project whose hooks were never trusted in /hooks`, () => {
  const host = Hosts.codexWith({ trust: "project" })
  let result: Scenario.Result
  beforeAll(async () => {
    result = await Scenario.run({ host, bundle, steps: (w) => [host.shell(destructive(w))] })
  })
  afterAll(() => result?.dispose())

  it("skips them silently: the destructive command runs, no hook ran, and nothing says so", () => {
    expect(fs.existsSync(result.workspace.file("tool-ran"))).toBe(true)
    expect(Hosts.codexHookLines(result.run)).toEqual([])
    expect(fs.existsSync(result.workspace.file("ahp-audit.jsonl"))).toBe(false)
    expect(result.run.stdout + result.run.stderr).not.toMatch(/hook/i)
    expect(result.run).toMatchObject({ timedOut: false, exitCode: 0 })
    expect(result.run.leftovers).toEqual([])
  })
})

describe.each(
  [
    ["does not trust", "hooks"],
    ["trusts", "config-and-hooks"]
  ] as const
)(`${Hosts.codex.title} ${Hosts.codex.version} in a project it %s`, (_, trust) => {
  const host = Hosts.codexWith({ trust })
  let result: Scenario.Result
  beforeAll(async () => {
    result = await Scenario.run({ host, bundle, steps: (w) => [host.shell(destructive(w))] })
  })
  afterAll(() => result?.dispose())

  if (trust === "hooks") {
    it("runs none of the project's hooks: the destructive command runs and no backend started", () => {
      expect(fs.existsSync(result.workspace.file("tool-ran"))).toBe(true)
      expect(Hosts.codexHookLines(result.run)).toEqual([])
      expect(fs.existsSync(result.workspace.file("ahp-audit.jsonl"))).toBe(false)
      expect(result.run.stderr).toContain("Untrusted project-local configuration is disabled")
    })

    it("is what ahp hook doctor codex reports: exit 1, naming the config.toml entry", () => {
      const doctor = Workspace.ahp(bundle, result.workspace, ["hook", "doctor", "codex"])
      expect(doctor.status).toBe(1)
      expect(doctor.stderr).toBe(
        `ahp hook doctor: Codex does not trust this project, so it runs none of its hooks: ${
          path.join(result.workspace.codexHome, "config.toml")
        } has no [projects.${
          JSON.stringify(result.workspace.project)
        }] trust_level = "trusted"; run codex exec --trust here once\n`
      )
    })
  } else {
    it("runs them: the destructive command is blocked", () => {
      expect(fs.existsSync(result.workspace.file("tool-ran"))).toBe(false)
      expect(Hosts.codexHookLines(result.run)).toContain("hook: PreToolUse Blocked")
    })

    it("and ahp hook doctor codex exits 0", () => {
      const doctor = Workspace.ahp(bundle, result.workspace, ["hook", "doctor", "codex"])
      expect(doctor).toMatchObject({ status: 0, stderr: "" })
    })
  }

  it("logs no hook problem and leaves no process behind", () => {
    expect(result.run).toMatchObject({ timedOut: false, exitCode: 0 })
    expect(host.hookProblems(result.run)).toEqual([])
    expect(result.run.leftovers).toEqual([])
  })
})
