/**
 * `Hooks.layer` and `Hooks.make` take a typed `Registration.Registration` (checked by the
 * compiler: `pnpm check` type-checks this file, and an unused `@ts-expect-error` is an
 * error); an untyped JSON document goes through `layerUnknown` / `makeUnknown`, decoded
 * when the layer is built, with a typed `ConfigurationError`.
 */
import { Hooks, Registry, Transport } from "@effect-ahp/harness"
import { Registration } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Layer } from "effect"

const subscriptions = [
  Registration.intercept(["tool.before"], { timeoutMs: 1000, failurePolicy: "fail-open" })
] as const

describe("Hooks.layer: typed registrations", () => {
  it("takes a document written with the builders or as a literal", () => {
    const built = Hooks.layer(Registration.make([Registration.inProcess("com.example.a", subscriptions)]))
    const literal = Hooks.layer({
      protocolVersion: "draft",
      hooks: [{
        id: "com.example.b",
        transport: { type: "stdio", command: "hook", lifecycle: "persistent" },
        subscriptions
      }]
    })
    assert.isTrue(Layer.isLayer(built) && Layer.isLayer(literal))
  })

  it("rejects a number", () => {
    // @ts-expect-error: 42 is not a registration
    const layer = Hooks.layer(42)
    // @ts-expect-error: neither for make
    const made = Hooks.make(42)
    assert.isTrue(Layer.isLayer(layer) && made !== undefined)
  })

  it("rejects a misspelt transport", () => {
    const layer = Hooks.layer({
      protocolVersion: "draft",
      hooks: [{
        id: "com.example.c",
        // @ts-expect-error: `transprot` is not a member of a backend
        transprot: { type: "stdio", command: "hook", lifecycle: "persistent" },
        subscriptions
      }]
    })
    assert.isTrue(Layer.isLayer(layer))
  })

  it.effect("layerUnknown decodes an untyped document: a misspelt transport is a ConfigurationError", () =>
    Effect.gen(function*() {
      const document: unknown = JSON.parse(
        `{"protocolVersion":"draft","hooks":[{"id":"com.example.c","transprot":{"type":"stdio","command":"hook"},` +
          `"subscriptions":[{"mode":"observe","events":["tool.after"]}]}]}`
      )
      const exit = yield* Layer.build(Hooks.layerUnknown(document).pipe(Layer.provide(Transport.layerInProcess({}))))
        .pipe(Effect.scoped, Effect.exit)
      assert.isTrue(Exit.isFailure(exit))
      const error = Exit.isFailure(exit) && exit.cause._tag === "Fail" ? exit.cause.error : undefined
      assert.isTrue(Registry.isConfigurationError(error))
      assert.isTrue(
        Registry.isConfigurationError(error) && error.issues.some((issue) => issue.path.startsWith("/hooks/0")),
        JSON.stringify(error)
      )
    }))
})
