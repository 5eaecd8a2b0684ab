/**
 * `ahp demo`: starts the example backends for real and walks a short scripted agent
 * session through the real harness and transports, printing a trace of every boundary.
 *
 * - The shell guard runs as a child process over stdio (`node <bundle> serve shell-guard
 *   --stdio`); the prompt annotator and secret redactor, the audit observer and a slow
 *   backend are served over HTTP on 127.0.0.1 (free ports), in this process.
 * - Part 1, a session: `turn.start` annotated; `tool.before` `ls` allowed, `rm -rf /`
 *   denied, a force push asks; `tool.after` output holding fake credentials redacted.
 * - Part 2, failure policies: the same `tool.before` behind a backend that answers after
 *   1 s with a 300 ms deadline, once fail-open (recorded, the guard still decides) and once
 *   fail-closed (a synthetic denial; the guard is not called and observes instead).
 * - Part 3, the host bridge: the guard and the assistant behind a real `ahp bridge` child
 *   process, answering Claude Code's http hook and Codex's command hook (forwarded over the
 *   bridge's socket); each host answer is checked.
 * - Finally the audit observer's lines, and a summary that checks each decision against
 *   the expected one (exit code 1 if one differs).
 *
 * Everything it starts is stopped before it returns; the audit file lives in a temporary
 * folder removed at the end unless `--audit-file` names one.
 *
 * @since 0.1.0
 */
import { Backend, Http } from "@effect-ahp/backend"
import { Hooks } from "@effect-ahp/harness"
import * as Recorder from "@effect-ahp/hook/Recorder"
import * as Terminal from "@effect-ahp/hook/Terminal"
import { NodeTransports } from "@effect-ahp/node"
import type { Event, Json } from "@effect-ahp/protocol"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Console, Context, Effect, Layer, Option } from "effect"
import * as Audit from "./Audit.js"
import * as BridgeSession from "./DemoBridge.js"
import * as AuditObserver from "./examples/AuditObserver.js"
import * as PromptAnnotator from "./examples/PromptAnnotator.js"
import * as SecretRedactor from "./examples/SecretRedactor.js"
import * as ShellGuard from "./examples/ShellGuard.js"
import * as SlowBackend from "./examples/SlowBackend.js"
import * as Io from "./Io.js"
import * as Serve from "./Serve.js"
import * as Style from "./Style.js"
import * as Trace from "./Trace.js"

/**
 * One scripted boundary call and the decision it should settle.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  readonly title: string
  readonly type: Event.EventType
  readonly input: Json.JsonObject
  readonly expected: "deny" | "ask" | "allow" | "none"
}

const session = { id: "demo-session" }

const text = (id: string, role: "user" | "tool", body: string): Json.JsonObject => ({
  id,
  role,
  parts: [{ id: `${id}-text`, kind: "text", mediaType: "text/plain", selection: "body", text: body }]
})

const shell = (call: string, command: string): Json.JsonObject => ({
  session,
  turn: { id: "turn-1" },
  tool: { name: "bash", kind: "shell", input: { command }, origin: "native" },
  call: { id: call },
  path: "main"
})

// Built at run time so that no credential-shaped literal sits in the repository.
const fakeGithubToken = `ghp_${"demo".repeat(9)}`
const fakeAwsKey = `AKIA${"DEMO".repeat(4)}`

/**
 * The scripted session (part 1).
 *
 * @since 0.1.0
 * @category script
 */
export const sessionSteps: ReadonlyArray<Step> = [
  {
    title: "the user starts a turn",
    type: "turn.start",
    input: {
      session,
      turn: { id: "turn-1" },
      trigger: "user",
      items: [text("msg-1", "user", "Tidy up the build folder, then push the fix.")]
    },
    expected: "none"
  },
  { title: "a safe command", type: "tool.before", input: shell("call-1", "ls -la build"), expected: "allow" },
  { title: "a destructive command", type: "tool.before", input: shell("call-2", "rm -rf /"), expected: "deny" },
  {
    title: "a risky command",
    type: "tool.before",
    input: shell("call-3", "git push --force origin main"),
    expected: "ask"
  },
  {
    title: "a tool output holding credentials",
    type: "tool.after",
    input: {
      ...shell("call-4", "cat .env"),
      outcome: "ok",
      execution: { status: "executed" },
      items: [text("out-1", "tool", `GITHUB_TOKEN=${fakeGithubToken}\nAWS_ACCESS_KEY_ID=${fakeAwsKey}\nLOG_LEVEL=info`)]
    },
    expected: "none"
  }
]

/**
 * The failure-policy steps (part 2), one per policy of the slow backend.
 *
 * @since 0.1.0
 * @category script
 */
export const policySteps: ReadonlyArray<Step & { readonly policy: "fail-open" | "fail-closed" }> = [
  {
    title: "the slow backend times out, fail-open",
    type: "tool.before",
    input: shell("call-5", "ls"),
    expected: "allow",
    policy: "fail-open"
  },
  {
    title: "the slow backend times out, fail-closed",
    type: "tool.before",
    input: shell("call-6", "ls"),
    expected: "deny",
    policy: "fail-closed"
  }
]

const slowDelayMs = 1000
const slowTimeoutMs = 300

const intercept = (id: string, events: ReadonlyArray<string>, timeoutMs: number, failurePolicy: string) => ({
  id,
  mode: "intercept",
  events,
  timeoutMs,
  failurePolicy,
  content: { default: "body" }
})

const http = (url: string) => ({ type: "http", url })

interface Urls {
  readonly assistant: string
  readonly audit: string
  readonly guard: string
  readonly slow: string
}

const auditBackend = (urls: Urls) => ({
  id: "com.example.audit",
  transport: http(urls.audit),
  subscriptions: [{ id: "audit", mode: "observe", events: ["*"], content: { default: "body" } }]
})

const sessionRegistration = (urls: Urls) => ({
  protocolVersion: "draft",
  hooks: [
    {
      id: "com.example.shell-guard",
      transport: Serve.stdioTransport("shell-guard"),
      subscriptions: [intercept("guard", ["tool.before"], 10_000, "fail-closed")]
    },
    {
      id: "com.example.assistant",
      transport: http(urls.assistant),
      subscriptions: [
        intercept("annotate", ["turn.start"], 2000, "fail-open"),
        intercept("redact", ["tool.after"], 2000, "fail-open")
      ]
    },
    auditBackend(urls)
  ]
})

const policyRegistration = (urls: Urls, policy: string) => ({
  protocolVersion: "draft",
  hooks: [
    {
      id: "com.example.slow-scanner",
      transport: http(urls.slow),
      subscriptions: [intercept("scan", ["tool.before"], slowTimeoutMs, policy)]
    },
    {
      id: "com.example.shell-guard",
      transport: http(urls.guard),
      subscriptions: [intercept("guard", ["tool.before"], 2000, "fail-closed")]
    },
    auditBackend(urls)
  ]
})

/** The session's guard (over http here) and assistant, without the audit observer. */
const bridgeRegistration = (urls: Urls) => {
  const [guard, assistant] = sessionRegistration(urls).hooks
  return { protocolVersion: "draft", hooks: [{ ...guard!, transport: http(urls.guard) }, assistant!] }
}

const serveHttp = <R>(backend: Layer.Layer<Backend.Handlers, never, R>) =>
  Effect.map(Layer.build(Http.serve(backend, { port: 0 })), (context) => Context.get(context, Http.Address).url)

/**
 * The options of the demo.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly auditFile: Option.Option<string>
  readonly colour: boolean
}

/**
 * Runs the demo, printing the trace; succeeds with whether every decision was the expected
 * one.
 *
 * @since 0.1.0
 * @category running
 */
export const demo = (options: Options) =>
  Effect.gen(function*() {
    const s = Style.style(options.colour)
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const auditFile = yield* Option.match(options.auditFile, {
      onNone: () =>
        Effect.map(fs.makeTempDirectoryScoped({ prefix: "ahp-demo-" }), (dir) => path.join(dir, "audit.jsonl")),
      onSome: (file) => Effect.as(fs.writeFileString(file, ""), path.resolve(file))
    })
    const urls: Urls = {
      assistant: yield* serveHttp(Backend.make(PromptAnnotator.layer, SecretRedactor.layer)),
      audit: yield* serveHttp(Backend.make(AuditObserver.layer(auditFile))),
      guard: yield* serveHttp(Backend.make(ShellGuard.layer)),
      slow: yield* serveHttp(Backend.make(SlowBackend.layer(slowDelayMs)))
    }
    const outcomes: Array<{ readonly step: Step; readonly decision: string }> = []

    const dispatchAll = (heading: string, registration: unknown, steps: ReadonlyArray<Step>) =>
      Effect.scoped(Effect.gen(function*() {
        const hooks = yield* Hooks.makeUnknown(registration)
        yield* Console.log(`\n${s.bold(heading)}`)
        for (const step of steps) {
          const { result, text } = yield* Trace.dispatched(hooks, { ...step, n: outcomes.length + 1 }, s)
          yield* Console.log(`\n${text}`)
          outcomes.push({ step, decision: result.decision.permission })
        }
      }))

    const relative = path.relative(process.cwd(), Serve.bundlePath())
    const bundle = relative.startsWith("..") ? Serve.bundlePath() : relative
    yield* Console.log(s.bold("AHP demo — a scripted agent session through real policy backends"))
    yield* Console.log([
      "",
      `  ${s.cyan("com.example.shell-guard")}   stdio  child process: node ${bundle} serve shell-guard --stdio`,
      `  ${s.cyan("com.example.assistant")}     http   ${urls.assistant}  prompt-annotator + secret-redactor`,
      `  ${s.cyan("com.example.audit")}         http   ${urls.audit}  audit observer → ${auditFile}`,
      `  ${s.cyan("com.example.slow-scanner")}  http   ${urls.slow}  answers after ${slowDelayMs} ms`
    ].join("\n"))
    yield* dispatchAll(
      "Part 1 — a session: the guard (stdio, fail-closed), the assistant (http, fail-open), the audit observer",
      sessionRegistration(urls),
      sessionSteps
    )
    for (const step of policySteps) {
      yield* dispatchAll(
        `Part 2 — ${step.policy}: the slow scanner (timeout ${slowTimeoutMs} ms) before the guard ` +
          `(now served over http at ${urls.guard})`,
        policyRegistration(urls, step.policy),
        [step]
      )
    }

    yield* Console.log(
      `\n${s.bold("Part 3 — Claude Code and Codex through ahp bridge: the guard and the assistant over http")}`
    )
    const script = BridgeSession.steps(fakeGithubToken)
    const bridged = yield* BridgeSession.run(Serve.bundlePath(), bridgeRegistration(urls), script, s)

    const lines = (yield* fs.readFileString(auditFile)).split("\n").filter((line) => line !== "")
    yield* Console.log(`\n${s.bold(`Audit log (${lines.length} lines, ${auditFile})`)}`)
    yield* Console.log(lines.map((line) => `  ${Terminal.json(line)}`).join("\n"))

    yield* Console.log(`\n${s.bold("Summary")}`)
    for (const [i, { decision, step }] of outcomes.entries()) {
      const ok = decision === step.expected
      yield* Console.log(
        `  ${ok ? s.green("✓") : s.red("✗")} [${i + 1}] ${step.type.padEnd(11)} ${decision.padEnd(5)} ${
          s.dim(ok ? step.title : `expected ${step.expected}: ${step.title}`)
        }`
      )
    }
    for (const [i, { ok, step }] of bridged.entries()) {
      yield* Console.log(`  ${ok ? s.green("✓") : s.red("✗")} [b${i + 1}] ${step.host.padEnd(11)} ${s.dim(step.title)}`)
    }
    return outcomes.every(({ decision, step }) => decision === step.expected) && bridged.length === script.length &&
      bridged.every(({ ok }) => ok)
  }).pipe(
    Effect.scoped,
    Effect.provide(Recorder.layer.pipe(Layer.provide(NodeTransports.layerNode())))
  )

/**
 * Runs the demo with colour on a terminal (never with `NO_COLOR`), with the decision audit
 * in `audit` when given (`--audit`); sets exit code 0 when
 * every decision is the expected one, 1 when one differs, 2 when the demo cannot run (its
 * backends or audit file cannot be set up; logged on stderr).
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: {
  readonly auditFile: Option.Option<string>
  readonly audit: Option.Option<string>
  readonly auditContent: boolean
}) =>
  demo({ auditFile: options.auditFile, colour: Style.colourFor(process.stdout) }).pipe(
    Audit.withAudit(options.audit, options.auditContent),
    Effect.flatMap((ok) => Io.exitWith(ok ? Io.exitCodes.ok : Io.exitCodes.problems)),
    Effect.catchAll((error) =>
      Effect.zipRight(Effect.logError("ahp demo cannot run", error), Io.exitWith(Io.exitCodes.failure))
    )
  )
