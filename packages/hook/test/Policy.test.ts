/**
 * A host's policy over the harness's in-process transport with the budget on, as the
 * command hook and the bridge run it: the summary the cache keeps; the backend's decision
 * rendered for the host; "no opinion" without a dispatch for an event nothing selects or
 * with no AHP counterpart; and when the policy cannot be evaluated (a payload that is not
 * JSON or cannot be mapped, a backend that cannot be reached, the call's deadline) a
 * denial per host for a blocking event a fail-closed subscription selects, else "no
 * opinion" with the problem shown. Also the fail-closed intent read from a registration
 * that does not compile; and the answer's span under an installed tracer.
 */
import { Settlement, Transport } from "@effect-ahp/harness"
import { Hosts } from "@effect-ahp/hosts"
import type { HostEvents } from "@effect-ahp/hosts"
import type { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Clock, Duration, Effect, Fiber, Layer, Logger, LogLevel, Option, Ref, TestClock, Tracer } from "effect"
import * as Budget from "../src/Budget.js"
import * as Policy from "../src/Policy.js"

const guard = "com.example.guard"

/** A registration: `guard` intercepts `tool.before` under `failurePolicy`, and observes `tool.after`. */
const registration = (failurePolicy: "fail-open" | "fail-closed"): Json.JsonValue => ({
  protocolVersion: "draft",
  hooks: [{
    id: guard,
    transport: { type: "stdio", command: "never-run", lifecycle: "persistent" },
    subscriptions: [
      { mode: "intercept", events: ["tool.before"], timeoutMs: 60_000, failurePolicy, content: { default: "body" } },
      { mode: "observe", events: ["tool.after"], content: { default: "body" } }
    ]
  }]
})

/** A `PreToolUse` payload of a `Bash` call. */
const bash = (command: string) =>
  JSON.stringify({
    session_id: "s",
    cwd: "/work",
    hook_event_name: "PreToolUse",
    permission_mode: "default",
    tool_name: "Bash",
    tool_input: { command, description: "a command" },
    tool_use_id: "toolu_1"
  })

/**
 * A policy for `host` whose backend denies `rm` commands after `delayMs` (never reached
 * when `served` is false); `reached` counts its requests.
 */
const policyOf = (
  host: HostEvents.HostName,
  failurePolicy: "fail-open" | "fail-closed",
  options: { readonly served?: boolean; readonly delayMs?: number } = {}
) =>
  Effect.gen(function*() {
    const reached = yield* Ref.make(0)
    const backend = {
      request: (message: Json.JsonObject) =>
        Effect.gen(function*() {
          yield* Ref.update(reached, (n) => n + 1)
          if (options.delayMs !== undefined) yield* Effect.sleep(Duration.millis(options.delayMs))
          const command = String((message as any).params?.event?.tool?.input?.command ?? "")
          const effects = command.startsWith("rm ") ? [{ type: "deny", reason: "no rm" }] : []
          return { jsonrpc: "2.0", id: message.id ?? null, result: { protocolVersion: "draft", effects } }
        }),
      notify: () => Effect.void
    }
    const transports = Budget.layer("bridge").pipe(
      Layer.provide(Transport.layerInProcess(options.served === false ? {} : { [guard]: backend }))
    )
    const policy = yield* Policy.make(Hosts.of(host), registration(failurePolicy)).pipe(
      Effect.provide(Layer.merge(transports, Logger.minimumLogLevel(LogLevel.None)))
    )
    return { policy, reached }
  })

const inFiveSeconds = Effect.map(Clock.currentTimeMillis, (now) => now + 5_000)

const answerOf = (policy: Policy.Policy, payload: string, verbose = false) =>
  Effect.flatMap(inFiveSeconds, (deadline) => Policy.answer(policy, payload, { deadline, verbose }))

/** Whether an answer is the fail-closed denial of `PreToolUse`, with the problem shown to the user. */
const isFailClosedDenial = (answer: { readonly stdout: string; readonly stderr: string }, problem: string) => {
  const out = JSON.parse(answer.stdout)
  return out.hookSpecificOutput?.permissionDecision === "deny" &&
    out.hookSpecificOutput.permissionDecisionReason === Settlement.syntheticDenialReason &&
    String(out.systemMessage).startsWith(`ahp: ${problem}`) &&
    answer.stderr.startsWith(`ahp: ${problem}`)
}

/** A tracer that keeps the name and parent span id of every span it makes. */
const recordingTracer = (
  spans: Array<{ readonly name: string; readonly spanId: string; readonly parent: string | undefined }>
) =>
  Tracer.make({
    span: (name, parent, context, links, startTime, kind) => {
      const spanId = (spans.length + 1).toString(16).padStart(16, "0")
      spans.push({ name, spanId, parent: Option.match(parent, { onNone: () => undefined, onSome: (p) => p.spanId }) })
      const span: Tracer.Span = {
        _tag: "Span",
        name,
        spanId,
        traceId: Option.match(parent, { onNone: () => "1".repeat(32), onSome: (p) => p.traceId }),
        parent,
        context,
        status: { _tag: "Started", startTime },
        attributes: new Map(),
        links,
        sampled: true,
        kind,
        end: () => {},
        attribute: () => {},
        event: () => {},
        addLinks: () => {}
      }
      return span
    },
    context: (f) => f()
  })

const hosts: ReadonlyArray<HostEvents.HostName> = ["claude-code", "codex"]

describe("Policy", () => {
  it.scoped("summary: per host event with routes, how many and whether a fail-closed subscription selects it", () =>
    Effect.gen(function*() {
      const claude = yield* policyOf("claude-code", "fail-closed")
      assert.deepStrictEqual(Policy.summary(claude.policy), {
        PreToolUse: { routes: 1, failClosed: true },
        PostToolUse: { routes: 1, failClosed: false },
        PostToolUseFailure: { routes: 1, failClosed: false }
      })
      const codex = yield* policyOf("codex", "fail-open")
      assert.deepStrictEqual(Policy.summary(codex.policy), {
        PreToolUse: { routes: 1, failClosed: false },
        PostToolUse: { routes: 1, failClosed: false }
      })
    }))

  it.scoped("the backend's decision is rendered for the host, and traced when asked", () =>
    Effect.gen(function*() {
      for (const host of hosts) {
        const { policy, reached } = yield* policyOf(host, "fail-closed")
        const denied = yield* answerOf(policy, bash("rm -rf /"), true)
        assert.deepStrictEqual(JSON.parse(denied.answer.stdout).hookSpecificOutput, {
          hookEventName: "PreToolUse",
          permissionDecision: "deny",
          permissionDecisionReason: "no rm"
        })
        assert.match(denied.trace[0]!, new RegExp(`^${host} PreToolUse → tool\\.before \\S+: Bash: rm -rf / `))
        assert.include(denied.trace[1]!, `${guard}/0 (intercept, fail-closed, 60000 ms, stdio): answered in `)
        assert.include(denied.trace[2]!, "⇒ deny, \"no rm\"")
        const allowed = yield* answerOf(policy, bash("ls"))
        assert.deepStrictEqual(allowed, { answer: Hosts.of(host).noOpinion(), trace: [] }, "no effect: no opinion")
        assert.strictEqual(yield* Ref.get(reached), 2)
      }
    }))

  it.scoped("no opinion without a dispatch for an event nothing selects, or that has no AHP counterpart", () =>
    Effect.gen(function*() {
      const { policy, reached } = yield* policyOf("claude-code", "fail-closed")
      const prompt = JSON.stringify({
        session_id: "s",
        cwd: "/work",
        hook_event_name: "UserPromptSubmit",
        permission_mode: "default",
        prompt: "hello"
      })
      const setup = JSON.stringify({ session_id: "s", cwd: "/work", hook_event_name: "Setup" })
      for (const payload of [prompt, setup]) {
        const reply = yield* answerOf(policy, payload, true)
        assert.deepStrictEqual(reply, { answer: Hosts.of("claude-code").noOpinion(), trace: [] }, payload)
      }
      assert.strictEqual(yield* Ref.get(reached), 0)
    }))

  it.scoped("a payload that is not JSON, or not the event's shape: denied per host under fail-closed, else shown", () =>
    Effect.gen(function*() {
      const truncated = "{\"hook_event_name\":\"PreToolUse\",\"tool_input\":{"
      const unmapped = "{\"hook_event_name\":\"PreToolUse\"}"
      for (const host of hosts) {
        const closed = (yield* policyOf(host, "fail-closed")).policy
        assert.isTrue(isFailClosedDenial((yield* answerOf(closed, truncated)).answer, "the hook payload is not JSON"))
        assert.isTrue(isFailClosedDenial((yield* answerOf(closed, unmapped)).answer, "invalid PreToolUse payload"))
        const open = (yield* policyOf(host, "fail-open")).policy
        const shown = (yield* answerOf(open, truncated)).answer
        assert.deepStrictEqual(
          shown,
          Hosts.of(host).noOpinion(JSON.parse(shown.stdout).systemMessage.replace(/^ahp: /, "")),
          "fail-open: no opinion, the problem shown"
        )
        assert.include(shown.stdout, "the hook payload is not JSON")
        for (const nameless of ["[]", "null", "\"PreToolUse\""]) {
          assert.deepStrictEqual(
            (yield* answerOf(closed, nameless)).answer,
            Hosts.of(host).noOpinion("the hook payload is not a JSON object"),
            `${nameless}: no event is named, so none is denied`
          )
        }
      }
    }))

  it.scoped("a backend that cannot be reached: a denial under fail-closed, no opinion under fail-open", () =>
    Effect.gen(function*() {
      for (const host of hosts) {
        const closed = (yield* policyOf(host, "fail-closed", { served: false })).policy
        const denied = JSON.parse((yield* answerOf(closed, bash("ls"))).answer.stdout)
        assert.strictEqual(denied.hookSpecificOutput.permissionDecision, "deny")
        assert.strictEqual(denied.hookSpecificOutput.permissionDecisionReason, Settlement.syntheticDenialReason)
        const open = (yield* policyOf(host, "fail-open", { served: false })).policy
        const reply = yield* answerOf(open, bash("rm -rf /"), true)
        assert.strictEqual(reply.answer.stdout, Hosts.of(host).noOpinion().stdout)
        assert.include(reply.trace[1]!, "transport failure unsupported")
        assert.include(reply.trace[1]!, "fail-open: recorded, the chain goes on")
      }
    }))

  it.scoped("the call's deadline ends the exchange: a fail-closed subscription still denies, in time", () =>
    Effect.gen(function*() {
      const { policy } = yield* policyOf("claude-code", "fail-closed", { delayMs: 60_000 })
      const deadline = (yield* Clock.currentTimeMillis) + 2_000
      const fiber = yield* Effect.fork(Policy.answer(policy, bash("ls"), { deadline, verbose: true }))
      yield* TestClock.adjust(Duration.millis(2_000))
      const reply = yield* Fiber.join(fiber)
      const out = JSON.parse(reply.answer.stdout)
      assert.strictEqual(out.hookSpecificOutput.permissionDecisionReason, Settlement.syntheticDenialReason)
      assert.include(reply.trace[1]!, "no answer: budget after 2000 ms")
      assert.include(reply.trace[1]!, "fail-closed: a synthetic denial")
    }))

  it("failClosedIntent: a fail-closed intercept subscription whose events select the event, or cannot be read", () => {
    const document = (subscription: Json.JsonObject): Json.JsonValue => ({
      hooks: [{ id: "x", subscriptions: [subscription] }]
    })
    const intent = (subscription: Json.JsonObject) => Policy.failClosedIntent(document(subscription), "tool.before")
    assert.isTrue(intent({ mode: "intercept", failurePolicy: "fail-closed", events: ["tool.before"] }))
    assert.isTrue(intent({ mode: "intercept", failurePolicy: "fail-closed", events: ["tool.*"] }))
    assert.isTrue(intent({ failurePolicy: "fail-closed", events: ["tool.before"] }), "any mode but observe intercepts")
    assert.isTrue(intent({ mode: "intercept", failurePolicy: "fail-closed" }), "events that cannot be read select any")
    assert.isTrue(intent({ mode: "intercept", failurePolicy: "fail-closed", events: [7] }))
    assert.isFalse(intent({ mode: "observe", failurePolicy: "fail-closed", events: ["tool.before"] }))
    assert.isFalse(intent({ mode: "intercept", failurePolicy: "fail-open", events: ["tool.before"] }))
    assert.isFalse(intent({ mode: "intercept", failurePolicy: "fail-closed", events: ["tool.after"] }))
    for (const broken of [null, [], { hooks: {} }, { hooks: [7] }, { hooks: [{ subscriptions: "x" }] }]) {
      assert.isFalse(Policy.failClosedIntent(broken as Json.JsonValue, "tool.before"), JSON.stringify(broken))
    }
    const text = JSON.stringify(document({ mode: "intercept", failurePolicy: "fail-closed", events: ["tool.before"] }))
    assert.isTrue(Policy.failClosedIntentOfText(text, "tool.before"))
    assert.isFalse(Policy.failClosedIntentOfText(text.slice(0, -1), "tool.before"), "not JSON: no intent shown")
  })

  it("eventOf: the host event a payload names, if the host has it", () => {
    const claude = Hosts.of("claude-code")
    assert.strictEqual(Policy.eventOf(claude, { hook_event_name: "PreToolUse" })?.type, "tool.before")
    assert.strictEqual(Policy.eventOf(Hosts.of("codex"), { type: "agent-turn-complete" })?.type, "turn.end")
    assert.isUndefined(Policy.eventOf(Hosts.of("codex"), { hook_event_name: "PostToolUseFailure" }))
    assert.isUndefined(Policy.eventOf(claude, { hook_event_name: "toString" }))
    assert.isUndefined(Policy.eventOf(claude, ["PreToolUse"]))
  })

  it.scoped("under an installed tracer the answer has its span \"Policy.answer\", the dispatch's span within it", () =>
    Effect.gen(function*() {
      const { policy } = yield* policyOf("claude-code", "fail-closed")
      const spans: Array<{ readonly name: string; readonly spanId: string; readonly parent: string | undefined }> = []
      const denied = yield* answerOf(policy, bash("rm -rf /")).pipe(Effect.withTracer(recordingTracer(spans)))
      assert.strictEqual(JSON.parse(denied.answer.stdout).hookSpecificOutput.permissionDecision, "deny")
      const answers = spans.filter((span) => span.name === "Policy.answer")
      assert.strictEqual(answers.length, 1, spans.map((span) => span.name).join(", "))
      const within = spans.filter((span) => span.parent === answers[0]!.spanId)
      assert.isAbove(within.length, 0, "the dispatch's spans are children of the answer's")
    }))
})
