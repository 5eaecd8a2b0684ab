/**
 * Hostile probes: a backend's text never reaches a terminal raw. A deny reason carrying a
 * screen clear (ESC[2J), an OSC 8 link, the C1 control sequence introducer U+009B and bidi
 * overrides is shown escaped by `ahp inspect` and `ahp test`, and written as JSON escapes by
 * `ahp dispatch` and `inspect --json` (which still decode to the backend's reason). The same
 * reason with a newline, recorded in an audit file, is shown escaped by `ahp replay` (also
 * when the audit file itself was edited to hold raw controls); an `ahp test` policy file
 * whose case name and expected reason carry them is reported escaped; `ahp hook doctor`
 * names a registration whose path carries them escaped; the trace `ahp demo` prints shows
 * them escaped, with colour on.
 */
import { Hooks } from "@effect-ahp/harness"
import * as Recorder from "@effect-ahp/hook/Recorder"
import { NodeTransports } from "@effect-ahp/node"
import * as Style from "@effect-ahp/tools/Style"
import * as Trace from "@effect-ahp/tools/Trace"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { callHook } from "./hookSupport.js"
import { runInProcess } from "./inProcess.js"
import { intercept, registration, scriptedStdio, tempDir, toolBefore, writeFile } from "./support.js"

const reason =
  "no\u001b[2J\u001b]8;;https://evil.example\u0007link\u001b]8;;\u0007\u009b31m\u202eevil\u2066x\u2069\u007f"
const raw = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/

const backend = (dir: string) => ({
  id: "com.example.hostile",
  transport: scriptedStdio(`deny=${reason}`, `${dir}/log`)
})

describe("hostile: terminal escapes in backends' text", () => {
  it.scopedLive("inspect shows a hostile deny reason escaped, and --json keeps it as JSON escapes", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const args = [
        "inspect",
        "--backend",
        writeFile(dir, "backend.json", backend(dir)),
        "--event",
        writeFile(dir, "event.json", toolBefore("rm -rf /"))
      ]
      const human = yield* runInProcess(args)
      assert.strictEqual(human.code, 0, human.stderr)
      assert.include(human.stdout, "\\u{1b}[2J")
      assert.include(human.stdout, "\\u{9b}31m")
      assert.include(human.stdout, "\\u{202e}evil")
      assert.notMatch(human.stdout, raw)
      assert.notMatch(human.stderr, raw)
      const json = yield* runInProcess([...args, "--json"])
      assert.strictEqual(json.code, 0, json.stderr)
      assert.notMatch(json.stdout, raw)
      assert.deepStrictEqual(JSON.parse(json.stdout).effects, [{ type: "deny", reason }])
    }))

  it.scopedLive("dispatch writes the hostile reason as JSON escapes, never raw", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const reg = writeFile(
        dir,
        "registration.json",
        registration({
          ...backend(dir),
          subscriptions: [intercept(["tool.before"])]
        })
      )
      const run = yield* runInProcess([
        "dispatch",
        "--registration",
        reg,
        "--event",
        writeFile(dir, "event.json", toolBefore("rm -rf /"))
      ])
      assert.strictEqual(run.code, 0, run.stdout)
      assert.notMatch(run.stdout, raw)
      assert.notMatch(run.stderr, raw)
      assert.include(run.stdout, "\\u009b31m")
      assert.include(JSON.stringify(JSON.parse(run.stdout)), JSON.stringify(reason).slice(1, -1))
    }))

  it.scopedLive("replay of an audit holding the reason and a newline, edited or not, shows it escaped", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const hostile = { ...backend(dir), transport: scriptedStdio(`deny=${reason}\nline two`, `${dir}/log`) }
      const reg = writeFile(
        dir,
        "registration.json",
        registration({ ...hostile, subscriptions: [intercept(["tool.before"])] })
      )
      const audit = path.join(dir, "audit.jsonl")
      const event = writeFile(dir, "event.json", toolBefore("rm -rf /"))
      const recorded = yield* runInProcess([
        "dispatch",
        "--registration",
        reg,
        "--event",
        event,
        "--audit",
        audit,
        "--audit-content"
      ])
      assert.strictEqual(recorded.code, 0, recorded.stderr)
      const other = writeFile(
        dir,
        "other.json",
        registration({
          id: "com.example.allow",
          transport: scriptedStdio("ok", `${dir}/other-log`),
          subscriptions: [intercept(["tool.before"])]
        })
      )
      // the audit file edited so that its JSON strings hold raw controls where JSON allows them
      const edited = path.join(dir, "edited.jsonl")
      fs.writeFileSync(
        edited,
        fs.readFileSync(audit, "utf8").replace(/\\u009b/g, "\u009b").replace(/\\u202e/g, "\u202e")
      )
      for (const file of [audit, edited]) {
        for (const against of [reg, other]) {
          const replayed = yield* runInProcess(["replay", file, "--registration", against])
          assert.notMatch(replayed.stdout, raw, `${file} against ${against}: ${replayed.stdout}`)
          assert.notMatch(replayed.stderr, raw, `${file} against ${against}: ${replayed.stderr}`)
        }
      }
      const differs = yield* runInProcess(["replay", audit, "--registration", other])
      assert.include(differs.stdout, "1 changed", differs.stdout)
    }))

  it.scopedLive("ahp test: a case name and an expected reason with controls are reported escaped", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      writeFile(
        dir,
        "registration.json",
        registration({ ...backend(dir), subscriptions: [intercept(["tool.before"])] })
      )
      const run = yield* runInProcess([
        "test",
        writeFile(dir, "case.json", {
          name: `rm\u001b[2J\n\u009b31m is ${reason}`,
          registration: "registration.json",
          event: toolBefore("rm -rf /"),
          expect: { decision: "allow", messages: [`other\u001b]8;;x\u0007\r\n`] }
        })
      ])
      assert.strictEqual(run.code, 1, run.stdout + run.stderr)
      assert.include(run.stdout, "rm\\u{1b}[2J\\u{a}\\u{9b}31m is no", "the name is one line, escaped")
      assert.notMatch(run.stdout, raw, run.stdout)
      assert.notMatch(run.stderr, raw, run.stderr)
    }))

  it.scopedLive("ahp hook doctor names a registration whose path carries controls escaped", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const folder = path.join(dir, "reg\u001b[2J\n\u009b31m\u202e")
      fs.mkdirSync(folder, { mode: 0o700 })
      const reg = writeFile(
        folder,
        "registration.json",
        registration({ ...backend(dir), subscriptions: [intercept(["tool.before"])] })
      )
      const settings = path.join(dir, "settings.json")
      const installed = yield* callHook(["install", "claude-code", "--settings", settings, "--registration", reg], "", {
        dir
      })
      assert.strictEqual(installed.code, 0, installed.stderr)
      assert.notMatch(installed.stdout, raw, installed.stdout)
      for (const file of [reg, path.join(folder, "missing.json")]) {
        const run = yield* callHook(["doctor", "claude-code", "--settings", settings, "--registration", file], "", {
          dir
        })
        assert.notMatch(run.stdout, raw, run.stdout)
        assert.notMatch(run.stderr, raw, run.stderr)
        assert.include(run.stdout + run.stderr, "reg\\u{1b}[2J\\u{a}\\u{9b}31m", run.stdout + run.stderr)
      }
    }))

  it.scopedLive("the demo's trace shows the hostile reason and step title escaped, with colour on", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const hooks = yield* Hooks.makeUnknown(
        registration({ ...backend(dir), subscriptions: [intercept(["tool.before"])] })
      )
      const event = toolBefore("rm -rf /")
      const { result, text } = yield* Trace.dispatched(
        hooks,
        { n: 1, type: "tool.before", input: event, title: "a title\u009b31m" },
        Style.style(true)
      )
      assert.strictEqual(result.decision.permission, "deny")
      const shown = text.replace(/\u001b\[[0-9;]*m/g, "")
      assert.notMatch(shown, raw, shown)
      assert.include(shown, "\\u{1b}[2J\\u{1b}]8;;https://evil.example")
      assert.include(shown, "a title\\u{9b}31m")
    }).pipe(Effect.provide(Recorder.layer), Effect.provide(NodeTransports.layerNode())))
})
