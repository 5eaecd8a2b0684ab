import { HostEvents, Hosts } from "@effect-ahp/hosts"
import type { Host } from "@effect-ahp/hosts"
import { Decoder, Event, Issue, Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Either, FastCheck } from "effect"
import { hostsRoot, payloads } from "./support.js"

const time = "2026-08-24T08:51:14Z"
const validators = new Map<string, (u: unknown) => Array<Issue.Issue>>()
const problems = (type: Event.EventType, event: Json.JsonObject) => {
  let validate = validators.get(type)
  if (validate === undefined) {
    validate = Decoder.validator(Event.schemaFor(type) as any)
    validators.set(type, validate)
  }
  return validate(event)
}

const mapped = (host: Host.Host, payload: Json.JsonValue, includeNative = false): Host.Mapped => {
  const result = host.map(payload, { time, includeNative })
  if (Either.isLeft(result)) throw new Error(result.left.message)
  if (result.right._tag !== "Event") throw new Error(`${result.right.event.name} is passed through`)
  return result.right
}

/** The host event a sample file is named after (`notify-…`: the legacy notify payload). */
const hostEventOf = (file: string) =>
  file.startsWith("notify-") ? "agent-turn-complete" : file.slice(0, file.indexOf("-"))

describe.skipIf(hostsRoot === undefined)("every payload of ../shared/hosts", () => {
  for (const name of HostEvents.hostNames) {
    const host = Hosts.of(name)
    for (const sample of payloads(name)) {
      const expected = HostEvents.find(name, hostEventOf(sample.file))
      if (expected?.type === undefined) {
        it(`${name}/${sample.file}: passed through as "no opinion"`, () => {
          assert.isDefined(expected)
          const result = host.map(sample.value, { time, includeNative: false })
          assert.isTrue(Either.isRight(result) && result.right._tag === "PassThrough")
        })
        continue
      }
      it(`${name}/${sample.file}: maps to a valid event of the documented type`, () => {
        const result = mapped(host, sample.value)
        assert.strictEqual(result.type, expected!.type)
        assert.deepStrictEqual(problems(result.type, result.input), [])
        assert.isFalse("native" in result.input)
        assert.strictEqual(result.input.source, `urn:effect-ahp:${name}`)
        assert.strictEqual(result.input.id, mapped(host, Json.clone(sample.value)).input.id, "deterministic id")
        const native = mapped(host, sample.value, true).input
        assert.deepStrictEqual(native.native, sample.value)
        assert.deepStrictEqual(problems(result.type, native), [])
      })
    }
    it(`${name}: distinct payloads get distinct event ids`, () => {
      const ids = payloads(name)
        .filter((s) => HostEvents.find(name, hostEventOf(s.file))?.type !== undefined)
        .map((s) => mapped(host, s.value).input.id)
      assert.strictEqual(new Set(ids).size, ids.length)
    })
  }
})

const sample = (host: "claude-code" | "codex", file: string) => {
  const found = payloads(host).find((s) => s.file === file)
  if (found === undefined) throw new Error(`${file} is missing`)
  return mapped(Hosts.of(host), found.value).input as any
}

describe.skipIf(hostsRoot === undefined)("mapped fields", () => {
  it("a native tool call keeps its name, id, kind and input", () => {
    const event = sample("claude-code", "PreToolUse-Bash-captured.json")
    assert.deepStrictEqual(event.call, { id: "toolu_01WNqkPV8Hcvfr9qZiid689C" })
    assert.deepStrictEqual(event.tool, {
      name: "Bash",
      kind: "shell",
      input: { command: "date \"+%Y-%m-%d %H:%M:%S %Z\"", description: "Get current date and time for log" },
      origin: "native"
    })
    assert.strictEqual(event.path, "native")
    assert.deepStrictEqual(event.session, {
      id: "c58d079f-f4a9-4dbe-8010-975864e69159",
      cwd: "/Users/jairo/Projects/casacolinacare-v2",
      agent: { id: "claude", type: "claude" }
    })
  })

  it("a call without a tool_use_id gets a synthesized, stable id", () => {
    const task = sample("claude-code", "PreToolUse-Task-captured-2025.json")
    assert.strictEqual(task.call.synthesized, true)
    assert.match(task.call.id, /^call_[0-9a-f]{32}$/)
    assert.strictEqual(task.tool.kind, "task")
    const request = sample("claude-code", "PermissionRequest-Bash-doc.json")
    assert.strictEqual(request.call.synthesized, true)
    assert.deepStrictEqual(request.suggestions, [{
      type: "addRules",
      rules: [{ toolName: "Bash", ruleContent: "rm -rf node_modules" }],
      behavior: "allow",
      destination: "localSettings"
    }])
  })

  it("MCP tools have the mcp origin, path and an inferred server descriptor", () => {
    const event = sample("claude-code", "PreToolUse-mcp-agenthooks.json")
    assert.strictEqual(event.tool.origin, "mcp")
    assert.strictEqual(event.tool.kind, "mcp")
    assert.strictEqual(event.path, "mcp")
    assert.deepStrictEqual(event.tool.mcp.server, { id: "github", name: "github" })
    assert.strictEqual(event.tool.mcp.toolName, "create_issue")
    assert.strictEqual(event.tool.mcp.provenance, "inferred")
    assert.strictEqual(
      sample("claude-code", "PreToolUse-mcp-captured-2025.json").tool.mcp.toolName,
      "resolve-library-id"
    )
  })

  it("tool results become one tool message; failures an error outcome", () => {
    const after = sample("claude-code", "PostToolUse-Bash-captured.json")
    assert.strictEqual(after.outcome, "ok")
    assert.strictEqual(after.durationMs, 27)
    assert.deepStrictEqual(JSON.parse(after.items[0].parts[0].text).stdout, "2026-06-21 17:15:07 PDT")
    const codex = sample("codex", "PostToolUse-Bash-captured.json")
    assert.strictEqual(codex.items[0].parts[0].text, "line1\nline2\n")
    assert.deepStrictEqual(codex.turn, { id: "019fdd0e-01dd-7400-9c26-fa44052a22cc" })
    const failure = sample("claude-code", "PostToolUseFailure-Bash-doc.json")
    assert.strictEqual(failure.outcome, "error")
    assert.deepStrictEqual(failure.error, { class: "tool", message: "Exit code 1" })
    assert.strictEqual(failure.items[0].role, "tool")
    assert.strictEqual(failure.items[0].parts[0].text, "Exit code 1\nError: Cannot find module 'express'")
  })

  it("a failure's text is the event's output: the error object holds no more than `Exit code N`", () => {
    const event = mapped(Hosts.of("claude-code"), {
      ...payloads("claude-code").find((s) => s.file === "PostToolUseFailure-Bash-doc.json")!.value,
      error: "Invalid token ghp_0123456789abcdefghijklmnopqrstuvwxyz"
    }).input as any
    assert.deepStrictEqual(event.error, { class: "tool", message: "the tool failed" })
    assert.strictEqual(event.items[0].parts[0].text, "Invalid token ghp_0123456789abcdefghijklmnopqrstuvwxyz")
  })

  it("a batch's calls: a hook's denial is denied and skipped, `Exit code N` an error, the results its items", () => {
    const payload = {
      session_id: "s1",
      hook_event_name: "PostToolBatch",
      tool_calls: [
        {
          tool_name: "Bash",
          tool_input: { command: "mkfs.ext4 /dev/sdz" },
          tool_use_id: "toolu_1",
          tool_response: "PreToolUse:Bash hook error: mkfs formats a file system"
        },
        { tool_name: "Bash", tool_input: { command: "false" }, tool_use_id: "toolu_2", tool_response: "Exit code 1" },
        { tool_name: "Bash", tool_input: { command: "echo ok" }, tool_use_id: "toolu_3", tool_response: "ok" },
        {
          tool_name: "Read",
          tool_input: { file_path: "/x" },
          tool_use_id: "toolu_4",
          tool_response: "PreToolUse:Bash hook error: not this tool's denial"
        }
      ]
    }
    const event = mapped(Hosts.of("claude-code"), payload).input as any
    assert.deepStrictEqual(problems("tool.batch.after", event), [])
    assert.deepStrictEqual(event.calls.map((c: any) => [c.outcome, c.execution]), [
      ["denied", { status: "skipped", reason: "policy", detail: "denied by a hook" }],
      ["error", { status: "executed" }],
      ["ok", { status: "executed" }],
      ["ok", { status: "executed" }]
    ])
    assert.deepStrictEqual(event.items.map((part: any) => part.text), payload.tool_calls.map((c) => c.tool_response))
  })

  it("prompts, stops, sessions, compaction and notifications", () => {
    const prompt = sample("claude-code", "UserPromptSubmit-agenthooks.json")
    assert.deepStrictEqual(prompt.turn, { id: "prompt-77" })
    assert.strictEqual(prompt.items[0].role, "user")
    assert.strictEqual(prompt.items[0].parts[0].text, "refactor the auth middleware")
    assert.strictEqual(sample("claude-code", "UserPromptSubmit-captured.json").turn.synthesized, true)
    assert.strictEqual(sample("claude-code", "Stop-doc.json").continuationCount, 1)
    assert.strictEqual(sample("claude-code", "Stop-captured.json").continuationCount, 0)
    const start = sample("claude-code", "SessionStart-compact-captured.json")
    assert.strictEqual(start.trigger, "compact")
    assert.strictEqual(start.session.model, "claude-sonnet-4-6")
    assert.deepStrictEqual(start.manifest, Hosts.of("claude-code").manifest)
    assert.deepStrictEqual(sample("claude-code", "SubagentStart-doc.json").session.agent, {
      id: "agent-abc123",
      type: "Explore"
    })
    assert.isFalse("instructions" in sample("claude-code", "PreCompact-manual-captured.json"))
    assert.strictEqual(sample("claude-code", "Notification-idle_prompt-captured.json").attention.kind, "idle_prompt")
    assert.strictEqual(sample("claude-code", "SessionEnd-other-doc.json").outcome, "unknown")
    assert.strictEqual(sample("codex", "SessionStart-startup-captured.json").session.model, "gpt-5.5")
    const notify = sample("codex", "notify-agent-turn-complete.json")
    assert.deepStrictEqual(notify.session, {
      id: "b5f6c1c2-1111-2222-3333-444455556666",
      cwd: "/Users/example/project"
    })
    assert.deepStrictEqual(notify.turn, { id: "12345" })
    assert.deepStrictEqual(notify.items.map((m: any) => [m.role, m.parts[0].text]), [
      ["user", "Rename `foo` to `bar` and update the callsites."],
      ["assistant", "Rename complete and verified `cargo build` succeeds."]
    ])
  })
})

describe("payloads that cannot be mapped", () => {
  const claude = Hosts.of("claude-code")
  const error = (payload: Json.JsonValue) => {
    const result = claude.map(payload, { time, includeNative: false })
    if (Either.isRight(result)) throw new Error("mapped")
    return result.left
  }

  it("not an object, an unknown event, a known event with wrong fields", () => {
    assert.strictEqual(error([1, 2]).reason, "not-an-object")
    assert.strictEqual(error({ hook_event_name: "Nope" }).reason, "unknown-event")
    const invalid = error({ hook_event_name: "PreToolUse", session_id: "s", tool_name: "Bash", tool_input: "ls" })
    assert.strictEqual(invalid.reason, "invalid")
    assert.strictEqual(invalid.type, "tool.before")
    assert.strictEqual(invalid.hostEvent, "PreToolUse")
    assert.deepStrictEqual(invalid.issues.map((i) => i.path), ["/tool_input"])
  })

  it("a \"__proto__\" member of the payload's text is refused by name, never taken as a prototype", () => {
    const text = `{"hook_event_name":"PreToolUse","session_id":"s","cwd":"/w","tool_name":"Bash","tool_use_id":"t",` +
      `"tool_input":{"command":"ls"},"__proto__":{"hook_event_name":"Stop"}}`
    const parsed = Json.parse(text)
    assert.isTrue(Either.isRight(parsed))
    const refused = error(Either.getOrThrow(parsed))
    assert.strictEqual(refused.reason, "invalid")
    assert.strictEqual(refused.type, "tool.before")
    assert.deepStrictEqual(refused.issues.map((i) => i.path), ["/__proto__"])
    assert.isUndefined(({} as { hook_event_name?: string }).hook_event_name)
  })

  it("known events without an AHP counterpart are passed through", () => {
    const result = claude.map({ hook_event_name: "Setup", trigger: "init" }, { time, includeNative: false })
    assert.isTrue(Either.isRight(result) && result.right._tag === "PassThrough")
  })

  // Every sample file of ../shared/hosts (the property is skipped, visibly, without them).
  const samples = HostEvents.hostNames.flatMap((h) => payloads(h).map((s) => [h, s.value] as const))
  describe.skipIf(samples.length === 0)("mutated samples", () => {
    it.prop(
      "a mutated payload maps to a valid event or a typed error, never a throw",
      [
        // (constantFrom needs one value even where the suite is skipped)
        FastCheck.constantFrom(...samples, [HostEvents.hostNames[0], undefined] as const),
        FastCheck.array(FastCheck.tuple(FastCheck.string({ maxLength: 20 }), FastCheck.option(FastCheck.jsonValue())), {
          maxLength: 4
        })
      ],
      ([[name, payload], edits]) => {
        if (payload === undefined) return
        const edited: Record<string, unknown> = { ...payload }
        const keys = Object.keys(payload)
        for (const [key, value] of edits) {
          const target = keys.length > 0 && key.length % 2 === 0 ? keys[key.length % keys.length]! : key
          if (value === null) delete edited[target]
          // an own member, as JSON.parse makes it (assigning "__proto__" would replace the prototype)
          else Object.defineProperty(edited, target, { value, enumerable: true, writable: true, configurable: true })
        }
        const result = Hosts.of(name).map(edited as Json.JsonObject, { time, includeNative: true })
        if (Either.isLeft(result)) {
          assert.include(["not-an-object", "unknown-event", "invalid"], result.left.reason)
          assert.isNotEmpty(result.left.message)
        } else if (result.right._tag === "Event") {
          assert.deepStrictEqual(problems(result.right.type, result.right.input), [])
        }
      },
      { fastCheck: { numRuns: 300 } }
    )
  })
})
