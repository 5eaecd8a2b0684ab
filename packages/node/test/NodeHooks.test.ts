import { Hooks, Registry } from "@effect-ahp/harness"
import { NodeHooks } from "@effect-ahp/node"
import { Registration } from "@effect-ahp/protocol"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigError, ConfigProvider, Effect, Layer } from "effect"
import * as fs from "node:fs"
import { httpBackend, script, tempFile } from "./utils.js"

const interceptTool = Registration.intercept(["tool.before"], { timeoutMs: 5000, failurePolicy: "fail-closed" })

/** A stdio backend denying with `reason`, and optionally an HTTP one requiring a bearer token from `vault/policy`. */
const registration = (reason: string, http?: string) => {
  const stdio = Registration.stdio("com.example.stdio", {
    command: process.execPath,
    args: [script, "stdio", `deny=${reason}`],
    lifecycle: "per_event"
  }, [interceptTool])
  return Registration.make(
    http === undefined ? [stdio] : [
      Registration.http("com.example.http", { url: http }, [interceptTool], {
        authentication: { type: "bearer", tokenRef: "vault/policy" }
      }),
      stdio
    ]
  )
}

const toolBefore = {
  session: { id: "s" },
  tool: { name: "bash", input: { command: "ls" }, origin: "native" as const },
  call: { id: "c" },
  path: "main"
}

const under = (entries: ReadonlyArray<readonly [string, string]>) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries)))

describe("NodeHooks.layerConfig", () => {
  it.scopedLive("reads the registration file, the options and the credential references through Config", () =>
    Effect.gen(function*() {
      const server = yield* httpBackend("require-bearer=token-from-config")
      const file = yield* tempFile("registration.json")
      fs.writeFileSync(file, JSON.stringify(registration("from the file", server.url)))
      const layer = NodeHooks.layerConfig({
        registration: Config.map(Config.string("REGISTRATION_FILE"), (file) => ({ file })),
        source: Config.string("SOURCE"),
        observationTimeoutMs: Config.integer("OBSERVATION_TIMEOUT_MS"),
        credentialRefs: { "vault/policy": Config.redacted("POLICY_TOKEN") }
      }).pipe(Layer.provide(under([
        ["REGISTRATION_FILE", file],
        ["SOURCE", "urn:example:node-config"],
        ["OBSERVATION_TIMEOUT_MS", "1000"],
        ["POLICY_TOKEN", "token-from-config"]
      ])))
      const result = yield* Effect.provide(Hooks.dispatch("tool.before", toolBefore), layer)
      assert.deepStrictEqual(result.errors, [])
      assert.strictEqual(result.decision.denial?.reason, "from the file")
      assert.strictEqual(result.event.source, "urn:example:node-config")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("defaults to the JSON text of AHP_REGISTRATION when no file is configured", () =>
    Effect.gen(function*() {
      const layer = NodeHooks.layerConfig().pipe(
        Layer.provide(under([["AHP_REGISTRATION", JSON.stringify(registration("from the text"))]]))
      )
      const result = yield* Effect.provide(Hooks.dispatch("tool.before", toolBefore), layer)
      assert.strictEqual(result.decision.denial?.reason, "from the text")
    }))

  it.scopedLive("a wrong credential reaches the backend as the configured value, and is refused", () =>
    Effect.gen(function*() {
      const server = yield* httpBackend("require-bearer=token-from-config")
      const layer = NodeHooks.layerConfig({
        registration: Config.succeed({ text: JSON.stringify(registration("after the http backend", server.url)) }),
        credentialRefs: { "vault/policy": Config.redacted("POLICY_TOKEN") }
      }).pipe(Layer.provide(under([["POLICY_TOKEN", "another-token"]])))
      const result = yield* Effect.provide(Hooks.dispatch("tool.before", toolBefore), layer)
      assert.deepStrictEqual(result.errors.map((e) => [e.backend, e.code]), [["com.example.http", "unauthorized"]])
      assert.strictEqual(result.decision.permission, "deny")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("an unreadable registration file is a configuration error naming the file, a missing setting a ConfigError", () =>
    Effect.gen(function*() {
      const missingFile = yield* Layer.build(
        NodeHooks.layerConfig().pipe(
          Layer.provide(under([["AHP_REGISTRATION_FILE", "/nonexistent/registration.json"]]))
        )
      ).pipe(Effect.scoped, Effect.flip)
      assert.isTrue(Registry.isConfigurationError(missingFile))
      assert.strictEqual(
        missingFile.message,
        "invalid registration: /: cannot read the registration file /nonexistent/registration.json (ENOENT)"
      )
      const unset = yield* Layer.build(NodeHooks.layerConfig().pipe(Layer.provide(under([])))).pipe(
        Effect.scoped,
        Effect.flip
      )
      assert.isTrue(ConfigError.isConfigError(unset) && ConfigError.isMissingDataOnly(unset), String(unset))
    }))
})
