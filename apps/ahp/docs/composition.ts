import { Backend, InProcess } from "@effect-ahp/backend"
import { Hooks } from "@effect-ahp/harness"
import { NodeTransports } from "@effect-ahp/node"
import { Registration } from "@effect-ahp/protocol"
import { Effect, Layer } from "effect"

// A backend written with the backend package, served in this process.
export const Guard = Backend.make(
  Backend.intercept("tool.before", (request) => {
    const command = String(request.event.tool.input["command"] ?? "")
    return Effect.succeed(command.includes("rm -rf") ? [{ type: "deny" as const, reason: "no recursive deletes" }] : [])
  })
)

// Where the other backends run: a command speaking stdio and an HTTP endpoint.
export interface Endpoints {
  readonly shell: { readonly command: string; readonly args: ReadonlyArray<string> }
  readonly audit: string
}

// The registration written in code: event types, modes and policies are type-checked; the
// harness validates it with the same rules as a document read from JSON.
export const registration = (endpoints: Endpoints) =>
  Registration.make([
    Registration.inProcess("com.example.guard", [
      Registration.intercept(["tool.before"], { timeoutMs: 2000, failurePolicy: "fail-closed" })
    ]),
    Registration.stdio("com.example.shell-guard", { ...endpoints.shell, lifecycle: "persistent" }, [
      Registration.intercept(["tool.before"], {
        timeoutMs: 5000,
        failurePolicy: "fail-closed",
        content: { default: "body" }
      })
    ]),
    Registration.http("com.example.audit", { url: endpoints.audit }, [Registration.observe(["tool.*"])])
  ])

// com.example.guard is reached in process, the others through the Node transports.
export const HooksLive = (endpoints: Endpoints) =>
  Hooks.layer(registration(endpoints), {
    backends: { "com.example.guard": InProcess.fromLayer(Guard) }
  }).pipe(Layer.provide(NodeTransports.layerNode()))
