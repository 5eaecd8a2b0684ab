/**
 * One real boundary call for the trace tests: a Claude Code `PreToolUse` payload mapped by
 * the host, dispatched by the harness through the recording decorator over its in-process
 * transport. Three subscriptions in order: `com.example.gone` (not served: its route fails,
 * fail-open), `com.example.denier` (denies), `com.example.watcher` (observes). The debug
 * log lines `RouteTrace.logged` writes are collected.
 */
import { Transport } from "@effect-ahp/harness"
import { Host, Hosts } from "@effect-ahp/hosts"
import type { Json } from "@effect-ahp/protocol"
import { Effect, Either, Layer, Logger, LogLevel } from "effect"
import * as Policy from "../src/Policy.js"
import * as Recorder from "../src/Recorder.js"
import * as RouteTrace from "../src/RouteTrace.js"

const subscription = (mode: string, failurePolicy?: string) => ({
  mode,
  events: ["tool.before"],
  content: { default: "body" },
  ...(failurePolicy === undefined ? {} : { timeoutMs: 5_000, failurePolicy })
})

const backend = (id: string, ...subscriptions: ReadonlyArray<unknown>) => ({
  id,
  transport: { type: "stdio", command: "never-run", lifecycle: "persistent" },
  subscriptions
})

const registration: Json.JsonValue = {
  protocolVersion: "draft",
  hooks: [
    backend("com.example.gone", subscription("intercept", "fail-open")),
    backend("com.example.denier", subscription("intercept", "fail-closed")),
    backend("com.example.watcher", subscription("observe"))
  ]
} as unknown as Json.JsonValue

const payload: Json.JsonValue = {
  session_id: "s",
  cwd: "/work",
  hook_event_name: "PreToolUse",
  permission_mode: "default",
  tool_name: "Bash",
  tool_input: { command: "rm -rf /", description: "a command" },
  tool_use_id: "toolu_1"
}

const denier = {
  request: (message: Json.JsonObject) =>
    Effect.succeed<Json.JsonValue>({
      jsonrpc: "2.0",
      id: message.id ?? null,
      result: { protocolVersion: "draft", effects: [{ type: "deny", reason: "no rm -rf" }] }
    }),
  notify: () => Effect.void
}

/** Dispatches the call at `level`; everything a trace is made of, and the debug lines logged. */
export const dispatched = (level: LogLevel.LogLevel) =>
  Effect.gen(function*() {
    const host = Hosts.of("claude-code")
    const logged: Array<string> = []
    const logger = Logger.make(({ message }) => {
      logged.push(Array.isArray(message) ? message.join(" ") : String(message))
    })
    const transports = Recorder.layer.pipe(
      Layer.provide(Transport.layerInProcess({ "com.example.denier": denier, "com.example.watcher": denier }))
    )
    const mapped = host.map(payload, { source: undefined, time: "2026-12-07T12:00:00.000Z", includeNative: false })
    if (Either.isLeft(mapped) || mapped.right._tag !== "Event") return yield* Effect.dieMessage("not mapped")
    const call = mapped.right
    return yield* Effect.gen(function*() {
      const policy = yield* Policy.make(host, registration)
      const routes = policy.hooks.registry.routes(call.type)
      const result = yield* RouteTrace.logged(
        call.input,
        routes,
        policy.hooks.dispatchUnknown(call.type, call.input, {
          capabilities: call.capabilities ?? { effects: [] },
          observers: "wait"
        })
      )
      const exchanges = yield* (yield* Recorder.Recorder).exchanges
      const answer = host.render(call.event, Host.verdict(result.decision, result.event), call.payload)
      return { host, call, routes, result, exchanges, answer, logged }
    }).pipe(
      Effect.provide(Layer.mergeAll(
        transports,
        Logger.replace(Logger.defaultLogger, logger),
        Logger.minimumLogLevel(level)
      ))
    )
  })
