/**
 * The warm path on the real hosts: with `ahp bridge` running, the command hook forwarding
 * to the bridge's socket (both hosts) and Claude Code's `http` hook entry give the same
 * outcome as the cold hook — the destructive command is blocked and the model is told —
 * and the bridge's trace shows it answered. With the bridge down the command hook
 * dispatches by itself (still blocked), while Claude Code treats an `http` hook it cannot
 * reach as a non-blocking error: the command runs. An `http` hook is skipped at
 * SessionStart.
 */
import * as Install from "@effect-ahp/hook/Install"
import { classify } from "@effect-ahp/tools/examples/ShellGuard"
import { Effect } from "effect"
import * as fs from "node:fs"
import { describe, expect, inject, it } from "vitest"
import * as Bridge from "../src/Bridge.js"
import * as Hosts from "../src/Hosts.js"
import * as Scenario from "../src/Scenario.js"
import * as Workspace from "../src/Workspace.js"

const bundle = inject("bundle")
const destructive = (w: Workspace.Workspace) => `touch ${w.file("tool-ran")} && mkfs.ext4 ${w.file("disk.img")}`
const { reason } = await Effect.runPromise(classify("mkfs.ext4 disk.img"))

/** Replaces Claude Code's hooks of some events by `http` hooks posting to the bridge. */
const useHttp = (w: Workspace.Workspace, bridge: Bridge.Bridge, events: ReadonlyArray<string>) => {
  const file = Workspace.settingsFile(w, "claude-code")
  const settings = Workspace.readJson(file)
  for (const event of events) settings.hooks[event] = [{ hooks: [Install.httpHandler(Bridge.port(bridge), 30)] }]
  Workspace.writeJson(file, settings)
}

/** The bridge's trace lines for a host event. */
const traced = (bridge: Bridge.Bridge, host: string, event: string) =>
  bridge.stderr().split("\n").filter((line) => line.includes(`${host} ${event} →`))

/** A scenario with the bridge started before the host runs (and stopped before it when `down`). */
const withBridge = async (
  host: Hosts.Host,
  options: {
    /** `ahp hook install claude-code --bridge-http PORT` once the bridge listens. */
    readonly installHttp?: boolean
    /** Events whose hook is then replaced by an `http` hook by hand. */
    readonly http?: ReadonlyArray<string>
    readonly down?: boolean
  } = {}
) => {
  let bridge: Bridge.Bridge | undefined
  const result = await Scenario.run({
    host,
    bundle,
    steps: (w) => [host.shell(destructive(w))],
    run: (w) => ({ env: { AHP_BRIDGE_SECRET: Bridge.secret(w) } }),
    prepare: async (w) => {
      bridge = await Bridge.start(bundle, w)
      if (options.installHttp === true) {
        Workspace.install(bundle, w, "claude-code", ["--bridge-http", String(Bridge.port(bridge))])
      }
      if (options.http !== undefined) useHttp(w, bridge, options.http)
      if (options.down === true) await bridge.stop()
    }
  })
  return {
    result,
    bridge: bridge!,
    dispose: async () => {
      await bridge?.stop()
      await result.dispose()
    }
  }
}

const blocked = (host: Hosts.Host, result: Scenario.Result) => {
  expect(fs.existsSync(result.workspace.file("tool-ran"))).toBe(false)
  expect(Scenario.resultOf(result, result.call(1)).text).toContain(reason)
  expect(host.hookProblems(result.run)).toEqual([])
  expect(result.run.leftovers).toEqual([])
}

describe.each(Hosts.both)("$title $version, the command hook", (host) => {
  it("forwards to the running bridge, which blocks the destructive command", async () => {
    const { bridge, dispose, result } = await withBridge(host)
    try {
      blocked(host, result)
      expect(traced(bridge, host.name, "PreToolUse")).toHaveLength(1)
    } finally {
      await dispose()
    }
  })

  it("dispatches by itself with the bridge down: still blocked", async () => {
    const { bridge, dispose, result } = await withBridge(host, { down: true })
    try {
      blocked(host, result)
      expect(traced(bridge, host.name, "PreToolUse")).toEqual([])
    } finally {
      await dispose()
    }
  })
})

describe(`${Hosts.claudeCode.title} ${Hosts.claudeCode.version}, an http hook`, () => {
  const host = Hosts.claudeCode

  it("posted to the running bridge blocks the destructive command", async () => {
    const { bridge, dispose, result } = await withBridge(host, { installHttp: true })
    try {
      blocked(host, result)
      expect(traced(bridge, host.name, "PreToolUse")).toHaveLength(1)
      const hooks = Workspace.readJson(Workspace.settingsFile(result.workspace, "claude-code")).hooks
      expect(hooks.PreToolUse[0].hooks).toEqual([Install.httpHandler(Bridge.port(bridge), 30)])
      expect(hooks.SessionStart[0].hooks[0].type).toBe("command")
    } finally {
      await dispose()
    }
  })

  it("that cannot reach the bridge is a non-blocking error: the command runs", async () => {
    const { dispose, result } = await withBridge(host, { installHttp: true, down: true })
    try {
      expect(fs.existsSync(result.workspace.file("tool-ran"))).toBe(true)
      const problems = host.hookProblems(result.run)
      expect(problems).toEqual(
        expect.arrayContaining([expect.stringMatching(/^PreToolUse:Bash: error .*ECONNREFUSED/)])
      )
      expect(problems.filter((line) => !/ECONNREFUSED 127\.0\.0\.1:/.test(line))).toEqual([])
    } finally {
      await dispose()
    }
  })

  it("is skipped at SessionStart", async () => {
    const { bridge, dispose, result } = await withBridge(host, { installHttp: true, http: ["SessionStart"] })
    try {
      expect(result.run.log).toContain("HTTP hooks are not supported for SessionStart")
      expect(
        host.hookProblems(result.run).filter((line) => !/HTTP hooks are not supported for SessionStart/.test(line))
      )
        .toEqual([])
      expect(traced(bridge, host.name, "SessionStart")).toEqual([])
      expect(traced(bridge, host.name, "PreToolUse")).toHaveLength(1)
    } finally {
      await dispose()
    }
  })
})
