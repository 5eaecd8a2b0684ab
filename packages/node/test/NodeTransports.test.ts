import { Transport } from "@effect-ahp/harness"
import { Credentials, HttpTransport, NodeTransports } from "@effect-ahp/node"
import { Registration } from "@effect-ahp/protocol"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigError, ConfigProvider, Effect, Either, Layer, Redacted, Schema } from "effect"
import { httpBackend, httpRequests, okResponse, request, script } from "./utils.js"

const decodeBackend = Schema.decodeUnknownSync(Registration.Backend)

const backend = (id: string, transport: unknown, authentication?: unknown) =>
  decodeBackend({
    id,
    transport,
    ...(authentication === undefined ? {} : { authentication }),
    subscriptions: [{
      mode: "intercept",
      events: ["tool.before"],
      timeoutMs: 1000,
      failurePolicy: "fail-closed",
      content: { default: "metadata" }
    }]
  })

/** The scripted backend over stdio, answering ok. */
const scriptedStdio = backend("com.example.stdio", {
  type: "stdio",
  command: process.execPath,
  args: [script, "stdio", "ok"],
  lifecycle: "persistent"
})

/** An HTTP backend at `url` whose bearer token is resolved from `tokenRef` "policy". */
const bearerHttp = (url: string) =>
  backend("com.example.http", { type: "http", url }, { type: "bearer", tokenRef: "policy" })

describe("NodeTransports", () => {
  it.scopedLive("connects stdio and http backends by transport type, with credentials from the resolver", () =>
    Effect.gen(function*() {
      const transports = yield* Transport.Transports
      const stdio = yield* transports.connect(scriptedStdio)
      assert.deepStrictEqual(yield* stdio.request(request(1)), okResponse(1))

      const server = yield* httpBackend("require-bearer=token-from-ref")
      const http = yield* transports.connect(bearerHttp(server.url))
      assert.deepStrictEqual(yield* http.request(request(2)), okResponse(2))
      assert.deepStrictEqual((yield* httpRequests(server.log)).map((e) => e.authorization), [[
        "Bearer token-from-ref"
      ]])
    }).pipe(
      Effect.provide(
        NodeTransports.layer().pipe(Layer.provideMerge(Layer.mergeAll(
          NodeContext.layer,
          HttpTransport.layerDispatcher,
          Credentials.layerTest({ policy: "token-from-ref" })
        )))
      )
    ))

  it.scopedLive("layerNode bundles the Node platform and resolves tokenRef from the given map", () =>
    Effect.gen(function*() {
      const server = yield* httpBackend("require-bearer=bundled")
      const transports = yield* Transport.Transports
      const http = yield* transports.connect(bearerHttp(server.url))
      assert.deepStrictEqual(yield* http.request(request(3)), okResponse(3))
    }).pipe(
      Effect.provide(Layer.merge(
        NodeTransports.layerNode({ credentialRefs: { policy: Redacted.make("bundled") } }),
        NodeContext.layer
      ))
    ))

  it.scopedLive("layerOnDemand needs nothing: stdio at once, http with its dispatcher and the given tokenRef map built on first use", () =>
    Effect.gen(function*() {
      const transports = yield* Transport.Transports
      const stdio = yield* transports.connect(scriptedStdio)
      assert.deepStrictEqual(yield* stdio.request(request(4)), okResponse(4))
      const server = yield* httpBackend("require-bearer=on-demand")
      for (const id of [5, 6]) {
        const http = yield* transports.connect(bearerHttp(server.url))
        assert.deepStrictEqual(yield* http.request(request(id)), okResponse(id))
      }
      assert.deepStrictEqual((yield* httpRequests(server.log)).map((e) => e.authorization), [
        ["Bearer on-demand"],
        ["Bearer on-demand"]
      ])
    }).pipe(Effect.provide(NodeTransports.layerOnDemand({ credentialRefs: { policy: Redacted.make("on-demand") } }))))
})

describe("Credentials", () => {
  const provider = ConfigProvider.fromMap(
    new Map([["POLICY_TOKEN", "from-env"], ["EMPTY_TOKEN", ""], ["VAULT", "from-config"]])
  )

  it.effect("resolves env references through Config and refs from values or Configs; missing and empty values are errors naming only the reference", () =>
    Effect.gen(function*() {
      const resolver = yield* Credentials.CredentialResolver
      const env = yield* resolver.resolve({ kind: "env", name: "POLICY_TOKEN" })
      assert.strictEqual(Redacted.value(env), "from-env")
      assert.notInclude(String(env), "from-env")
      const ref = yield* resolver.resolve({ kind: "ref", name: "vault/policy" })
      assert.strictEqual(Redacted.value(ref), "from-ref")
      const configured = yield* resolver.resolve({ kind: "ref", name: "vault/configured" })
      assert.strictEqual(Redacted.value(configured), "from-config")
      const missing = yield* Effect.flip(resolver.resolve({ kind: "env", name: "ABSENT_TOKEN" }))
      assert.strictEqual(missing.reason, "missing")
      assert.strictEqual(missing.message, "environment variable ABSENT_TOKEN is missing")
      const empty = yield* Effect.flip(resolver.resolve({ kind: "env", name: "EMPTY_TOKEN" }))
      assert.strictEqual(empty.reason, "empty")
      const unknownRef = yield* Effect.flip(resolver.resolve({ kind: "ref", name: "from-env" }))
      assert.strictEqual(unknownRef.message, "secret reference from-env is missing")
      const broken = yield* Effect.flip(resolver.resolve({ kind: "ref", name: "vault/broken" }))
      assert.strictEqual(broken.message, "secret reference vault/broken is unavailable")
      assert.notInclude(broken.message, "sealed")
    }).pipe(Effect.provide(
      Credentials.layerEnv({
        "vault/policy": "from-ref",
        "vault/configured": Config.redacted("VAULT"),
        "vault/broken": Config.mapOrFail(
          Config.redacted("VAULT"),
          () => Either.left(ConfigError.InvalidData([], "vault is sealed"))
        )
      }).pipe(Layer.provide(Layer.setConfigProvider(provider)))
    )))

  it.effect("reads the provider in place when the layer is built, not the process environment", () =>
    Effect.gen(function*() {
      const resolver = yield* Credentials.CredentialResolver
      const missing = yield* Effect.flip(resolver.resolve({ kind: "env", name: "PATH" }))
      assert.strictEqual(missing.reason, "missing")
    }).pipe(Effect.provide(Credentials.layerEnv().pipe(Layer.provide(Layer.setConfigProvider(provider))))))
})
