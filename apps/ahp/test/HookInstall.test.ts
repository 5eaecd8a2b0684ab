/**
 * `ahp hook install|uninstall` (the first install run as a user runs it, the others through
 * the hook's entry in this process) against settings files that already hold content: every
 * key kept, a backup written, idempotent, reversible; and the pure merge.
 */
import * as Install from "@effect-ahp/hook/Install"
import { HostEvents } from "@effect-ahp/hosts"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { callHook, runHook } from "./hookSupport.js"
import { tempDir, writeFile } from "./support.js"

const original = {
  model: "opus",
  permissions: { allow: ["Bash(npm test)"], deny: ["Read(./.env)"] },
  env: { BIG: "__BIG__" },
  hooks: {
    PreToolUse: [{ matcher: "Bash", hooks: [{ type: "command", command: "./my-guard.sh", timeout: 5 }] }],
    Notification: [{ hooks: [{ type: "command", command: "notify-send hi" }] }]
  },
  statusLine: { type: "command", command: "echo" }
}
const existingText = JSON.stringify(original, null, 2).replace("\"__BIG__\"", "12345678901234567890")
const existing = JSON.parse(existingText)

const readJson = (file: string) => JSON.parse(fs.readFileSync(file, "utf8"))
const backups = (file: string) =>
  fs.readdirSync(path.dirname(file)).filter((f) => f.startsWith(`${path.basename(file)}.ahp-backup-`))

describe("ahp hook install / uninstall", () => {
  it.scoped("claude-code --project merges into existing settings, backs up, is idempotent and reversible", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const project = path.join(dir, "project")
      fs.mkdirSync(path.join(project, ".claude"), { recursive: true })
      const file = writeFile(path.join(project, ".claude"), "settings.json", existingText)
      const first = yield* runHook(["install", "claude-code", "--project"], "", { dir, cwd: project })
      assert.strictEqual(first.code, 0, first.stderr)
      assert.include(first.stdout, `claude-code: ${file}: installed the hook for PreToolUse, PermissionRequest`)
      assert.include(first.stdout, "backup: ")
      const installed = readJson(file)
      assert.strictEqual(installed.model, "opus")
      assert.deepStrictEqual(installed.permissions, existing.permissions)
      assert.deepStrictEqual(installed.statusLine, existing.statusLine)
      assert.include(fs.readFileSync(file, "utf8"), "12345678901234567890", "numbers are kept exactly")
      assert.deepStrictEqual(installed.hooks.PreToolUse[0], existing.hooks.PreToolUse[0], "the user's hook is kept")
      for (const event of HostEvents.installed("claude-code")) {
        const ours = (installed.hooks[event.name] as Array<any>).flatMap((g) => g.hooks).filter((h: any) =>
          Install.isOurs(h, "claude-code")
        )
        assert.strictEqual(ours.length, 1, event.name)
        assert.match(ours[0].command, / claude-code/)
        if (event.name === "SessionEnd") assert.isUndefined(ours[0].timeout)
        else {
          assert.strictEqual(ours[0].timeout, 30)
          assert.include(ours[0].command, "--timeout 30")
        }
      }
      assert.strictEqual(installed.hooks.Notification[0].hooks[0].command, "notify-send hi")
      const [backup] = backups(file)
      assert.strictEqual(fs.readFileSync(path.join(path.dirname(file), backup!), "utf8"), existingText)

      const second = yield* callHook(["install", "claude-code"], "", { dir, cwd: project })
      assert.strictEqual(second.code, 0, second.stderr)
      assert.include(second.stdout, "already installed; nothing changed")
      assert.deepStrictEqual(readJson(file), installed)
      assert.strictEqual(backups(file).length, 1)

      const removed = yield* callHook(["uninstall", "claude-code", "--project"], "", { dir, cwd: project })
      assert.strictEqual(removed.code, 0, removed.stderr)
      assert.deepStrictEqual(readJson(file), existing)
      assert.strictEqual(backups(file).length, 2)
    }))

  it.scoped("codex --user writes $CODEX_HOME/hooks.json (a new file) and says to trust it", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const codexHome = path.join(dir, "codex-home")
      const run = yield* callHook(["install", "codex", "--user", "--timeout", "12", "--fail-closed"], "", {
        dir,
        env: { CODEX_HOME: codexHome }
      })
      assert.strictEqual(run.code, 0, run.stderr)
      const hooks = readJson(path.join(codexHome, "hooks.json")).hooks
      assert.deepStrictEqual(Object.keys(hooks), HostEvents.installed("codex").map((e) => e.name))
      assert.strictEqual(hooks.PreToolUse[0].hooks[0].timeout, 12)
      assert.match(hooks.PreToolUse[0].hooks[0].command, / codex --timeout 12 --fail-closed$/)
      assert.isUndefined(hooks.Interrupt[0].hooks[0].timeout)
      assert.include(run.stdout, "(a new file)")
      assert.include(run.stdout, "trust it")
    }))

  it.scoped("a settings file that is not a JSON object, or a hooks value that is not an object, is left alone", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const broken = writeFile(dir, "broken.json", "{ \"model\": ")
      const run = yield* callHook(["install", "claude-code", "--settings", broken], "", { dir })
      assert.strictEqual(run.code, 2, "could not do it")
      assert.include(run.stderr, "is not a JSON object; nothing was changed")
      assert.strictEqual(fs.readFileSync(broken, "utf8"), "{ \"model\": ")
      const odd = writeFile(dir, "odd.json", { hooks: ["x"] })
      const refused = yield* callHook(["install", "claude-code", "--settings", odd], "", { dir })
      assert.strictEqual(refused.code, 2)
      assert.include(refused.stderr, "\"hooks\" is not an object")
      assert.deepStrictEqual(backups(odd), [])
    }))

  it.scoped("two changes within one second keep both backups", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = writeFile(dir, "settings.json", existingText)
      // both in the same second
      const startedAt = Date.parse("2026-12-01T10:00:00.250Z")
      const install = yield* callHook(["install", "claude-code", "--settings", file], "", { dir, startedAt })
      assert.strictEqual(install.code, 0, install.stderr)
      const uninstall = yield* callHook(["uninstall", "claude-code", "--settings", file], "", { dir, startedAt })
      assert.strictEqual(uninstall.code, 0, uninstall.stderr)
      assert.deepStrictEqual(backups(file).sort(), [
        "settings.json.ahp-backup-20261201T100000Z",
        "settings.json.ahp-backup-20261201T100000Z-2"
      ])
      const backup = (name: string) => fs.readFileSync(path.join(dir, name), "utf8")
      assert.strictEqual(backup("settings.json.ahp-backup-20261201T100000Z"), existingText, "before the install")
      assert.include(backup("settings.json.ahp-backup-20261201T100000Z-2"), "ahp", "before the uninstall")
      assert.deepStrictEqual(readJson(file), existing)
    }))

  it.scoped("with --registration, only the events it selects get an entry, and ours for the others are removed", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "settings.json")
      const everything = yield* callHook(["install", "claude-code", "--settings", file], "", { dir })
      assert.strictEqual(everything.code, 0, everything.stderr)
      assert.include(Object.keys(readJson(file).hooks), "PostToolBatch")
      const reg = writeFile(dir, "registration.json", {
        protocolVersion: "draft",
        hooks: [{
          id: "com.example.guard",
          transport: { type: "stdio", command: "guard", lifecycle: "persistent" },
          subscriptions: [
            { mode: "intercept", events: ["tool.before"], failurePolicy: "fail-closed", content: { default: "body" } },
            { mode: "observe", events: ["turn.start"], content: { default: "metadata" } }
          ]
        }]
      })
      const some = yield* callHook(["install", "claude-code", "--settings", file, "--registration", reg], "", { dir })
      assert.strictEqual(some.code, 0, some.stderr)
      assert.deepStrictEqual(Object.keys(readJson(file).hooks).sort(), ["PreToolUse", "UserPromptSubmit"])
      assert.match(some.stdout, /removed the hook for .*PostToolBatch.* \(the registration selects none of them\)/)
      const again = yield* callHook(["install", "claude-code", "--settings", file, "--registration", reg], "", { dir })
      assert.include(again.stdout, "already installed; nothing changed")
      const none = writeFile(dir, "none.json", { protocolVersion: "draft", hooks: [] })
      const refused = yield* callHook(["install", "claude-code", "--settings", file, "--registration", none], "", {
        dir
      })
      assert.strictEqual(refused.code, 2)
      assert.include(refused.stderr, "selects none of the events claude-code offers; nothing was changed")
    }))

  it.scoped("claude-code --bridge-http PORT writes http entries with the bridge's secret header, SessionStart a command", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "settings.json")
      const cold = yield* callHook(["install", "claude-code", "--settings", file], "", { dir })
      assert.strictEqual(cold.code, 0, cold.stderr)
      const run = yield* callHook(["install", "claude-code", "--settings", file, "--bridge-http", "8765"], "", { dir })
      assert.strictEqual(run.code, 0, run.stderr)
      const hooks = readJson(file).hooks
      assert.deepStrictEqual(hooks.PreToolUse, [{
        hooks: [{
          type: "http",
          url: "http://127.0.0.1:8765/hooks/claude-code?timeout=30",
          timeout: 30,
          headers: { "X-AHP-Bridge-Secret": "$AHP_BRIDGE_SECRET" },
          allowedEnvVars: ["AHP_BRIDGE_SECRET"]
        }]
      }], "the command entry replaced in place, not a second hook")
      assert.strictEqual(hooks.SessionStart[0].hooks.length, 1)
      assert.strictEqual(hooks.SessionStart[0].hooks[0].type, "command", "Claude Code skips http hooks at SessionStart")
      for (const event of Object.keys(hooks).filter((e) => e !== "SessionStart")) {
        assert.deepStrictEqual(hooks[event].flatMap((g: any) => g.hooks.map((h: any) => h.type)), ["http"], event)
      }
      assert.include(run.stdout, "http: http://127.0.0.1:8765/hooks/claude-code?timeout=30")
      const again = yield* callHook(["install", "claude-code", "--settings", file, "--bridge-http", "8765"], "", {
        dir
      })
      assert.include(again.stdout, "already installed; nothing changed")
      const back = yield* callHook(["install", "claude-code", "--settings", file], "", { dir })
      assert.strictEqual(back.code, 0, back.stderr)
      assert.strictEqual(readJson(file).hooks.PreToolUse[0].hooks[0].type, "command", "an http entry of ours is ours")
      for (
        const [args, message] of [
          [["install", "codex", "--bridge-http", "8765"], "Codex has no http hook type"],
          [["install", "claude-code", "--bridge-http", "http://x"], "takes the bridge's port"],
          [["uninstall", "claude-code", "--bridge-http", "8765"], "is an install option"]
        ] as const
      ) {
        const refused = yield* callHook([...args, "--settings", file], "", { dir })
        assert.strictEqual(refused.code, 2, args.join(" "))
        assert.include(refused.stderr, message)
      }
    }))

  it.scoped("doctor exits 1 while the hooks are missing, no registration is used or Codex does not trust the project, 0 once all hold", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = path.join(dir, "hooks.json")
      const reg = writeFile(dir, "registration.json", {
        protocolVersion: "draft",
        hooks: [{
          id: "com.example.guard",
          transport: { type: "stdio", command: "guard", lifecycle: "persistent" },
          subscriptions: [{ mode: "intercept", events: ["tool.before"], content: { default: "body" } }]
        }]
      })
      const doctor = (...extra: Array<string>) =>
        callHook(["doctor", "codex", "--settings", file, ...extra], "", { dir, env: { HOME: dir } })
      const nothing = yield* doctor()
      assert.strictEqual(nothing.code, 1)
      assert.include(nothing.stderr, "no hooks are installed")
      assert.include(nothing.stderr, "no registration found")
      const installed = yield* callHook(["install", "codex", "--settings", file, "--registration", reg], "", { dir })
      assert.strictEqual(installed.code, 0, installed.stderr)
      const unregistered = yield* doctor()
      assert.strictEqual(unregistered.code, 1)
      assert.notInclude(unregistered.stderr, "no hooks are installed")
      const untrustedProject = yield* doctor("--registration", reg)
      assert.strictEqual(untrustedProject.code, 1)
      const config = path.join(dir, ".codex", "config.toml")
      assert.strictEqual(
        untrustedProject.stderr,
        `ahp hook doctor: Codex does not trust this project, so it runs none of its hooks: ${config} has no` +
          ` [projects.${JSON.stringify(dir)}] trust_level = "trusted"; run codex exec --trust here once\n`
      )
      fs.mkdirSync(path.dirname(config))
      fs.writeFileSync(config, `model = "m"\n\n[projects.${JSON.stringify(dir)}]\ntrust_level = "untrusted"\n`)
      const distrusted = yield* doctor("--registration", reg)
      assert.strictEqual(distrusted.code, 1)
      assert.include(distrusted.stderr, `has trust_level = "untrusted"; change it to "trusted"`)
      fs.writeFileSync(
        config,
        `[projects.'/elsewhere']\ntrust_level = "trusted"\n\n[projects.${
          JSON.stringify(dir)
        }]\ntrust_level = "trusted" # by codex\n`
      )
      const on = yield* doctor("--registration", reg)
      assert.strictEqual(on.code, 0, on.stderr)
      assert.include(on.stdout, `uses ${reg}`)
      fs.writeFileSync(file, JSON.stringify({ hooks: {} }))
      const removed = yield* doctor("--registration", reg)
      assert.strictEqual(removed.code, 1)
      assert.include(removed.stderr, "has no ahp hook for PreToolUse")
    }))

  it("recognises its own entries, not others", () => {
    const ours = (command: string, host: HostEvents.HostName = "claude-code") =>
      Install.isOurs({ type: "command", command }, host)
    assert.isTrue(ours("ahp hook claude-code"))
    assert.isTrue(
      ours("'/usr/bin/node' '/opt/ahp/dist/hook/ahp-hook.mjs' claude-code --timeout 30"),
      "an entry of an earlier build"
    )
    assert.isTrue(ours("node /x/dist/ahp.mjs hook codex", "codex"))
    assert.isFalse(ours("node /x/dist/ahp.mjs hook codex"))
    assert.isFalse(ours("./my-guard.sh claude-code"))
    assert.isFalse(ours("echo ahp hook claude-codex"))
    assert.isTrue(Install.isOurs(Install.httpHandler(8765, 30), "claude-code"))
    assert.isFalse(Install.isOurs({ type: "http", url: "http://127.0.0.1:8765/other" }, "claude-code"))
    assert.isFalse(Install.isOurs(Install.httpHandler(8765, 30), "codex"))
  })
})
