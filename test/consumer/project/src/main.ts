// A host embedding the harness: one backend in process (a backend layer) and one over
// stdio (out/backend.js), one tool.before dispatched, the decision printed as JSON.
import { Backend, InProcess } from "@effect-ahp/backend"
import { Hooks } from "@effect-ahp/harness"
import * as Transport from "@effect-ahp/harness/Transport"
import { NodeTransports } from "@effect-ahp/node"
import { Wire } from "@effect-ahp/protocol"
import { Effect, Layer } from "effect"
import { fileURLToPath } from "node:url"

const subscription = {
  mode: "intercept",
  events: ["tool.before"],
  timeoutMs: 10_000,
  failurePolicy: "fail-closed",
  content: { default: "body" }
}

export const registration = {
  protocolVersion: "draft",
  hooks: [
    {
      id: "com.example.notes",
      transport: { type: "stdio", command: "in-process", lifecycle: "persistent" },
      subscriptions: [subscription]
    },
    {
      id: "com.example.guard",
      transport: {
        type: "stdio",
        command: process.execPath,
        args: [fileURLToPath(new URL("backend.js", import.meta.url))],
        lifecycle: "persistent"
      },
      subscriptions: [subscription]
    }
  ]
}

const notes = Backend.make(
  Backend.intercept("tool.before", () => Effect.succeed([{ type: "message" as const, text: "seen in process" }]))
)

// com.example.notes runs in this process; every other backend through the Node transports.
const transports = Layer.scoped(
  Transport.Transports,
  Effect.gen(function*() {
    const inProcess = yield* Effect.provide(
      Transport.Transports,
      Transport.layerInProcess({ "com.example.notes": yield* InProcess.fromLayer(notes) })
    )
    const node = yield* Effect.provide(Transport.Transports, NodeTransports.layerNode())
    return Transport.Transports.of({
      connect: (backend) => backend.id === "com.example.notes" ? inProcess.connect(backend) : node.connect(backend)
    })
  })
)

const program = Effect.gen(function*() {
  const verdict = Wire.validate(registration)
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
    errors: result.errors.length
  }
})

program.pipe(
  Effect.provide(Hooks.layer(registration).pipe(Layer.provide(transports))),
  Effect.runPromise
).then(
  (summary) => console.log(JSON.stringify(summary)),
  (error: unknown) => {
    console.error(error)
    process.exitCode = 1
  }
)
