/**
 * A project registration the user never trusted (`ahp trust` not run) does not run on
 * either host: the destructive command the example policy would block runs and no backend
 * starts (the audit backend's file never appears). Every hook answer carries a
 * `systemMessage` saying why and what to run: Claude Code shows it; `codex exec` shows
 * no hook's `systemMessage` at all (neither in its text nor in its `--json` events), so
 * on Codex the answer is read by running the installed hook as Codex runs it — the gap
 * `ahp hook doctor codex` is for: it exits 1 naming the file until the user trusts it.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as Hosts from "../src/Hosts.js"
import * as Scenario from "../src/Scenario.js"
import * as Workspace from "../src/Workspace.js"

const bundle = inject("bundle")

describe.each(Hosts.both)("$title $version with an untrusted project registration", (host) => {
  let result: Scenario.Result
  beforeAll(async () => {
    result = await Scenario.run({
      host,
      bundle,
      trust: false,
      steps: (w) => [host.shell(`touch ${w.file("tool-ran")} && mkfs.ext4 ${w.file("disk.img")}`)]
    })
  })
  afterAll(() => result?.dispose())

  const notice = () => {
    const file = Workspace.registrationFile(result.workspace)
    return `the project registration ${file} is not trusted, so it is not used; review it, then run: ahp trust ${file}`
  }

  it("does not run it: the command runs and no backend started", () => {
    expect(fs.existsSync(result.workspace.file("tool-ran"))).toBe(true)
    expect(fs.existsSync(result.workspace.file("ahp-audit.jsonl"))).toBe(false)
    expect(result.run).toMatchObject({ timedOut: false, exitCode: 0 })
    expect(host.hookProblems(result.run)).toEqual([])
    expect(result.run.leftovers).toEqual([])
  })

  it("is what ahp hook doctor reports (exit 1) until the user trusts it (exit 0)", () => {
    const before = Workspace.ahp(bundle, result.workspace, ["hook", "doctor", host.name])
    expect(before.status).toBe(1)
    expect(before.stderr).toContain(notice())
    Workspace.trust(bundle, result.workspace)
    const after = Workspace.ahp(bundle, result.workspace, ["hook", "doctor", host.name])
    expect(after).toMatchObject({ status: 0, stderr: "" })
    expect(after.stdout).toContain(`uses ${Workspace.registrationFile(result.workspace)}`)
  })

  if (host.name === "claude-code") {
    it("shows the user why, and what to run, on every hook answer", () => {
      const responses = Hosts.hookEvents(result.run).filter((e) => e.subtype === "hook_response")
      expect(responses.map((e) => e.hook_event)).toEqual(
        expect.arrayContaining(["SessionStart", "UserPromptSubmit", "PreToolUse"])
      )
      for (const response of responses) {
        expect(JSON.parse(response.stdout).systemMessage).toContain(notice())
      }
    })
  } else {
    it("answers with why, and what to run, which codex exec does not show", () => {
      expect(result.run.stdout + result.run.stderr).not.toContain("is not trusted")
      const hooks = Workspace.readJson(Workspace.settingsFile(result.workspace, "codex")).hooks
      const command: string = hooks.PreToolUse[0].hooks[0].command
      const payload = {
        session_id: "s1",
        turn_id: "t1",
        transcript_path: null,
        cwd: result.workspace.project,
        hook_event_name: "PreToolUse",
        model: "gpt-test",
        permission_mode: "bypassPermissions",
        tool_name: "Bash",
        tool_use_id: "call-1",
        tool_input: { command: "mkfs.ext4 disk.img" }
      }
      // the doctor test trusted the file: a changed file is untrusted again
      fs.appendFileSync(Workspace.registrationFile(result.workspace), "\n")
      const answer = spawnSync("/bin/bash", ["-c", command], {
        cwd: result.workspace.project,
        input: JSON.stringify(payload),
        env: {
          PATH: process.env.PATH ?? "/usr/bin:/bin",
          HOME: result.workspace.home,
          XDG_STATE_HOME: result.workspace.state
        },
        encoding: "utf8",
        timeout: 60_000
      })
      expect(answer.status).toBe(0)
      const file = Workspace.registrationFile(result.workspace)
      expect(JSON.parse(answer.stdout).systemMessage).toContain(
        `the project registration ${file} changed since you trusted it, so it is not used; review it, then run: ahp trust ${file}`
      )
    })
  }
})
