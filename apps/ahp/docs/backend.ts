import { Backend } from "@effect-ahp/backend"
import { Capabilities, type HookEffect } from "@effect-ahp/protocol"
import { Context, Effect, Layer } from "effect"

// A service the handler needs, provided by the backend's own layer.
export class Blocklist extends Context.Tag("app/Blocklist")<Blocklist, ReadonlyArray<string>>() {}

// tool.before: ask (or deny, when asking is not granted) for blocklisted commands.
export const Guard = Backend.intercept("tool.before", (request) =>
  Effect.gen(function*() {
    const blocklist = yield* Blocklist
    const command = String(request.event.tool.input["command"] ?? "")
    const hit = blocklist.find((pattern) => command.includes(pattern))
    if (hit === undefined) return []
    const ask: HookEffect.HookEffect = { type: "ask" }
    return Capabilities.isGranted(request.capabilities, ask)
      ? [ask, { type: "message", text: `${hit} needs your approval` }]
      : [{ type: "deny", reason: `${hit} is not allowed here` }]
  }))

// Observations never answer and never change a decision.
export const Audit = Backend.observe("tool.*", (event) => Effect.logInfo(`observed ${event.type} ${event.id}`))

export const PolicyBackend = Backend.make(Guard, Audit).pipe(
  Layer.provide(Layer.succeed(Blocklist, ["git push --force", "npm publish"]))
)
