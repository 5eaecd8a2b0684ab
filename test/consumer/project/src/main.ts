// A host embedding the harness: one backend in process (a backend layer), one over HTTP
// (served by this process on a loopback port) and one over stdio (out/backend.js), in one
// Hooks built from a registration written in code; one tool.before dispatched, the decision
// printed as JSON; then a Claude Code PreToolUse payload mapped, dispatched and rendered as
// the hook's answer; last, whether the HTTP binding loaded undici's Agent module (which it
// imports on its own, not through undici's index).
import { Backend, Http, InProcess } from "@effect-ahp/backend"
import { Hooks } from "@effect-ahp/harness"
import { Host, Hosts } from "@effect-ahp/hosts"
import { NodeTransports } from "@effect-ahp/node"
import { Registration, Wire } from "@effect-ahp/protocol"
import { Effect, Either, Layer } from "effect"
import { createRequire } from "node:module"
import { fileURLToPath } from "node:url"

const subscription = Registration.intercept(["tool.before"], {
  timeoutMs: 10_000,
  failurePolicy: "fail-closed",
  content: { default: "body" }
})

export const registration = (http: string) =>
  Registration.make([
    Registration.inProcess("com.example.notes", [subscription]),
    Registration.http("com.example.remote", { url: http }, [subscription]),
    Registration.stdio("com.example.guard", {
      command: process.execPath,
      args: [fileURLToPath(new URL("backend.js", import.meta.url))],
      lifecycle: "persistent"
    }, [subscription])
  ])

const note = (text: string) =>
  Backend.make(Backend.intercept("tool.before", () => Effect.succeed([{ type: "message" as const, text }])))

// com.example.notes runs in this process; the others through the Node transports.
const HooksLive = Layer.unwrapEffect(Effect.map(Http.Address, ({ url }) =>
  Hooks.layer(registration(url), {
    backends: { "com.example.notes": InProcess.fromLayer(note("seen in process")) }
  }))).pipe(
    Layer.provide(Layer.merge(NodeTransports.layerNode(), Http.serve(note("seen over HTTP"), { port: 0 })))
  )

// What Claude Code sends a PreToolUse command hook on stdin.
const preToolUse = {
  session_id: "session-1",
  transcript_path: "/tmp/transcript.jsonl",
  cwd: "/tmp",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "rm -rf /" },
  tool_use_id: "toolu_1"
}

// The hook's answer (its stdout) for that payload.
const claudeCodeHook = Effect.gen(function*() {
  const claude = Hosts.of("claude-code")
  const mapped = claude.map(preToolUse, { time: new Date().toISOString(), includeNative: false })
  if (Either.isLeft(mapped) || mapped.right._tag === "PassThrough") return claude.noOpinion().stdout
  const { capabilities, event, input, payload, type } = mapped.right
  const hooks = yield* Hooks.Hooks
  const result = yield* hooks.dispatchUnknown(type, input, capabilities === undefined ? {} : { capabilities })
  return claude.render(event, Host.verdict(result.decision, result.event), payload).stdout
})

/** Whether a CommonJS file whose path matches `file` has been loaded (undici is CommonJS). */
const loaded = (file: RegExp): boolean =>
  Object.keys(createRequire(import.meta.url).cache).some((key) => file.test(key))

const program = Effect.gen(function*() {
  const verdict = Wire.validate(registration("https://remote.example.com/hooks"))
  const hooks = yield* Hooks.Hooks
  const result = yield* hooks.dispatch("tool.before", {
    session: { id: "session-1" },
    tool: { name: "bash", input: { command: "rm -rf /" }, origin: "native" },
    call: { id: "call-1" },
    path: "main"
  })
  return {
    registration: { kind: verdict.kind, issues: verdict.issues.length },
    decision: result.decision.permission,
    reason: result.decision.denial?.reason ?? null,
    messages: result.decision.messages,
    errors: result.errors.length,
    claudeCode: JSON.parse(yield* claudeCodeHook) as unknown,
    undiciAgent: loaded(/[\\/]undici[\\/]lib[\\/]dispatcher[\\/]agent\.js$/)
  }
})

program.pipe(
  Effect.provide(HooksLive),
  Effect.runPromise
).then(
  (summary) => console.log(JSON.stringify(summary)),
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  }
)
