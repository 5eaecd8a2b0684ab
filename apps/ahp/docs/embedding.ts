import { Hooks } from "@effect-ahp/harness"
import { NodeTransports } from "@effect-ahp/node"
import type { Registration } from "@effect-ahp/protocol"
import { Effect, Layer } from "effect"

// One backend guarding shell commands: the shell-guard example over stdio.
export const registration: Registration.Registration = {
  protocolVersion: "draft",
  hooks: [{
    id: "com.example.shell-guard",
    transport: {
      type: "stdio",
      command: "node",
      args: ["dist/ahp.mjs", "serve", "shell-guard", "--stdio"],
      lifecycle: "persistent"
    },
    subscriptions: [{
      mode: "intercept",
      events: ["tool.before"],
      timeoutMs: 5000,
      failurePolicy: "fail-closed",
      content: { default: "body" }
    }]
  }]
}

// The agent's tool runner asks the hooks before every shell command.
export class ToolRunner extends Effect.Service<ToolRunner>()("app/ToolRunner", {
  effect: Effect.gen(function*() {
    const hooks = yield* Hooks.Hooks
    const run = Effect.fn("ToolRunner.run")(function*(command: string) {
      const result = yield* hooks.dispatch("tool.before", {
        session: { id: "session-1" },
        tool: { name: "bash", input: { command }, origin: "native" },
        call: { id: "call-1" },
        path: "main"
      })
      const { denial, permission } = result.decision
      if (permission === "deny") return `blocked: ${denial?.reason}`
      if (permission === "ask") return `needs approval: ${command}`
      // Run the effective input: accepted edits may have changed it. The event is a
      // typed ToolBefore; a tool's input is open JSON, so its command is checked.
      const effective = result.event.tool.input.command
      return `ran: ${typeof effective === "string" ? effective : command}`
    })
    return { run } as const
  })
}) {}

// Backends are connected for the lifetime of the layer; closing it stops their processes.
export const HooksLive = Hooks.layer(registration).pipe(Layer.provide(NodeTransports.layerNode()))

export const MainLive = ToolRunner.Default.pipe(Layer.provide(HooksLive))
