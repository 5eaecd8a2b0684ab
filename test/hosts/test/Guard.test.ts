/**
 * The README's example registration in front of the real hosts' shell tool: a destructive
 * command is blocked (it never ran, and the model is told why), a safe one runs, a risky
 * one asks — which Claude Code's `-p` mode turns into a denial whose reason goes to the
 * model — or, on Codex, which has no `ask`, is denied.
 */
import { classify } from "@effect-ahp/tools/examples/ShellGuard"
import { Effect } from "effect"
import * as fs from "node:fs"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import * as Hosts from "../src/Hosts.js"
import * as Scenario from "../src/Scenario.js"

const bundle = inject("bundle")

// Commands neither host refuses by itself (both refuse `rm -rf *` / `rm -f`), each leaving
// a marker when it runs; the mkfs target does not exist, so the command is harmless even
// if it ran.
const destructive = (marker: string, image: string) => `touch ${marker} && mkfs.ext4 ${image}`
const risky = (marker: string) => `touch ${marker} && git push --force origin main`

describe.each(Hosts.both)("$title $version with the example registration", (host) => {
  let result: Scenario.Result
  beforeAll(async () => {
    result = await Scenario.run({
      host,
      bundle,
      steps: (w) => [
        host.shell(destructive(w.file("destructive-ran"), w.file("disk.img"))),
        host.shell(risky(w.file("risky-ran"))),
        host.shell("echo hello-from-the-tool"),
        host.shell(`touch ${w.file("safe-ran")}`)
      ]
    })
  })
  afterAll(() => result?.dispose())

  it("blocks a destructive command: it never runs, and the model gets the deny reason", async () => {
    const { reason } = await Effect.runPromise(classify(destructive("m", "d")))
    expect(fs.existsSync(result.workspace.file("destructive-ran"))).toBe(false)
    const seen = Scenario.resultOf(result, result.call(1))
    expect(seen.text).toContain(reason)
    if (host.name === "claude-code") expect(seen).toMatchObject({ isError: true })
  })

  it(
    host.name === "claude-code"
      ? "turns the risky command's ask into a denial (-p), whose reason the model gets"
      : "denies the risky command (Codex has no ask), and the model gets the reason",
    async () => {
      const { reason } = await Effect.runPromise(classify(risky("m")))
      expect(fs.existsSync(result.workspace.file("risky-ran"))).toBe(false)
      const seen = Scenario.resultOf(result, result.call(2))
      expect(seen.text).toContain(reason)
      if (host.name === "claude-code") expect(seen).toMatchObject({ isError: true })
    }
  )

  it("runs the safe commands", () => {
    expect(Scenario.resultOf(result, result.call(3)).text).toContain("hello-from-the-tool")
    expect(fs.existsSync(result.workspace.file("safe-ran"))).toBe(true)
  })

  it("ends by itself, with no hook problem in the host's log and no process left behind", () => {
    expect(result.run).toMatchObject({ timedOut: false, exitCode: 0 })
    expect(host.hookProblems(result.run)).toEqual([])
    expect(result.run.leftovers).toEqual([])
  })
})
