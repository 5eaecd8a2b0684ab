/**
 * A fail-closed policy whose backend cannot answer, on the real hosts: the tool does not
 * run, the model is told, and the hook answers before the host's timeout as installed —
 * both hosts wait for the hook process to exit (not for its answer) and, at their timeout,
 * kill it and let the call go ahead. Whatever ends the hook, its backends end with it.
 */
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { scaled } from "../../support/load.js"
import * as FakeModel from "../src/FakeModel.js"
import * as Hosts from "../src/Hosts.js"
import * as Registrations from "../src/Registrations.js"
import * as Scenario from "../src/Scenario.js"
import * as Workspace from "../src/Workspace.js"

const bundle = inject("bundle")

/**
 * The timeout `ahp hook install --timeout` writes in these scenarios (seconds): 3 on a quiet
 * machine, short so that the margin is thin (where a denial used to be lost), scaled with
 * the load factor so that a loaded machine's slower process starts do not decide the verdict.
 */
const hostTimeout = Math.ceil(scaled(3000) / 1000)

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

/**
 * The host timeout of the scenario where the host kills the hook (seconds): long enough for
 * the hook to start its backend and send it the call (scaled with the load factor), short
 * for a test.
 */
const killedAfter = Math.ceil(scaled(4000) / 1000)

/** Whether the host's log shows it ended the PreToolUse hook at its timeout. */
const killed = (host: Hosts.Host, run: Hosts.Run): boolean =>
  host.name === "claude-code"
    ? /timed out/.test(hookEnd(run) ?? "")
    : Hosts.codexHookLines(run).some((line) => line.startsWith("hook: PreToolUse Failed"))

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

  it("when the host kills the hook at its timeout: the hook wrote nothing, its backend got the call and ended with it", async () => {
    const workspace = Workspace.make("killed")
    const model = await FakeModel.start(host.vendor, { steps: [host.shell(`touch ${workspace.file("tool-ran")}`)] })
    const backendLog = workspace.file("backend.jsonl")
    const hookLog = workspace.file("hook.log")
    try {
      Workspace.writeRegistration(
        workspace,
        Registrations.of(
          Workspace.scripted("com.example.ignore-sigterm", "ignore-sigterm", [
            Registrations.intercept("guard", ["tool.before"], { timeoutMs: 120_000 })
          ], { log: backendLog })
        )
      )
      Workspace.install(bundle, workspace, host.name, ["--timeout", String(killedAfter)])
      Workspace.trust(bundle, workspace)
      // the hook's own deadline far beyond the host's, so that the host kills it before it
      // decides; its trace (stderr) to a file, to read what it wrote
      const settings = Workspace.settingsFile(workspace, host.name)
      const written = Workspace.readJson(settings)
      const entry = written.hooks.PreToolUse[0].hooks[0]
      expect(entry.command).toMatch(new RegExp(` --timeout ${killedAfter}$`))
      entry.command = `AHP_HOOK_VERBOSE=1 ${entry.command.replace(/ --timeout \d+$/, " --timeout 600")} 2>>${hookLog}`
      Workspace.writeJson(settings, written)
      const run = await host.run(workspace, model)
      expect(killed(host, run), run.log.slice(-3000)).toBe(true)
      expect(fs.readFileSync(hookLog, "utf8")).toBe("")
      // the backend got the call; it then read its stdin's end, or the hook's guardian
      // stopped it first (its SIGKILL after the grace leaves no time to log): either way it
      // ended by itself, not by the run's clean-up (no leftovers, below)
      const logged = Workspace.jsonLines(backendLog).map((line) =>
        line.event === "message" ? line.message.params.event.type : line.event
      )
      expect(logged.slice(0, 2)).toEqual(["start", "tool.before"])
      expect(logged.slice(2).every((event) => event === "eof")).toBe(true)
      expect(fs.existsSync(workspace.file("tool-ran"))).toBe(true)
      expect(run.leftovers).toEqual([])
    } finally {
      await model.close()
      workspace.remove()
    }
  })
})
