/**
 * `ahp demo` run for real: it finishes, prints the expected decisions, the host answers of
 * the bridge session and the audit log, uses no colour when stdout is not a terminal, and
 * leaves no process behind. It runs the bundle through a link of its own, which every
 * process it starts names on its command line, so other tests running the bundle meanwhile
 * are not mistaken for leftovers.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { scaled } from "../../../test/support/load.js"
import { bundle, runCli, tempDir } from "./support.js"

const processesOf = (path: string): Array<string> =>
  execFileSync("ps", ["-eo", "pid,args"], { encoding: "utf8" }).split("\n").filter((line) => line.includes(path))

describe("ahp demo", () => {
  it.scopedLive("walks the scripted session and prints the expected decisions", () =>
    Effect.gen(function*() {
      const link = path.join(yield* tempDir, "ahp.mjs")
      fs.symlinkSync(bundle, link)
      const started = Date.now()
      const run = yield* runCli(["demo"], { command: [link] })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.isBelow(Date.now() - started, scaled(30_000))
      const out = run.stdout
      assert.notInclude(out, "\u001b[")
      assert.match(out, /com\.example\.shell-guard\s+stdio\s+child process: node \S*ahp\.mjs serve shell-guard --stdio/)
      assert.match(out, /com\.example\.assistant\s+http\s+http:\/\/127\.0\.0\.1:\d+\//)
      for (
        const expected of [
          /\[1\] turn\.start[\s\S]*inject context \(now\)[\s\S]*⇒ none/,
          /\[2\] tool\.before\s+bash: ls -la build[\s\S]*answered in \d+ ms[^:\n]*: allow[\s\S]*⇒ allow/,
          /\[3\] tool\.before\s+bash: rm -rf \/[\s\S]*⇒ deny — "a recursive forced delete/,
          /\[4\] tool\.before\s+bash: git push --force origin main[\s\S]*⇒ ask/,
          /\[5\] tool\.after[\s\S]*modify output \(replace\)[\s\S]*edited: .*\[REDACTED:github-token\]/,
          /\[6\] tool\.before[\s\S]*no answer within 300 ms[\s\S]*fail-open: recorded, the chain goes on[\s\S]*⇒ allow/,
          /\[7\] tool\.before[\s\S]*fail-closed: a synthetic denial[\s\S]*not called: the decision was already made[\s\S]*⇒ deny — "Required policy backend unavailable" \(synthetic/
        ]
      ) assert.match(out, expected)
      assert.match(out, /\[5\] tool\.after\s+bash: cat \.env → "GITHUB_TOKEN=ghp_demo/)
      assert.match(out, /Audit log \(7 lines/)
      const audit = out.slice(out.indexOf("Audit log"), out.indexOf("Summary"))
      assert.notMatch(audit, /ghp_demo/)
      assert.match(audit, /REDACTED:github-token/)
      const summary = out.slice(out.indexOf("Summary"))
      assert.deepStrictEqual([...summary.matchAll(/([✓✗]) \[\d\] \S+\s+(\w+)/g)].map((m) => `${m[1]} ${m[2]}`), [
        "✓ none",
        "✓ allow",
        "✓ deny",
        "✓ ask",
        "✓ none",
        "✓ allow",
        "✓ deny"
      ])
      const bridged = out.slice(out.indexOf("Part 3"), out.indexOf("Audit log"))
      assert.match(
        bridged,
        /\[b3\] Claude Code: a destructive command {2}\(http hook\)\n {4}⇒ \{"hookSpecificOutput":\{"hookEventName":"PreToolUse","permissionDecision":"deny"/
      )
      assert.match(
        bridged,
        /\[b5\] Codex[^\n]*\(command hook, forwarded over the socket\)\n[^\n]*"permissionDecision":"deny"/
      )
      assert.match(
        bridged,
        /\[b6\] Codex[^\n]*\n {4}⇒ \{"decision":"block","reason":"GITHUB_TOKEN=\[REDACTED:github-token\]/
      )
      assert.notMatch(bridged, /ghp_demo/)
      assert.deepStrictEqual([...summary.matchAll(/([✓✗]) \[b\d\] (\S+)/g)].map((m) => `${m[1]} ${m[2]}`), [
        "✓ claude-code",
        "✓ claude-code",
        "✓ claude-code",
        "✓ claude-code",
        "✓ codex",
        "✓ codex"
      ])
      assert.deepStrictEqual(processesOf(link), [])
    }))
})
