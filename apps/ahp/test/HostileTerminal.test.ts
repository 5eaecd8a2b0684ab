/**
 * Hostile probes: a backend's text never reaches a terminal raw. A deny reason carrying a
 * screen clear (ESC[2J), an OSC 8 link, the C1 control sequence introducer U+009B and bidi
 * overrides is shown escaped by `ahp inspect` and `ahp test`, and written as JSON escapes by
 * `ahp dispatch` and `inspect --json` (which still decode to the backend's reason).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
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
})
