// A policy backend served over stdio, written the way a user writes one.
import { Backend, Stdio } from "@effect-ahp/backend"
import { Effect } from "effect"

const guard = Backend.intercept("tool.before", (request) => {
  const command = String(request.event.tool.input["command"] ?? "")
  return Effect.succeed(command.includes("rm -rf") ? [{ type: "deny" as const, reason: "destructive command" }] : [])
})

Stdio.run(Backend.make(guard))
