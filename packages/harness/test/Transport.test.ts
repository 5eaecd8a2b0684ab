/**
 * The transport contract as the harness uses it: endpoints are started when the harness is
 * built, and a backend that cannot be connected or started is logged, not fatal; the
 * stdio environment extension of a registration is validated at load time.
 */
import { Grant, Hooks, Registry, Transport } from "@effect-ahp/harness"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Layer, Logger } from "effect"
import { intercept } from "./support.js"

const stdio = (extra: Record<string, unknown> = {}) => ({
  type: "stdio",
  command: "node",
  lifecycle: "persistent",
  ...extra
})

const doc = {
  protocolVersion: "draft",
  hooks: [
    { id: "com.example.started", transport: stdio(), subscriptions: [intercept(["tool.before"])] },
    { id: "com.example.refused", transport: stdio(), subscriptions: [intercept(["tool.before"])] },
    { id: "com.example.unconnected", transport: stdio(), subscriptions: [intercept(["tool.before"])] }
  ]
}

describe("Transport.startAll through Hooks", () => {
  it.effect("building the harness starts every endpoint that can start; failures are logged per backend", () =>
    Effect.gen(function*() {
      const started: Array<string> = []
      const lines: Array<string> = []
      const transports = Layer.succeed(
        Transport.Transports,
        Transport.Transports.of({
          connect: (backend, options) => {
            assert.deepStrictEqual(options, { observationTimeoutMs: 1234 })
            if (backend.id === "com.example.unconnected") {
              return Effect.fail(new Transport.TransportError({ reason: "unsupported", detail: "not here" }))
            }
            return Effect.succeed({
              request: () => Effect.never,
              notify: () => Effect.void,
              start: backend.id === "com.example.refused"
                ? Effect.fail(new Transport.TransportError({ reason: "spawn", detail: "could not start node: denied" }))
                : Effect.sync(() => void started.push(backend.id))
            })
          }
        })
      )
      const logger = Logger.replace(Logger.defaultLogger, Logger.make(({ message }) => lines.push(String(message))))
      yield* Effect.scoped(
        Layer.build(Hooks.layerUnknown(doc, { observationTimeoutMs: 1234 }).pipe(Layer.provide(transports)))
      )
        .pipe(Effect.provide(logger))
      assert.deepStrictEqual(started, ["com.example.started"])
      assert.deepStrictEqual([...lines].sort(), [
        "backend com.example.refused could not be started: spawn: could not start node: denied",
        "backend com.example.unconnected could not be started: unsupported: not here"
      ])
    }))
})

describe("the stdio environment extension", () => {
  const compile = (extension: unknown) =>
    Registry.compile({
      protocolVersion: "draft",
      hooks: [{
        id: "com.example.env",
        transport: stdio({ "org.effect-ahp.env": extension }),
        subscriptions: [intercept(["tool.before"])]
      }]
    }, Grant.full())

  it("accepts variable names to inherit and literal values to set", () => {
    const registry = Either.getOrThrow(compile({ inherit: ["LANG", "POLICY_TOKEN"], set: { LOG_LEVEL: "debug" } }))
    const transport = registry.registration.hooks[0]!.transport
    assert.deepStrictEqual(transport.type === "stdio" ? transport["org.effect-ahp.env"] : undefined, {
      inherit: ["LANG", "POLICY_TOKEN"],
      set: { LOG_LEVEL: "debug" }
    })
  })

  it("reports malformed names and values at load time, each at its path", () => {
    const issuesOf = (extension: unknown) => {
      const result = compile(extension)
      return Either.isLeft(result) ? result.left.issues.map((i) => [i.code, i.path, i.message]) : []
    }
    const at = "/hooks/0/transport/org.effect-ahp.env"
    assert.deepStrictEqual(issuesOf({ inherit: ["NOT A NAME"], set: { "1BAD": "x" } }), [
      ["invalid-value", `${at}/inherit/0`, "must be an environment variable name"],
      ["invalid-value", `${at}/set/1BAD`, "must be an environment variable name"]
    ])
    assert.deepStrictEqual(issuesOf({ set: { GOOD: "nul\u0000" } }), [
      ["invalid-value", `${at}/set/GOOD`, "must not contain a NUL character"]
    ])
  })
})
