/**
 * The hook entries in a host's settings: which handlers are ours, the entries written per
 * event (timeouts, quoting, `--fail-closed`, Claude Code's `http` entries), the events a
 * registration selects, and the merge that keeps every other key and handler, is idempotent
 * and reversible. `main` and `doctor` run in-process on real settings files in a temporary
 * folder, their reports collected from real streams.
 */
import { HostEvents } from "@effect-ahp/hosts"
import { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { Writable } from "node:stream"
import type * as Args from "../src/Args.js"
import * as Install from "../src/Install.js"
import { file, folder, tempDir } from "./TestFiles.js"

const command = (text: string): Json.JsonObject => ({ type: "command", command: text })

/** A stream that keeps what is written to it. */
const collector = () => {
  let text = ""
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk)
      done()
    }
  })
  return { stream, text: () => text }
}

/** An install process in `cwd` with `home`, its output collected. */
const processIn = (cwd: string, home: string, env: Record<string, string> = {}) => {
  const stdout = collector()
  const stderr = collector()
  const io: Install.InstallProcess = {
    stdout: stdout.stream,
    stderr: stderr.stream,
    env,
    cwd,
    home,
    startedAt: Date.parse("2026-12-07T12:00:00Z")
  }
  return { io, stdout: stdout.text, stderr: stderr.text }
}

const installArgs = (overrides: Partial<Args.Install> = {}): Args.Install => ({
  _tag: "Install",
  host: "claude-code",
  scope: "project",
  settings: undefined,
  command: undefined,
  timeoutSeconds: undefined,
  registration: undefined,
  failClosed: false,
  bridgeHttpPort: undefined,
  ...overrides
})

const selecting = (...events: ReadonlyArray<string>) => ({
  protocolVersion: "draft",
  hooks: [{ id: "com.example.a", subscriptions: [{ mode: "intercept", events }] }]
})

describe("Install", () => {
  it("isOurs: a command running ahp's hook for the host, or Claude Code's http hook of a local bridge", () => {
    const ours = [
      "ahp hook claude-code",
      "/usr/local/bin/ahp hook claude-code --timeout 30",
      "node /opt/ahp/dist/ahp.mjs hook claude-code",
      "'/home/u/my tools/ahp.mjs' hook claude-code",
      "node \"C:\\ahp\\ahp.cmd\" hook claude-code",
      "node /x/ahp-hook.mjs claude-code"
    ]
    for (const text of ours) assert.isTrue(Install.isOurs(command(text), "claude-code"), text)
    const notOurs = [
      "myahp hook claude-code",
      "ahp hook codex",
      "ahp hook claude-codex",
      "ahp dispatch claude-code",
      ""
    ]
    for (const text of notOurs) assert.isFalse(Install.isOurs(command(text), "claude-code"), text)
    assert.isTrue(Install.isOurs(command("ahp hook codex"), "codex"))
    const http = Install.httpHandler(8787, 30)
    assert.isTrue(Install.isOurs(http, "claude-code"))
    assert.isFalse(Install.isOurs(http, "codex"), "Codex has no http hooks")
    assert.isFalse(Install.isOurs({ type: "http", url: "http://127.0.0.1:8787/hooks/codex" }, "claude-code"))
    assert.isFalse(Install.isOurs({ type: "http", url: "https://example.com/hooks/claude-code" }, "claude-code"))
    assert.isFalse(Install.isOurs({ type: "prompt", command: "ahp hook claude-code" }, "claude-code"))
  })

  it("entries: one command per installed event, the default timeout but where the host's budget is its own", () => {
    const entries = Install.entries("codex", "ahp hook", {
      registration: "/my files/r.json",
      failClosed: true
    })
    assert.deepStrictEqual(entries.map((e) => e.event), HostEvents.installed("codex").map((e) => e.name))
    for (const { event, handler } of entries) {
      if (event === "SessionEnd" || event === "Interrupt") {
        assert.deepStrictEqual(handler, {
          type: "command",
          command: "ahp hook codex --registration '/my files/r.json' --fail-closed"
        })
      } else {
        assert.deepStrictEqual(handler, {
          type: "command",
          command: "ahp hook codex --timeout 30 --registration '/my files/r.json' --fail-closed",
          timeout: Install.defaultTimeoutSeconds
        }, event)
      }
    }
    const quoted = Install.entries("claude-code", "ahp hook", { registration: "it's.json", failClosed: false })
    assert.strictEqual(quoted[0]!.handler.command, "ahp hook claude-code --timeout 30 --registration 'it'\\''s.json'")
  })

  it("entries with the bridge's port: http entries posting to it with the secret header, SessionStart a command", () => {
    const entries = Install.entries("claude-code", "ahp hook", {
      failClosed: false,
      bridgeHttpPort: 8787,
      timeoutSeconds: 9
    })
    for (const { event, handler } of entries) {
      if (event === "SessionStart") assert.strictEqual(handler.type, "command")
      else if (event === "SessionEnd") {
        assert.deepStrictEqual(handler, Install.httpHandler(8787, undefined), "the host's own budget")
      } else {
        assert.deepStrictEqual(handler, {
          type: "http",
          url: "http://127.0.0.1:8787/hooks/claude-code?timeout=9",
          timeout: 9,
          headers: { "X-AHP-Bridge-Secret": "$AHP_BRIDGE_SECRET" },
          allowedEnvVars: ["AHP_BRIDGE_SECRET"]
        }, event)
      }
    }
  })

  it("selected: the events some subscription selects, observers included; undefined for no registration", () => {
    assert.deepStrictEqual(
      Install.selected(selecting("tool.before", "turn.start"), "claude-code")?.map((e) => e.name),
      ["PreToolUse", "UserPromptSubmit"]
    )
    const observed = { hooks: [{ subscriptions: [{ mode: "observe", events: ["session.end"] }] }] }
    assert.deepStrictEqual(Install.selected(observed, "codex")?.map((e) => e.name), ["SessionEnd"])
    assert.deepStrictEqual(
      Install.selected(selecting("turn.end"), "codex")?.map((e) => e.name),
      ["Interrupt"],
      "not the legacy notify program, which has no hook entry"
    )
    assert.deepStrictEqual(Install.selected(selecting("nothing.here"), "codex"), [])
    assert.isUndefined(Install.selected({ model: "opus" }, "codex"))
    assert.isUndefined(Install.selected([], "codex"))
  })

  it("install merges: other keys, events and handlers kept in order; ours updated in place, a second one removed", () => {
    const entry = Install.entries("claude-code", "ahp hook", { failClosed: false })
      .find((e) => e.event === "PreToolUse")!
    const settings: Json.JsonObject = {
      model: "opus",
      hooks: {
        PreToolUse: [
          { matcher: "Bash", hooks: [command("guard.sh"), command("ahp hook claude-code --timeout 5")] },
          { hooks: [command("ahp hook claude-code")] }
        ],
        Notification: [{ hooks: [command("notify-send hi")] }]
      }
    }
    const merged = Install.install(settings, "claude-code", [entry])
    assert.deepStrictEqual(merged.changed, ["PreToolUse"])
    assert.deepStrictEqual(merged.settings, {
      model: "opus",
      hooks: {
        PreToolUse: [{ matcher: "Bash", hooks: [command("guard.sh"), entry.handler] }],
        Notification: [{ hooks: [command("notify-send hi")] }]
      }
    })
    const again = Install.install(merged.settings, "claude-code", [entry])
    assert.deepStrictEqual(again, { settings: merged.settings, changed: [] }, "idempotent")
    const fresh = Install.install({}, "claude-code", [entry])
    assert.deepStrictEqual(fresh.settings, { hooks: { PreToolUse: [{ hooks: [entry.handler] }] } })
  })

  it("install removes ours from the unwanted events; uninstall removes every one of ours and what it leaves empty", () => {
    const settings: Json.JsonObject = {
      hooks: {
        Stop: [{ hooks: [command("ahp hook claude-code")] }],
        PreToolUse: [{ hooks: [command("guard.sh"), command("ahp hook claude-code")] }],
        PostToolUse: [{ hooks: [command("ahp hook codex")] }]
      }
    }
    const narrowed = Install.install(settings, "claude-code", [], ["Stop", "SessionEnd"])
    assert.deepStrictEqual(narrowed.changed, ["Stop"])
    assert.isUndefined((narrowed.settings.hooks as Json.JsonObject).Stop, "the event left empty is dropped")
    const removed = Install.uninstall(settings, "claude-code")
    assert.deepStrictEqual(removed.changed, ["Stop", "PreToolUse"])
    assert.deepStrictEqual(removed.settings, {
      hooks: {
        PreToolUse: [{ hooks: [command("guard.sh")] }],
        PostToolUse: [{ hooks: [command("ahp hook codex")] }]
      }
    }, "Codex's handler is not Claude Code's to remove")
    assert.deepStrictEqual(Install.uninstall(removed.settings, "claude-code").changed, [])
    assert.deepStrictEqual(Install.uninstall({ model: "x" }, "claude-code"), { settings: { model: "x" }, changed: [] })
  })

  it("shapeProblem: settings that cannot be merged without losing a value", () => {
    assert.isUndefined(Install.shapeProblem({}, "codex"))
    assert.isUndefined(Install.shapeProblem({ hooks: { Unknown: 7 } }, "codex"), "not an event of the host")
    assert.strictEqual(Install.shapeProblem({ hooks: [] }, "codex"), "\"hooks\" is not an object")
    assert.strictEqual(Install.shapeProblem({ hooks: { Stop: {} } }, "codex"), "\"hooks.Stop\" is not a list")
  })

  it("settingsFile per host and scope", () => {
    const at = (host: HostEvents.HostName, scope: "project" | "user", env: Record<string, string> = {}) =>
      Install.settingsFile(host, scope, env, "/p", "/h")
    assert.strictEqual(at("claude-code", "project"), "/p/.claude/settings.json")
    assert.strictEqual(at("claude-code", "user"), "/h/.claude/settings.json")
    assert.strictEqual(at("codex", "project"), "/p/.codex/hooks.json")
    assert.strictEqual(at("codex", "user"), "/h/.codex/hooks.json")
    assert.strictEqual(at("codex", "user", { CODEX_HOME: "/c" }), "/c/hooks.json")
  })

  it.scoped("main installs only what the registration selects, backs up, and refuses a registration that selects nothing", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const project = folder(path.join(dir, "project"))
      const home = folder(path.join(dir, "home"), 0o700)
      const settings = file(folder(path.join(project, ".claude")), "settings.json", { model: "opus" })
      const registration = file(project, "registration.json", selecting("tool.before"))
      const run = processIn(project, home)
      const code = yield* Effect.promise(() =>
        Install.main(installArgs({ registration: "registration.json" }), ["ahp", "hook"], run.io)
      )
      assert.strictEqual(code, 0, run.stderr())
      const written = JSON.parse(fs.readFileSync(settings, "utf8"))
      assert.deepStrictEqual(Object.keys(written.hooks), ["PreToolUse"])
      assert.strictEqual(
        written.hooks.PreToolUse[0].hooks[0].command,
        `ahp hook claude-code --timeout 30 --registration ${registration}`
      )
      const backup = `${settings}.ahp-backup-20261207T120000Z`
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(backup, "utf8")), { model: "opus" })
      assert.include(run.stdout(), `claude-code: ${settings}: installed the hook for PreToolUse`)
      assert.include(run.stdout(), `  backup: ${backup}`)
      const none = file(project, "none.json", selecting("nothing.here"))
      const refused = processIn(project, home)
      assert.strictEqual(
        yield* Effect.promise(() => Install.main(installArgs({ registration: none }), ["ahp", "hook"], refused.io)),
        2
      )
      assert.strictEqual(
        refused.stderr(),
        `ahp hook install: ${none} selects none of the events claude-code offers; nothing was changed\n`
      )
      assert.deepStrictEqual(JSON.parse(fs.readFileSync(settings, "utf8")), written)
    }))

  it.scoped("doctor: 1 with every problem while the hooks are missing, 0 once installed and a registration is used", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const project = folder(path.join(dir, "project"))
      const home = folder(path.join(dir, "home"), 0o700)
      const env = { XDG_STATE_HOME: path.join(dir, "state") }
      const doctorArgs = installArgs({ _tag: "Doctor" })
      const before = processIn(project, home, env)
      assert.strictEqual(Install.doctor(doctorArgs, before.io), 1)
      const settings = path.join(project, ".claude", "settings.json")
      assert.strictEqual(
        before.stderr(),
        `ahp hook doctor: no hooks are installed: ${settings} cannot be read; run: ahp hook install claude-code --project\n` +
          `ahp hook doctor: no registration found (looked for ${path.join(project, ".ahp", "registration.json")}, ${
            path.join(home, ".ahp", "registration.json")
          })\n`
      )
      const user = file(folder(path.join(home, ".ahp"), 0o700), "registration.json", selecting("tool.before"))
      const install = processIn(project, home, env)
      assert.strictEqual(yield* Effect.promise(() => Install.main(installArgs(), ["ahp", "hook"], install.io)), 0)
      const after = processIn(project, home, env)
      assert.strictEqual(Install.doctor(doctorArgs, after.io), 0, after.stderr())
      assert.strictEqual(
        after.stdout(),
        `claude-code: the policy is on here: ${settings} runs the hook, which uses ${user}\n`
      )
    }))
})
