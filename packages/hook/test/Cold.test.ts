/**
 * The command hook's own dispatch, run in-process: a registration that is missing,
 * unreadable, not JSON or invalid is reported with "no opinion", or denied for a blocking
 * event when the call fails closed or the invalid registration shows a fail-closed intent
 * for the event; a registration that compiles is summarised for the cache and answers the
 * payload (an unreadable payload denied as its compiled summary says). The answer is handed
 * over once, and `settled` resolves no later than the result.
 */
import { Settlement } from "@effect-ahp/harness"
import { HostEvents } from "@effect-ahp/hosts"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as Cold from "../src/Cold.js"
import type * as Locate from "../src/Locate.js"

const preToolUse = HostEvents.find("claude-code", "PreToolUse")!
const postToolUse = HostEvents.find("claude-code", "PostToolUse")!

const bash = JSON.stringify({
  session_id: "s",
  cwd: "/work",
  hook_event_name: "PreToolUse",
  permission_mode: "default",
  tool_name: "Bash",
  tool_input: { command: "ls", description: "a command" },
  tool_use_id: "toolu_1"
})

/** A registration whose one HTTP backend (nothing listens there) intercepts `tool.before`. */
const registration = (failurePolicy: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({
    protocolVersion: "draft",
    hooks: [{
      id: "com.example.guard",
      transport: { type: "http", url: "http://127.0.0.1:9/hooks" },
      subscriptions: [{
        mode: "intercept",
        events: ["tool.before"],
        timeoutMs: 5_000,
        failurePolicy,
        content: { default: "body" },
        ...extra
      }]
    }]
  })

const found = (text: string): Locate.Located => ({ _tag: "Found", file: "/nowhere/registration.json", text })

/** Runs one invocation to its end; the results handed to `onAnswer`, and whether `settled` came first. */
const invoke = (overrides: Partial<Cold.Request>) =>
  Effect.promise(async () => {
    const answers: Array<Cold.Result> = []
    const running = Cold.run({
      host: "claude-code",
      exitGraceMs: 100,
      payload: { _tag: "Text", text: bash },
      event: preToolUse,
      registration: { _tag: "Missing", searched: ["/p/.ahp/registration.json"] },
      deadline: Date.now() + 20_000,
      failClosed: false,
      verbose: false,
      source: undefined,
      audit: { file: undefined, content: false },
      onAnswer: (result) => void answers.push(result),
      ...overrides
    })
    let settledFirst = false
    await running.settled.then(() => (settledFirst = answers.length === 1))
    const result = await running.result
    return { answers, result, settledFirst }
  })

const denied = (stdout: string) => {
  const out = JSON.parse(stdout)
  return out.hookSpecificOutput?.permissionDecision === "deny" &&
    out.hookSpecificOutput.permissionDecisionReason === Settlement.syntheticDenialReason
}

describe("Cold.run", () => {
  it.live("a missing registration: no opinion saying where to put one; denied when the call fails closed", () =>
    Effect.gen(function*() {
      const open = yield* invoke({})
      assert.strictEqual(open.answers.length, 1)
      assert.isTrue(open.settledFirst, "settled once the answer was handed over")
      assert.deepStrictEqual(open.result, open.answers[0])
      const message = "no AHP registration found (pass --registration, set AHP_REGISTRATION_FILE, or create " +
        "/p/.ahp/registration.json)"
      assert.strictEqual(JSON.parse(open.result!.answer.stdout).systemMessage, `ahp: ${message}`)
      assert.isUndefined(open.result!.summary)
      const closed = yield* invoke({ failClosed: true })
      assert.isTrue(denied(closed.result!.answer.stdout))
      const notice = yield* invoke({
        registration: { _tag: "Missing", searched: [], notice: "the project registration X is not trusted" }
      })
      assert.strictEqual(
        JSON.parse(notice.result!.answer.stdout).systemMessage,
        "ahp: the project registration X is not trusted"
      )
    }))

  it.live("an unreadable or non-JSON registration is reported, and denied under --fail-closed only", () =>
    Effect.gen(function*() {
      const unreadable = yield* invoke({
        registration: { _tag: "Unreadable", file: "/r.json", reason: "permission denied" },
        failClosed: true
      })
      assert.isTrue(denied(unreadable.result!.answer.stdout))
      assert.strictEqual(
        unreadable.result!.answer.stderr,
        "ahp: cannot read the AHP registration /r.json: permission denied\n"
      )
      const notJson = yield* invoke({ registration: found("{\"hooks\": [") })
      assert.match(
        JSON.parse(notJson.result!.answer.stdout).systemMessage,
        /^ahp: the AHP registration \/nowhere\/registration\.json is not JSON: /
      )
    }))

  it.live("an invalid registration: denied where it shows a fail-closed intent for the event", () =>
    Effect.gen(function*() {
      const invalid = registration("fail-closed", { timeoutMs: -1 })
      const blocking = yield* invoke({ registration: found(invalid) })
      assert.isTrue(denied(blocking.result!.answer.stdout))
      assert.include(
        blocking.result!.answer.stderr,
        "ahp: the AHP registration /nowhere/registration.json is invalid: "
      )
      assert.isUndefined(blocking.result!.summary, "an invalid registration is never cached")
      const other = yield* invoke({ registration: found(invalid), event: postToolUse })
      assert.isFalse(denied(other.result!.answer.stdout), "no intent for tool.after")
      const open = yield* invoke({ registration: found(registration("fail-open", { timeoutMs: -1 })) })
      assert.isFalse(denied(open.result!.answer.stdout))
    }))

  it.live("a registration that compiles is summarised, and an unreadable payload denied as the summary says", () =>
    Effect.gen(function*() {
      const compiled = yield* invoke({ registration: found(registration("fail-closed")) })
      assert.deepStrictEqual(compiled.result!.summary, { PreToolUse: { routes: 1, failClosed: true } })
      assert.isTrue(denied(compiled.result!.answer.stdout), "the unreachable fail-closed backend denies")
      const unreadable = yield* invoke({
        registration: found(registration("fail-closed")),
        payload: { _tag: "Unreadable", problem: "the hook payload is not valid UTF-8" }
      })
      assert.isTrue(denied(unreadable.result!.answer.stdout))
      assert.strictEqual(unreadable.result!.answer.stderr, "ahp: the hook payload is not valid UTF-8\n")
      const elsewhere = yield* invoke({
        registration: found(registration("fail-closed")),
        payload: { _tag: "Unreadable", problem: "the hook payload is not valid UTF-8" },
        event: postToolUse
      })
      assert.isFalse(denied(elsewhere.result!.answer.stdout), "nothing fail-closed selects PostToolUse")
      assert.deepStrictEqual(elsewhere.result!.summary, { PreToolUse: { routes: 1, failClosed: true } })
    }))
})
