import { ClaudeCode, Host, HostEvents, Hosts } from "@effect-ahp/hosts"
import { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { hostsRoot, outputs } from "./support.js"

const event = (host: HostEvents.HostName, name: string) => HostEvents.find(host, name)!
const v = (fields: Partial<Host.Verdict>): Host.Verdict => ({ ...Host.emptyVerdict, ...fields })

const rendered = (host: HostEvents.HostName, name: string, verdict: Host.Verdict, payload?: Json.JsonObject) => {
  const answer = Hosts.of(host).render(event(host, name), verdict, payload)
  assert.strictEqual(answer.exitCode, 0)
  if (answer.stdout === "") return undefined
  assert.isTrue(answer.stdout.endsWith("\n") && !answer.stdout.slice(0, -1).includes("\n"), "one line")
  return JSON.parse(answer.stdout)
}

/** Each documented output the bridge produces, with the verdict that produces it. */
const claudeGolden: ReadonlyArray<readonly [string, string, Host.Verdict, Json.JsonObject?]> = [
  ["PreToolUse-deny.json", "PreToolUse", v({ permission: "deny", reason: "Destructive command blocked by hook" })],
  [
    "PreToolUse-allow-updatedInput-additionalContext.json",
    "PreToolUse",
    v({
      permission: "allow",
      messages: ["My reason here"],
      input: { field_to_modify: "new value" },
      context: "Current environment: production. Proceed with caution."
    })
  ],
  [
    "PreToolUse-ask-constructed.json",
    "PreToolUse",
    v({
      permission: "ask",
      messages: ["Needs a human look: command touches production"]
    })
  ],
  [
    "PermissionRequest-allow-updatedInput.json",
    "PermissionRequest",
    v({
      permission: "allow",
      input: { command: "npm run lint" }
    })
  ],
  [
    "PermissionRequest-deny-constructed.json",
    "PermissionRequest",
    v({
      permission: "deny",
      reason: "Blocked by repository policy"
    })
  ],
  [
    "PostToolUse-additionalContext.json",
    "PostToolUse",
    v({
      context: "This file is generated. Edit src/schema.ts and run `bun generate` instead."
    })
  ],
  [
    "PostToolUse-updatedToolOutput-additionalContext.json",
    "PostToolUse",
    v({
      output: "[redacted]",
      context: "Additional information for Claude"
    }),
    { tool_response: { stdout: "AWS_SECRET=abc", stderr: "", interrupted: false, isImage: false } }
  ],
  [
    "PostToolUseFailure-additionalContext.json",
    "PostToolUseFailure",
    v({
      context: "Additional information about the failure for Claude"
    })
  ],
  [
    "Stop-block-continue.json",
    "Stop",
    v({
      flow: "continue",
      instructions: ["Must be provided when Claude is blocked from stopping"]
    })
  ],
  ["SubagentStart-additionalContext.json", "SubagentStart", v({ context: "Follow security guidelines for this task" })],
  [
    "UserPromptSubmit-additionalContext.json",
    "UserPromptSubmit",
    v({
      context: "Current branch: release-42. Deploy freeze until Friday."
    })
  ],
  [
    "continue-false-stopReason.json",
    "PostToolUse",
    v({
      flow: "stop",
      stopReason: "Build failed, fix errors before continuing"
    })
  ],
  [
    "decision-block-generic.json",
    "PreCompact",
    v({ permission: "deny", reason: "Test suite must pass before proceeding" })
  ]
]

const codexGolden: ReadonlyArray<readonly [string, string, Host.Verdict, Json.JsonObject?]> = [
  ["PermissionRequest-allow.json", "PermissionRequest", v({ permission: "allow" })],
  [
    "PermissionRequest-deny.json",
    "PermissionRequest",
    v({ permission: "deny", reason: "Blocked by repository policy." })
  ],
  [
    "PostToolUse-block-additionalContext.json",
    "PostToolUse",
    v({
      output: "The Bash output needs review before continuing.",
      context: "The command updated generated files."
    })
  ],
  ["PreToolUse-additionalContext.json", "PreToolUse", v({ context: "The pending command touches generated files." })],
  ["PreToolUse-allow-updatedInput.json", "PreToolUse", v({ input: { command: "echo rewritten" } }), {
    tool_name: "Bash"
  }],
  ["PreToolUse-deny.json", "PreToolUse", v({ permission: "deny", reason: "Destructive command blocked by hook." })],
  [
    "SessionStart-additionalContext.json",
    "SessionStart",
    v({ context: "Load the workspace conventions before editing." })
  ],
  [
    "SubagentStart-additionalContext.json",
    "SubagentStart",
    v({ context: "Review the repository test conventions first." })
  ],
  [
    "Stop-block-continue.json",
    "Stop",
    v({ flow: "continue", instructions: ["Run one more pass over the failing tests."] })
  ],
  [
    "SubagentStop-block-continue.json",
    "SubagentStop",
    v({
      flow: "continue",
      instructions: ["Run one more focused pass inside the subagent."]
    })
  ],
  [
    "UserPromptSubmit-additionalContext.json",
    "UserPromptSubmit",
    v({
      context: "Ask for a clearer reproduction before editing files."
    })
  ],
  [
    "UserPromptSubmit-block.json",
    "UserPromptSubmit",
    v({
      permission: "deny",
      reason: "Ask for confirmation before doing that."
    })
  ]
]

describe.skipIf(hostsRoot === undefined)("documented outputs", () => {
  for (const [host, golden] of [["claude-code", claudeGolden], ["codex", codexGolden]] as const) {
    const documented = outputs(host)
    for (const [file, name, verdict, payload] of golden) {
      it(`${host}/${file}`, () => {
        assert.isTrue(documented.has(file), `${file} is documented`)
        assert.deepStrictEqual(rendered(host, name, verdict, payload), documented.get(file))
      })
    }
  }

  it("claude-code: the documented outputs with fields AHP has no effect for, without them", () => {
    const documented = outputs("claude-code")
    const without = (file: string, strip: (o: any) => void) => {
      const copy = structuredClone(documented.get(file)) as any
      strip(copy)
      return copy
    }
    assert.deepStrictEqual(
      rendered(
        "claude-code",
        "SessionStart",
        v({
          context: (documented.get("SessionStart-additionalContext-sessionTitle.json") as any).hookSpecificOutput
            .additionalContext
        })
      ),
      without("SessionStart-additionalContext-sessionTitle.json", (o) => delete o.hookSpecificOutput.sessionTitle)
    )
    assert.deepStrictEqual(
      rendered(
        "claude-code",
        "UserPromptSubmit",
        v({
          permission: "deny",
          reason: "Explanation for decision",
          context: "My additional context here"
        })
      ),
      without("UserPromptSubmit-block-additionalContext.json", (o) => delete o.hookSpecificOutput.sessionTitle)
    )
  })
})

describe("no opinion", () => {
  it("Claude Code: {}; Codex: empty stdout; a message is visible", () => {
    assert.strictEqual(Hosts.of("claude-code").noOpinion().stdout, "{}\n")
    assert.strictEqual(Hosts.of("codex").noOpinion().stdout, "")
    for (const name of HostEvents.hostNames) {
      const answer = Hosts.of(name).noOpinion("no registration found")
      assert.deepStrictEqual(JSON.parse(answer.stdout), { systemMessage: "ahp: no registration found" })
      assert.strictEqual(answer.stderr, "ahp: no registration found\n")
    }
    assert.strictEqual(rendered("codex", "PreToolUse", Host.emptyVerdict), undefined)
    assert.deepStrictEqual(rendered("claude-code", "PreToolUse", Host.emptyVerdict), {})
  })
})

describe("rewrites and denials the host cannot express directly", () => {
  it("Claude Code: a rewrite without a permission asks, never approves", () => {
    assert.deepStrictEqual(rendered("claude-code", "PreToolUse", v({ input: { command: "ls" } })), {
      hookSpecificOutput: {
        hookEventName: "PreToolUse",
        permissionDecision: "ask",
        permissionDecisionReason: "a policy rewrote this call: confirm the rewritten input",
        updatedInput: { command: "ls" }
      }
    })
  })

  it("Claude Code: a permission-request rewrite without allow is a visible deny", () => {
    const out = rendered("claude-code", "PermissionRequest", v({ input: { command: "ls" } }))
    assert.strictEqual(out.hookSpecificOutput.decision.behavior, "deny")
    assert.include(out.systemMessage, "only with allow")
  })

  it("Claude Code: an output of no known shape is reported, not dropped", () => {
    const out = rendered("claude-code", "PostToolUse", v({ output: "x" }), {
      tool_response: { filePath: "/a", success: true }
    })
    assert.isUndefined(out.hookSpecificOutput)
    assert.include(out.systemMessage, "does not fit")
    assert.deepStrictEqual(ClaudeCode.shapeOutput({ filePath: "/a" }, "{\"filePath\":\"/b\"}"), { filePath: "/b" })
    assert.strictEqual(ClaudeCode.shapeOutput("old", "new"), "new")
  })

  it("Codex: a shell rewrite without a command string is denied", () => {
    const out = rendered("codex", "PreToolUse", v({ input: { cmd: "ls" } }), { tool_name: "Bash" })
    assert.strictEqual(out.hookSpecificOutput.permissionDecision, "deny")
  })

  it("a fail-closed denial at an event the host cannot block is reported, not claimed", () => {
    for (const name of HostEvents.hostNames) {
      const out = rendered(name, "SessionStart", v({ permission: "deny", reason: "x", synthetic: true }))
      assert.include(out.systemMessage, "does not let a hook block")
      assert.isUndefined(out.decision)
    }
  })
})

/** Fields Codex accepts per event (its output structs reject any other field). */
const codexTop: Readonly<Record<string, ReadonlyArray<string>>> = {
  PreToolUse: ["systemMessage", "hookSpecificOutput"],
  PermissionRequest: ["systemMessage", "hookSpecificOutput"],
  PostToolUse: ["decision", "reason", "continue", "stopReason", "systemMessage", "hookSpecificOutput"],
  UserPromptSubmit: ["decision", "reason", "continue", "stopReason", "systemMessage", "hookSpecificOutput"],
  Stop: ["decision", "reason", "continue", "stopReason", "systemMessage"],
  SubagentStop: ["decision", "reason", "continue", "stopReason", "systemMessage"],
  SessionStart: ["continue", "stopReason", "systemMessage", "hookSpecificOutput"],
  SubagentStart: ["systemMessage", "hookSpecificOutput"],
  PreCompact: ["continue", "stopReason", "systemMessage"],
  PostCompact: ["continue", "stopReason", "systemMessage"],
  SessionEnd: [],
  Interrupt: []
}

const codexSpecific: Readonly<Record<string, ReadonlyArray<string>>> = {
  PreToolUse: ["hookEventName", "permissionDecision", "permissionDecisionReason", "updatedInput", "additionalContext"],
  PermissionRequest: ["hookEventName", "decision"],
  PostToolUse: ["hookEventName", "additionalContext"],
  UserPromptSubmit: ["hookEventName", "additionalContext"],
  SessionStart: ["hookEventName", "additionalContext"],
  SubagentStart: ["hookEventName", "additionalContext"]
}

/** A random verdict carrying only effects the event advertises. */
const verdictFor = (host: HostEvents.HostName, name: string) => {
  const caps = Hosts.of(host).capabilities(event(host, name))
  const has = (kind: string) => caps?.effects.includes(kind as any) === true
  const permissions = ["none", ...["deny", "allow", "ask"].filter(has)] as Array<Host.Verdict["permission"]>
  const flows = ["none", ...(caps?.flow?.operations ?? [])] as Array<Host.Verdict["flow"]>
  const text = FastCheck.string({ minLength: 1, maxLength: 12 })
  return FastCheck.record({
    permission: FastCheck.constantFrom(...permissions),
    reason: text,
    input: has("modify") && caps?.modify?.input !== undefined
      ? FastCheck.option(FastCheck.dictionary(FastCheck.constantFrom("command", "path"), text), { nil: undefined })
      : FastCheck.constant(undefined),
    output: has("modify") && caps?.modify?.output !== undefined
      ? FastCheck.option(text, { nil: undefined })
      : FastCheck.constant(undefined),
    context: has("inject") ? FastCheck.option(text, { nil: undefined }) : FastCheck.constant(undefined),
    messages: has("message") ? FastCheck.array(text, { maxLength: 2 }) : FastCheck.constant([]),
    flow: FastCheck.constantFrom(...flows),
    stopReason: text,
    instructions: FastCheck.array(text, { maxLength: 2 }),
    synthetic: FastCheck.boolean()
  }).map((r) => ({ ...r, reason: r.permission === "deny" ? r.reason : undefined }) as Host.Verdict)
}

describe("every advertised combination renders within the host's output contract", () => {
  for (const name of Object.keys(codexTop)) {
    it.prop(`codex ${name}: only fields Codex accepts there`, [verdictFor("codex", name)], ([verdict]) => {
      const out = rendered("codex", name, verdict, { tool_name: "Bash" })
      if (out === undefined) return
      for (const key of Object.keys(out)) assert.isTrue(codexTop[name]!.includes(key), key)
      if (out.hookSpecificOutput !== undefined) {
        assert.strictEqual(out.hookSpecificOutput.hookEventName, name)
        for (const key of Object.keys(out.hookSpecificOutput)) assert.isTrue(codexSpecific[name]!.includes(key), key)
        assert.notInclude(["ask"], out.hookSpecificOutput.permissionDecision)
        if (out.hookSpecificOutput.updatedInput !== undefined) {
          assert.strictEqual(out.hookSpecificOutput.permissionDecision, "allow")
        }
      }
    }, { fastCheck: { numRuns: 200 } })
  }

  for (const hostEvent of HostEvents.mapped("claude-code")) {
    it.prop(`claude-code ${hostEvent.name}: one object, its own event name, a deny wins`, [
      verdictFor("claude-code", hostEvent.name)
    ], ([verdict]) => {
      const out = rendered("claude-code", hostEvent.name, verdict, { tool_response: "out" })
      assert.isTrue(Json.isObject(out))
      if (out.hookSpecificOutput !== undefined) assert.strictEqual(out.hookSpecificOutput.hookEventName, hostEvent.name)
      if (verdict.permission === "deny" && hostEvent.blocking) {
        const denied = out.decision === "block" || out.hookSpecificOutput?.permissionDecision === "deny" ||
          out.hookSpecificOutput?.decision?.behavior === "deny"
        assert.isTrue(denied, JSON.stringify(out))
      }
      if (verdict.permission !== "allow") {
        assert.notStrictEqual(out.hookSpecificOutput?.permissionDecision, "allow")
        assert.notStrictEqual(out.hookSpecificOutput?.decision?.behavior, "allow")
      }
    }, { fastCheck: { numRuns: 200 } })
  }
})
