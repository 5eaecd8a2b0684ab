/**
 * The answer when a call's policy cannot be evaluated, for every event of both hosts: a
 * denial with the generic fail-closed reason only where the host lets a hook block the
 * event and the call fails closed; otherwise the host's "no opinion" with the problem shown
 * to the user. The problem reaches the terminal with its controls escaped.
 */
import { Settlement } from "@effect-ahp/harness"
import { HostEvents, Hosts } from "@effect-ahp/hosts"
import { assert, describe, it } from "@effect/vitest"
import * as Trouble from "../src/Trouble.js"

const problem = "the registration is missing"

describe("Trouble.answer", () => {
  it("for every event of both hosts: denied only when blocking and fail-closed", () => {
    for (const name of HostEvents.hostNames) {
      const host = Hosts.of(name)
      for (const event of Object.values(HostEvents.of(name))) {
        const open = Trouble.answer(host, event, problem, false)
        assert.deepStrictEqual(open, host.noOpinion(problem), `${name} ${event.name} fail-open`)
        const closed = Trouble.answer(host, event, problem, true)
        if (!event.blocking) {
          assert.deepStrictEqual(closed, host.noOpinion(problem), `${name} ${event.name} cannot be blocked`)
          continue
        }
        assert.include(closed.stdout, Settlement.syntheticDenialReason, `${name} ${event.name}`)
        assert.notInclude(closed.stdout, "\"ahp: the registration is missing\"", "the details go to the user")
        assert.include(closed.stdout, `ahp: ${problem} (denied: the policy for ${event.name} fails closed)`)
        assert.strictEqual(closed.stderr, `ahp: ${problem}\n`)
        assert.strictEqual(closed.exitCode, 0)
      }
      assert.deepStrictEqual(Trouble.answer(host, undefined, problem, true), host.noOpinion(problem), "no event known")
    }
  })

  it("the denial as each host reads it: PreToolUse's permission decision, UserPromptSubmit's block", () => {
    for (const name of HostEvents.hostNames) {
      const host = Hosts.of(name)
      const tool = JSON.parse(Trouble.answer(host, HostEvents.find(name, "PreToolUse"), problem, true).stdout)
      assert.deepStrictEqual(tool.hookSpecificOutput, {
        hookEventName: "PreToolUse",
        permissionDecision: "deny",
        permissionDecisionReason: Settlement.syntheticDenialReason
      })
      const prompt = JSON.parse(Trouble.answer(host, HostEvents.find(name, "UserPromptSubmit"), problem, true).stdout)
      assert.strictEqual(prompt.decision, "block")
      assert.strictEqual(prompt.reason, Settlement.syntheticDenialReason)
    }
  })

  it("a problem's terminal controls are escaped on stderr", () => {
    const host = Hosts.of("claude-code")
    const denied = Trouble.answer(host, HostEvents.find("claude-code", "PreToolUse"), "bad\u001b[2J\u202eend", true)
    assert.strictEqual(denied.stderr, "ahp: bad\\u{1b}[2J\\u{202e}end\n")
    assert.notInclude(denied.stdout, "\u001b")
  })
})
