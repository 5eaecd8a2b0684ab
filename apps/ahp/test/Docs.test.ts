/**
 * The README's TypeScript snippets (apps/ahp/docs) run: the tool runner embedding Hooks as
 * an Effect service, the Promise client against a real stdio backend, the backend
 * written as a layer, one Hooks mixing an in-process, a stdio and an HTTP backend, and
 * the host configured through Config alone. (`tsc -b` compiles all of them, including the two entry points.)
 */
import { Backend, Http, InProcess } from "@effect-ahp/backend"
import { Hooks } from "@effect-ahp/harness"
import * as Serve from "@effect-ahp/tools/Serve"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer, Ref } from "effect"
import { PolicyBackend } from "../docs/backend.js"
import { decide } from "../docs/client.js"
import { HooksLive } from "../docs/composition.js"
import { HooksLive as ConfiguredHooks } from "../docs/config.js"
import { registration, ToolRunner } from "../docs/embedding.js"
import { denyLaw } from "../docs/laws.js"
import { bundle } from "./support.js"

const request = (command: string, effects: ReadonlyArray<string>) => ({
  jsonrpc: "2.0",
  id: "evt-1",
  method: "hooks/intercept",
  params: {
    protocolVersion: "draft",
    event: {
      id: "evt-1",
      source: "urn:test:docs",
      time: "2026-01-01T00:00:00Z",
      type: "tool.before",
      tool: { name: "bash", input: { command }, origin: "native" },
      call: { id: "c" },
      path: "main"
    },
    capabilities: { effects }
  }
})

/** The embedding example's registration with its stdio backend run from the bundle. */
const realRegistration = () => ({
  ...registration,
  hooks: registration.hooks.map((backend) => ({
    ...backend,
    transport: { ...backend.transport, command: process.execPath, args: [bundle, "serve", "shell-guard", "--stdio"] }
  }))
})

describe("docs snippets", () => {
  describe("laws: the README's property example", () => {
    denyLaw()
  })

  it.scoped("embedding: the tool runner asks Hooks before each command", () =>
    Effect.gen(function*() {
      const guard = yield* InProcess.fromLayer(Serve.example("shell-guard"))
      const hooks = Hooks.layerTest(registration, { "com.example.shell-guard": guard })
      const outcomes = yield* Effect.gen(function*() {
        const runner = yield* ToolRunner
        return [yield* runner.run("rm -rf /"), yield* runner.run("sudo make install"), yield* runner.run("ls")]
      }).pipe(Effect.provide(ToolRunner.Default.pipe(Layer.provide(hooks))))
      assert.match(outcomes[0]!, /^blocked: a recursive forced delete/)
      assert.strictEqual(outcomes[1], "needs approval: sudo make install")
      assert.strictEqual(outcomes[2], "ran: ls")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.live("client: the Promise facade over a real stdio backend", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* Effect.promise(() => decide(realRegistration(), "rm -rf ~")), "deny")
      assert.strictEqual(yield* Effect.promise(() => decide(realRegistration(), "git status")), "allow")
    }))

  it.live("composition: an in-process, a stdio and an HTTP backend in one Hooks", () =>
    Effect.gen(function*() {
      const observed = yield* Ref.make<ReadonlyArray<string>>([])
      const audit = Backend.make(
        Backend.observe("tool.*", (event) => Ref.update(observed, (types) => [...types, event.type]))
      )
      const { url } = yield* Effect.provide(Http.Address, yield* Layer.build(Http.serve(audit, { port: 0 })))
      const shell = { command: process.execPath, args: [bundle, "serve", "shell-guard", "--stdio"] }
      const decisions = yield* Effect.gen(function*() {
        const hooks = yield* Hooks.Hooks
        const decide = (command: string) =>
          Effect.map(
            hooks.dispatch("tool.before", {
              session: { id: "session-1" },
              tool: { name: "bash", input: { command }, origin: "native" },
              call: { id: "call-1" },
              path: "main"
            }),
            (result) => ({
              permission: result.decision.permission,
              errors: result.errors.length,
              observations: result.observations
            })
          )
        return [yield* decide("rm -rf /"), yield* decide("sudo make install"), yield* decide("ls")]
      }).pipe(Effect.provide(HooksLive({ shell, audit: url })))
      // the in-process guard denies, the stdio shell-guard asks, neither objects to ls
      assert.deepStrictEqual(decisions.map((d) => [d.permission, d.errors]), [["deny", 0], ["ask", 0], ["allow", 0]])
      // every call is observed over HTTP; after the deny, the uncalled shell-guard observes it too
      assert.deepStrictEqual(decisions.map((d) => d.observations.map((o) => [o.backend, o.mode, o.outcome])), [
        [["com.example.audit", "observe", "delivered"], ["com.example.shell-guard", "intercept", "delivered"]],
        [["com.example.audit", "observe", "delivered"]],
        [["com.example.audit", "observe", "delivered"]]
      ])
      assert.deepStrictEqual(yield* Ref.get(observed), ["tool.before", "tool.before", "tool.before"])
    }).pipe(Effect.scoped))

  it.live("config: the host from configuration alone", () =>
    Effect.gen(function*() {
      const provider = ConfigProvider.fromMap(
        new Map([["AHP_REGISTRATION", JSON.stringify(realRegistration())], ["POLICY_TOKEN", "unused here"]])
      )
      const result = yield* Hooks.dispatch("tool.before", {
        tool: { name: "bash", input: { command: "rm -rf /" }, origin: "native" },
        call: { id: "call-1" },
        path: "main"
      }).pipe(Effect.provide(ConfiguredHooks.pipe(Layer.provide(Layer.setConfigProvider(provider)))))
      assert.strictEqual(result.decision.permission, "deny")
      assert.strictEqual(result.event.source, "urn:example:agent")
    }))

  it.scoped("backend: a layer with a service of its own", () =>
    Effect.gen(function*() {
      const backend = yield* InProcess.fromLayer(PolicyBackend)
      const asked: any = yield* backend.request(request("git push --force origin main", ["ask", "message", "deny"]))
      assert.deepStrictEqual(asked.result.effects.map((e: any) => e.type), ["ask", "message"])
      const denied: any = yield* backend.request(request("npm publish", ["deny"]))
      assert.deepStrictEqual(denied.result.effects, [{ type: "deny", reason: "npm publish is not allowed here" }])
      const quiet: any = yield* backend.request(request("ls", ["deny"]))
      assert.deepStrictEqual(quiet.result.effects, [])
    }))
})
