import { Credentials, HttpTransport, NodeTransports } from "@effect-ahp/node"
import { Transport } from "@effect-ahp/harness"
import { Registration } from "@effect-ahp/protocol"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted, Schema } from "effect"
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

describe("NodeTransports", () => {
  it.scopedLive("connects stdio and http backends by transport type, with credentials from the resolver", () =>
    Effect.gen(function*() {
      const transports = yield* Transport.Transports
      const stdio = yield* transports.connect(backend("com.example.stdio", {
        type: "stdio",
        command: process.execPath,
        args: [script, "stdio", "ok"],
        lifecycle: "persistent"
      }))
      assert.deepStrictEqual(yield* stdio.request(request(1)), okResponse(1))

      const server = yield* httpBackend("require-bearer=token-from-ref")
      const http = yield* transports.connect(
        backend("com.example.http", { type: "http", url: server.url }, { type: "bearer", tokenRef: "policy" })
      )
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
      const http = yield* transports.connect(
        backend("com.example.http", { type: "http", url: server.url }, { type: "bearer", tokenRef: "policy" })
      )
      assert.deepStrictEqual(yield* http.request(request(3)), okResponse(3))
    }).pipe(
      Effect.provide(Layer.merge(
        NodeTransports.layerNode({ credentialRefs: { policy: Redacted.make("bundled") } }),
        NodeContext.layer
      ))
    ))
})

describe("Credentials", () => {
  it.effect("resolves env and ref references; missing and empty values are errors naming only the reference", () =>
    Effect.gen(function*() {
      process.env.AHP_NODE_CREDENTIAL_TEST = "from-env"
      process.env.AHP_NODE_CREDENTIAL_EMPTY = ""
      const resolver = yield* Credentials.CredentialResolver
      const env = yield* resolver.resolve({ kind: "env", name: "AHP_NODE_CREDENTIAL_TEST" })
      assert.strictEqual(Redacted.value(env), "from-env")
      assert.notInclude(String(env), "from-env")
      const ref = yield* resolver.resolve({ kind: "ref", name: "vault/policy" })
      assert.strictEqual(Redacted.value(ref), "from-ref")
      const missing = yield* Effect.flip(resolver.resolve({ kind: "env", name: "AHP_NODE_CREDENTIAL_ABSENT" }))
      assert.strictEqual(missing.reason, "missing")
      assert.strictEqual(missing.message, "environment variable AHP_NODE_CREDENTIAL_ABSENT is missing")
      const empty = yield* Effect.flip(resolver.resolve({ kind: "env", name: "AHP_NODE_CREDENTIAL_EMPTY" }))
      assert.strictEqual(empty.reason, "empty")
      const unknownRef = yield* Effect.flip(resolver.resolve({ kind: "ref", name: "from-env" }))
      assert.strictEqual(unknownRef.message, "secret reference from-env is missing")
    }).pipe(Effect.provide(Credentials.layerEnv({ "vault/policy": "from-ref" }))))
})
