/**
 * The demo's part 3: the same example backends governing Claude Code and Codex through a
 * real `ahp bridge` child process. Claude Code's calls arrive as its `http` hook type
 * (the payload posted to the bridge); Codex's as its command hook (`ahp hook codex`, which
 * forwards over the bridge's socket). Each step prints the host's answer and checks it.
 *
 * @since 0.1.0
 */
import * as BridgeAccess from "@effect-ahp/hook/BridgeAccess"
import * as Terminal from "@effect-ahp/hook/Terminal"
import { Json } from "@effect-ahp/protocol"
import { Console, Deferred, Effect, Exit, Schedule } from "effect"
import type * as Scope from "effect/Scope"
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type * as Style from "./Style.js"

/**
 * One scripted host call and the check of its answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  readonly title: string
  readonly host: "claude-code" | "codex"
  readonly payload: Json.JsonObject
  /** What the answer must say, for people. */
  readonly expected: string
  readonly check: (answer: Json.JsonObject | undefined) => boolean
}

const common = { session_id: "demo-session", cwd: "/work/demo", permission_mode: "default" }

const bash = (host: Step["host"], id: string, command: string): Json.JsonObject => ({
  ...common,
  ...(host === "codex" ? { turn_id: "demo-turn" } : {}),
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command },
  tool_use_id: id
})

const specific = (answer: Json.JsonObject | undefined) =>
  answer !== undefined && Json.isObject(answer.hookSpecificOutput) ? answer.hookSpecificOutput : {}

const decision = (answer: Json.JsonObject | undefined) => specific(answer).permissionDecision

/**
 * The scripted calls.
 *
 * @since 0.1.0
 * @category script
 */
export const steps = (fakeToken: string): ReadonlyArray<Step> => [
  {
    title: "Claude Code: the user submits a prompt",
    host: "claude-code",
    payload: { ...common, hook_event_name: "UserPromptSubmit", prompt: "Tidy up the build folder." },
    expected: "additionalContext with the workspace policy",
    check: (a) => typeof specific(a).additionalContext === "string"
  },
  {
    title: "Claude Code: a safe command",
    host: "claude-code",
    payload: bash("claude-code", "toolu_demo_1", "ls -la build"),
    expected: "permissionDecision allow",
    check: (a) => decision(a) === "allow"
  },
  {
    title: "Claude Code: a destructive command",
    host: "claude-code",
    payload: bash("claude-code", "toolu_demo_2", "rm -rf /"),
    expected: "permissionDecision deny",
    check: (a) => decision(a) === "deny"
  },
  {
    title: "Claude Code: a risky command",
    host: "claude-code",
    payload: bash("claude-code", "toolu_demo_3", "git push --force origin main"),
    expected: "permissionDecision ask",
    check: (a) => decision(a) === "ask"
  },
  {
    title: "Codex: the same risky command (Codex has no ask)",
    host: "codex",
    payload: bash("codex", "call_demo_4", "git push --force origin main"),
    expected: "permissionDecision deny",
    check: (a) => decision(a) === "deny"
  },
  {
    title: "Codex: a tool output holding a credential",
    host: "codex",
    payload: {
      ...common,
      turn_id: "demo-turn",
      hook_event_name: "PostToolUse",
      tool_name: "Bash",
      tool_input: { command: "cat .env" },
      tool_response: `GITHUB_TOKEN=${fakeToken}\nLOG_LEVEL=info\n`,
      tool_use_id: "call_demo_5"
    },
    expected: "decision block, the result replaced by the redacted output",
    check: (a) => a?.decision === "block" && typeof a.reason === "string" && !a.reason.includes(fakeToken)
  }
]

/**
 * What one step answered.
 *
 * @since 0.1.0
 * @category models
 */
export interface Outcome {
  readonly step: Step
  readonly answer: Json.JsonObject | undefined
  readonly ok: boolean
}

interface Child {
  readonly stdout: () => string
  readonly done: Effect.Effect<{ readonly code: number | null; readonly stdout: string }>
}

const start = (
  args: ReadonlyArray<string>,
  env: NodeJS.ProcessEnv,
  input?: string
): Effect.Effect<Child, never, Scope.Scope> =>
  Effect.gen(function*() {
    const done = yield* Deferred.make<{ readonly code: number | null; readonly stdout: string }>()
    const child = yield* Effect.acquireRelease(
      Effect.sync(() => spawn(process.execPath, args, { env, stdio: ["pipe", "pipe", "ignore"] })),
      (child) =>
        child.exitCode !== null || child.signalCode !== null
          ? Effect.void
          : Effect.zipRight(Effect.sync(() => child.kill("SIGTERM")), Deferred.await(done))
    )
    let stdout = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    child.on("close", (code) => Deferred.unsafeDone(done, Exit.succeed({ code, stdout })))
    child.stdin.on("error", () => {})
    child.stdin.end(input ?? "")
    return { stdout: () => stdout, done: Deferred.await(done) }
  })

const waitFor = <A>(child: Child, find: (stdout: string) => A | undefined): Effect.Effect<A, string> =>
  Effect.suspend(() => {
    const found = find(child.stdout())
    return found === undefined ? Effect.fail("the bridge did not start") : Effect.succeed(found)
  }).pipe(Effect.retry(Schedule.spaced("25 millis").pipe(Schedule.upTo("30 seconds"))))

const parsed = (text: string): Json.JsonObject | undefined => {
  const value = text.trim() === "" ? undefined : Json.parse(text)
  return value !== undefined && value._tag === "Right" && Json.isObject(value.right) ? value.right : undefined
}

/**
 * Runs the steps through a bridge started with `bundle` on `registration`; prints each
 * answer; returns the outcomes.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (bundle: string, registration: unknown, script: ReadonlyArray<Step>, s: Style.Style) =>
  Effect.gen(function*() {
    const dir = yield* Effect.acquireRelease(
      Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "ahp-demo-bridge-"))),
      (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
    )
    const file = path.join(dir, "registration.json")
    fs.writeFileSync(file, Json.stringify(registration))
    const socket = path.join(dir, "bridge.sock")
    fs.chmodSync(dir, 0o700)
    const secret = randomBytes(32).toString("hex")
    const env = {
      ...process.env,
      AHP_BRIDGE_SOCKET: socket,
      AHP_CACHE_DIR: path.join(dir, "cache"),
      [BridgeAccess.secretVariable]: secret,
      NO_COLOR: "1"
    }
    const bridge = yield* start([bundle, "bridge", "--registration", file, "--http", "0"], env)
    const url = yield* waitFor(
      bridge,
      (out) => out.includes("listening on socket") ? /listening on (http:\/\/\S+)/.exec(out)?.[1] : undefined
    )
    yield* Console.log(`  ${s.cyan("ahp bridge")}  ${url}  and socket ${socket}`)
    const outcomes: Array<Outcome> = []
    for (const step of script) {
      const text = step.host === "claude-code"
        ? yield* Effect.promise(() =>
          fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json", [BridgeAccess.secretHeader]: secret },
            body: Json.stringify(step.payload)
          })
            .then((response) => response.text())
        )
        : (yield* Effect.scoped(Effect.flatMap(
          start([bundle, "hook", "codex", "--registration", file], env, Json.stringify(step.payload)),
          (child) => child.done
        ))).stdout
      const answer = parsed(text)
      const ok = step.check(answer)
      outcomes.push({ step, answer, ok })
      const via = step.host === "claude-code" ? "http hook" : "command hook, forwarded over the socket"
      yield* Console.log(`\n${s.bold(`[b${outcomes.length}] ${step.title}`)}  ${s.dim(`(${via})`)}`)
      yield* Console.log(
        `    ${s.bold("⇒")} ${text.trim() === "" ? s.dim("(empty: no opinion)") : Terminal.json(text.trim())}`
      )
      yield* Console.log(`      ${ok ? s.green("✓") : s.red("✗")} ${s.dim(`expected ${step.expected}`)}`)
    }
    return outcomes
  }).pipe(Effect.scoped, Effect.catchAll((problem) => Effect.as(Console.error(`ahp demo: ${problem}`), [])))
