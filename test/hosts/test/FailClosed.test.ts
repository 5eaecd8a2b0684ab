/**
 * A fail-closed policy whose backend cannot answer, on the real hosts: the tool does not
 * run, the model is told, and the hook answers before the host's timeout as installed —
 * both hosts wait for the hook process to exit (not for its answer) and, at their timeout,
 * kill it and let the call go ahead. Whatever ends the hook, its backends end with it.
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as FakeModel from "../src/FakeModel.js"
import * as Hosts from "../src/Hosts.js"
import * as Registrations from "../src/Registrations.js"
import * as Scenario from "../src/Scenario.js"
import * as Workspace from "../src/Workspace.js"

const bundle = inject("bundle")

/** The timeout `ahp hook install --timeout` writes in these scenarios (seconds): short, so the margin is thin. */
const hostTimeout = 3

/** A fail-closed `tool.before` backend with a behaviour of the scripted backend (its own timeout far above the host's). */
const failing = (behaviour: string) =>
  Registrations.of(
    Workspace.scripted(`com.example.${behaviour}`, behaviour, [
      Registrations.intercept("guard", ["tool.before"], { timeoutMs: 120_000 })
    ])
  )

/** Claude Code's log line about the PreToolUse hook's end: `finished with status N (Mms)` or `timed out after …`. */
const hookEnd = (run: Hosts.Run): string | undefined =>
  run.log.split("\n").find((line) => /Hooks: PreToolUse:Bash \[.*\] (?:finished with status|timed out)/.test(line))

/** Whether the host shows the call blocked by the hook (not the hook failed or timed out). */
const blocked = (host: Hosts.Host, result: Scenario.Result): boolean => {
  const seen = result.model.resultOf(result.call(1))?.result
  return host.name === "claude-code"
    ? seen?.isError === true && seen.text.startsWith("PreToolUse:Bash hook error:")
    : Hosts.codexHookLines(result.run).includes("hook: PreToolUse Blocked") &&
      seen?.text.startsWith("Command blocked by PreToolUse hook:") === true
}

describe.each(Hosts.both)("$title $version, a fail-closed backend", (host) => {
  describe.each([
    ["that crashes", "exit-mid"],
    ["that hangs", "hang"],
    ["that hangs and ignores SIGTERM", "ignore-sigterm"]
  ])("%s", (_, behaviour) => {
    let result: Scenario.Result
    beforeAll(async () => {
      result = await Scenario.run({
        host,
        bundle,
        registration: () => failing(behaviour),
        install: ["--timeout", String(hostTimeout)],
        steps: (w) => [host.shell(`touch ${w.file("tool-ran")}`)]
      })
    })
    afterAll(() => result?.dispose())

    it("keeps the tool from running, and the host shows the call blocked by the hook", () => {
      expect(fs.existsSync(result.workspace.file("tool-ran"))).toBe(false)
      expect(blocked(host, result)).toBe(true)
    })

    if (host.name === "claude-code") {
      it(`answers before the host's ${hostTimeout} s timeout`, () => {
        const line = hookEnd(result.run)
        const millis = /finished with status 0 \((\d+)ms\)$/.exec(line ?? "")?.[1]
        expect(millis, line).toBeDefined()
        expect(Number(millis)).toBeLessThan(hostTimeout * 1000)
      })
    }

    it("logs no hook problem and leaves no backend behind", () => {
      expect(host.hookProblems(result.run)).toEqual([])
      expect(result.run.leftovers).toEqual([])
    })
  })

  it("leaves no backend behind when the host kills the hook at its timeout", async () => {
    const workspace = Workspace.make("killed")
    const model = await FakeModel.start(host.vendor, { steps: [host.shell("echo done")] })
    try {
      Workspace.writeRegistration(workspace, failing("ignore-sigterm"))
      Workspace.install(bundle, workspace, host.name, ["--timeout", "1"])
      Workspace.trust(bundle, workspace)
      const run = await host.run(workspace, model)
      expect(run.leftovers).toEqual([])
    } finally {
      await model.close()
      workspace.remove()
    }
  })
})
