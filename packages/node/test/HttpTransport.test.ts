import { Hooks } from "@effect-ahp/harness"
import { Credentials, HttpTransport, NodeTransports } from "@effect-ahp/node"
import type { Registration } from "@effect-ahp/protocol"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Data, Duration, Effect, Exit, Fiber, Layer, Ref, Scope, Tracer } from "effect"
import * as net from "node:net"
import { scaled } from "../../../test/support/load.js"
import * as oauthInternal from "../src/internal/oauth.js"
import { clientSecret, loopback, routedDispatcher } from "./oauthWorld.js"
import { httpBackend, httpRequests, notification, okResponse, readLog, request, waitForLog } from "./utils.js"

class Deadline extends Data.TaggedError("Deadline") {}

const secret = "s3cr3t-bearer-token-value"

const TestLayer = Layer.mergeAll(
  NodeContext.layer,
  HttpTransport.layerDispatcher,
  Credentials.layerTest({ AHP_TOKEN: secret, EMPTY_TOKEN: "", "oauth-client-secret": "client-secret-value" })
)

const bearerEnv = (name: string): Registration.Authentication => ({ type: "bearer", tokenEnv: name })

const connect = (url: string, authentication?: Registration.Authentication, options?: HttpTransport.Options) =>
  HttpTransport.connect({ type: "http", url }, authentication, options)

/** Fails the exchange and returns the error, asserting no credential leaks into it. */
const failureOf = <A, R>(self: Effect.Effect<A, { readonly reason: string; readonly status?: number }, R>) =>
  Effect.map(Effect.flip(self), (error) => {
    const rendered = `${JSON.stringify(error)} ${String(error)} ${(error as unknown as Error).message}`
    assert.notInclude(rendered, secret)
    assert.notInclude(rendered, "client-secret-value")
    assert.notInclude(rendered, "oauth-token-")
    return error
  })

describe("HttpTransport", () => {
  it.scopedLive("POSTs the JSON-RPC object as application/json over a kept-alive connection", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("ok")
      const endpoint = yield* connect(backend.url)
      assert.deepStrictEqual(yield* endpoint.request(request(7, { big: 1 })), okResponse(7))
      for (const id of [8, 9, 10]) assert.deepStrictEqual(yield* endpoint.request(request(id)), okResponse(id))
      const all = yield* httpRequests(backend.log)
      assert.isBelow(new Set(all.map((e) => e.remotePort)).size, all.length, "connections are kept alive and reused")
      const seen = all[0]
      assert.strictEqual(seen!.method, "POST")
      assert.strictEqual(seen!.path, "/hooks")
      assert.strictEqual(seen!.contentType, "application/json")
      assert.strictEqual(seen!.accept, "application/json")
      assert.deepStrictEqual(seen!.authorization, [])
      assert.strictEqual(seen!.body, JSON.stringify(request(7, { big: 1 })))
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("under an installed tracer a request carries its span's traceparent; under the built-in one none", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("ok")
      const endpoint = yield* connect(backend.url)
      yield* endpoint.request(request(1))
      const builtIn = yield* Effect.tracer
      const installed = Tracer.make({ span: (...args) => builtIn.span(...args), context: builtIn.context })
      const traceId = yield* endpoint.request(request(2)).pipe(
        Effect.zipRight(Effect.currentSpan),
        Effect.map((span) => span.traceId),
        Effect.withSpan("host"),
        Effect.withTracer(installed)
      )
      const [first, second] = yield* httpRequests(backend.log)
      assert.isUndefined(first!.traceparent)
      assert.match(String(second!.traceparent), new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`))
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("any status other than 200 fails a request with status (and the code)", () =>
    Effect.gen(function*() {
      const codes = [500, 503, 404, 201, 202, 204]
      const backend = yield* httpBackend("ok", "--sequence", codes.join(","))
      const endpoint = yield* connect(backend.url)
      for (const code of codes) {
        const error = yield* failureOf(endpoint.request(request(1)))
        assert.strictEqual(error.reason, "status", `HTTP ${code}`)
        assert.strictEqual(error.status, code)
      }
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("redirects (302, 307) are never followed", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("ok", "--sequence", "302,307")
      const endpoint = yield* connect(backend.url)
      for (const code of [302, 307]) {
        const error = yield* failureOf(endpoint.request(request(1)))
        assert.strictEqual(error.reason, "redirect")
        assert.strictEqual(error.status, code)
      }
      const paths = (yield* httpRequests(backend.log)).map((e) => e.path)
      assert.deepStrictEqual(paths, ["/hooks", "/hooks"], "the redirect target was never requested")
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("a 200 whose body is not one correlated JSON-RPC response is malformed", () =>
    Effect.gen(function*() {
      const behaviours = ["non-json", "invalid-json", "batch", "result-and-error", "wrong-id"]
      const backend = yield* httpBackend("ok", "--sequence", behaviours.join(","))
      const endpoint = yield* connect(backend.url)
      for (const behaviour of behaviours) {
        assert.strictEqual((yield* failureOf(endpoint.request(request(1)))).reason, "malformed", behaviour)
      }
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("an oversized body fails with oversized and is not read to the end", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("oversized", "--size", String(16 * 1024 * 1024))
      const endpoint = yield* connect(backend.url, undefined, { maxBodyBytes: 64 * 1024 })
      const started = Date.now()
      assert.strictEqual((yield* failureOf(endpoint.request(request(1)))).reason, "oversized")
      assert.isBelow(Date.now() - started, scaled(5000))
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("a reset or refused connection fails with connection", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("reset")
      const endpoint = yield* connect(backend.url)
      assert.strictEqual((yield* failureOf(endpoint.request(request(1)))).reason, "connection")
      const port = yield* Effect.async<number>((resume) => {
        const server = net.createServer().listen(0, "127.0.0.1", () => {
          const { port } = server.address() as net.AddressInfo
          server.close(() => resume(Effect.succeed(port)))
        })
      })
      const refused = yield* connect(`http://127.0.0.1:${port}/hooks`)
      assert.strictEqual((yield* failureOf(refused.request(request(1)))).reason, "connection")
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("a server that never answers is cut off by the caller's deadline and the connection is dropped", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("never-answer")
      const endpoint = yield* connect(backend.url)
      const error = yield* Effect.flip(
        endpoint.request(request(1)).pipe(
          Effect.timeoutFail({ duration: Duration.millis(300), onTimeout: () => new Deadline() })
        )
      )
      assert.strictEqual(error._tag, "Deadline")
      yield* waitForLog(backend.log, (e) => e.event === "closed")
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("closing the scope aborts an exchange in flight; it and later calls fail with closed", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("never-answer")
      const scope = yield* Scope.make()
      const endpoint = yield* connect(backend.url).pipe(Scope.extend(scope))
      const inFlight = yield* Effect.fork(endpoint.request(request(1)))
      yield* waitForLog(backend.log, (e) => e.event === "request")
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual((yield* failureOf(Fiber.join(inFlight))).reason, "closed")
      assert.strictEqual((yield* failureOf(endpoint.notify(notification()))).reason, "closed")
      yield* waitForLog(backend.log, (e) => e.event === "closed")
      assert.strictEqual((yield* httpRequests(backend.log)).length, 1)
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("closing the scope also aborts an OAuth token request in flight; the call fails with closed", () =>
    Effect.gen(function*() {
      const issuer = yield* httpBackend("never-answer")
      const scope = yield* Scope.make()
      const endpoint = yield* connect(issuer.url, {
        type: "oauth",
        issuer: issuer.origin,
        resource: "r",
        clientId: "harness",
        flow: "client_credentials"
      }).pipe(Scope.extend(scope))
      const inFlight = yield* Effect.fork(endpoint.request(request(1)))
      yield* waitForLog(
        issuer.log,
        (e) => e.event === "request" && e.path === "/.well-known/oauth-authorization-server"
      )
      yield* Scope.close(scope, Exit.void)
      assert.strictEqual((yield* failureOf(Fiber.join(inFlight))).reason, "closed")
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("notifications succeed with 202 or 204 and no body; a body or another status fails", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("ok", "--sequence", "202,204,ok,notify-with-body,500")
      const endpoint = yield* connect(backend.url)
      for (let i = 0; i < 3; i++) yield* endpoint.notify(notification())
      assert.strictEqual((yield* failureOf(endpoint.notify(notification()))).reason, "malformed")
      const error = yield* failureOf(endpoint.notify(notification()))
      assert.strictEqual(error.reason, "status")
      assert.strictEqual(error.status, 500)
      assert.strictEqual((yield* httpRequests(backend.log)).length, 5)
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("plain http to a non-loopback host is refused before sending", () =>
    Effect.gen(function*() {
      for (const url of ["http://example.com/hooks", "http://10.0.0.1:8080/hooks", "ftp://127.0.0.1/x"]) {
        const endpoint = yield* connect(url, bearerEnv("AHP_TOKEN"))
        assert.strictEqual((yield* failureOf(endpoint.request(request(1)))).reason, "unsupported", url)
      }
      const withUserInfo = yield* connect("https://user:pw@example.com/hooks")
      assert.strictEqual((yield* failureOf(withUserInfo.request(request(1)))).reason, "unsupported")
    }).pipe(Effect.provide(TestLayer)))
})

describe("HttpTransport authentication", () => {
  it.scopedLive("bearer: exactly one Authorization header with the resolved token", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend(`require-bearer=${secret}`)
      const endpoint = yield* connect(backend.url, bearerEnv("AHP_TOKEN"))
      assert.deepStrictEqual(yield* endpoint.request(request(1)), okResponse(1))
      yield* endpoint.notify(notification())
      const seen = yield* httpRequests(backend.log)
      assert.deepStrictEqual(seen.map((e) => e.authorization), [[`Bearer ${secret}`], [`Bearer ${secret}`]])
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("bearer: a JSON-RPC error answer quoting the token comes back with the token masked", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("error-echo-auth")
      const endpoint = yield* connect(backend.url, bearerEnv("AHP_TOKEN"))
      assert.deepStrictEqual(yield* endpoint.request(request(1)), {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32001, message: "refused Bearer [redacted]", data: { said: "refused Bearer [redacted]" } }
      })
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("bearer: a 401 re-resolves the (rotated) token and retries once with the same body and id", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("401-then-ok")
      const rotations = yield* Ref.make(0)
      const rotating = Credentials.layer(() =>
        Ref.updateAndGet(rotations, (n) => n + 1).pipe(Effect.map((n) => `rotated-token-${n}`))
      )
      const endpoint = yield* connect(backend.url, { type: "bearer", tokenRef: "rotating" }).pipe(
        Effect.provide(rotating)
      )
      assert.deepStrictEqual(yield* endpoint.request(request("same-id")), okResponse("same-id"))
      const seen = yield* httpRequests(backend.log)
      assert.strictEqual(seen.length, 2)
      assert.strictEqual(seen[0]!.body, seen[1]!.body)
      assert.strictEqual(JSON.parse(seen[1]!.body as string).id, "same-id")
      assert.deepStrictEqual(seen.map((e) => e.authorization), [["Bearer rotated-token-1"], ["Bearer rotated-token-2"]])
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("bearer: a second 401 fails with unauthorized after exactly two attempts", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("401-always")
      const endpoint = yield* connect(backend.url, bearerEnv("AHP_TOKEN"))
      const error = yield* failureOf(endpoint.request(request(1)))
      assert.strictEqual(error.reason, "unauthorized")
      assert.strictEqual(error.status, 401)
      assert.strictEqual((yield* httpRequests(backend.log)).length, 2)
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("no authentication: a 401 without protected resource metadata fails with credential, never retried", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("401-always")
      const endpoint = yield* connect(backend.url)
      const error = yield* failureOf(endpoint.request(request(1)))
      assert.strictEqual(error.reason, "credential")
      assert.include(String(error), "no protected resource metadata")
      const seen = (yield* httpRequests(backend.log)).map((e) => [e.method, e.path])
      assert.deepStrictEqual(seen, [
        ["POST", "/hooks"],
        ["GET", "/.well-known/oauth-protected-resource/hooks"],
        ["GET", "/.well-known/oauth-protected-resource"]
      ])
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("a missing or empty credential fails with credential and nothing is sent", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("ok")
      const bindings: Array<Registration.Authentication> = [
        bearerEnv("NOT_CONFIGURED"),
        bearerEnv("EMPTY_TOKEN"),
        { type: "bearer", tokenRef: "nope" }
      ]
      for (const auth of bindings) {
        const endpoint = yield* connect(backend.url, auth)
        const error = yield* failureOf(endpoint.request(request(1)))
        assert.strictEqual(error.reason, "credential")
        assert.strictEqual((yield* failureOf(endpoint.notify(notification()))).reason, "credential")
      }
      assert.deepStrictEqual(yield* httpRequests(backend.log), [], "the server received nothing")
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("tokens never appear in errors, whatever the failure", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("ok", "--sequence", "500,302,non-json,401,401,reset")
      const endpoint = yield* connect(backend.url, bearerEnv("AHP_TOKEN"))
      const reasons: Array<string> = []
      for (let i = 0; i < 5; i++) reasons.push((yield* failureOf(endpoint.request(request(i)))).reason)
      assert.deepStrictEqual(reasons, ["status", "redirect", "malformed", "unauthorized", "connection"])
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("oauth client_credentials: discovers the token endpoint, caches the token, refreshes after a 401", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend(
        "require-oauth",
        "--oauth",
        "--client-secret",
        "client-secret-value",
        "--sequence",
        "require-oauth,require-oauth,401"
      )
      const auth: Registration.Authentication = {
        type: "oauth",
        issuer: backend.origin,
        resource: "https://policy.example/hooks",
        clientId: "harness",
        clientSecretRef: "oauth-client-secret",
        flow: "client_credentials",
        scopes: ["hooks.intercept"]
      }
      const endpoint = yield* connect(backend.url, auth)
      for (const id of [1, 2, 3]) assert.deepStrictEqual(yield* endpoint.request(request(id)), okResponse(id))
      const seen = yield* httpRequests(backend.log)
      assert.deepStrictEqual(seen.map((e) => e.authorization), [
        ["Bearer oauth-token-1"],
        ["Bearer oauth-token-1"],
        ["Bearer oauth-token-1"],
        ["Bearer oauth-token-2"]
      ])
      const oauth = (yield* readLog(backend.log)).filter((e) => e.event === "oauth")
      assert.deepStrictEqual(oauth.map((e) => e.path), ["/.well-known/oauth-authorization-server", "/token", "/token"])
      const token = oauth[1]!
      assert.strictEqual(token.grantType, "client_credentials")
      assert.strictEqual(token.clientId, "harness")
      assert.strictEqual(token.resource, "https://policy.example/hooks")
      assert.strictEqual(token.scope, "hooks.intercept")
      assert.isTrue(token.secretOk)
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("oauth: failed token acquisition is credential, pkce is unsupported, nothing is sent", () =>
    Effect.gen(function*() {
      const backend = yield* httpBackend("ok", "--oauth", "--client-secret", "another-secret")
      const base = { type: "oauth", issuer: backend.origin, resource: "r", clientId: "harness" } as const
      const wrongSecret = yield* connect(backend.url, {
        ...base,
        flow: "client_credentials",
        clientSecretRef: "oauth-client-secret"
      })
      assert.strictEqual((yield* failureOf(wrongSecret.request(request(1)))).reason, "credential")
      const missingSecret = yield* connect(backend.url, {
        ...base,
        flow: "client_credentials",
        clientSecretRef: "nope"
      })
      assert.strictEqual((yield* failureOf(missingSecret.request(request(1)))).reason, "credential")
      const pkce = yield* connect(backend.url, { ...base, flow: "authorization_code_pkce" })
      assert.strictEqual((yield* failureOf(pkce.request(request(1)))).reason, "unsupported")
      assert.deepStrictEqual(yield* httpRequests(backend.log), [])
    }).pipe(Effect.provide(TestLayer)))
})

/** An authorization server for `https://issuer.test` whose metadata names `tokenEndpoint`; it also serves the backend. */
const issuerNaming = (tokenEndpoint: string) =>
  loopback(({ path }) =>
    path === "/.well-known/oauth-authorization-server"
      ? { status: 200, json: { issuer: "https://issuer.test", token_endpoint: tokenEndpoint } }
      : { status: 200, json: { jsonrpc: "2.0", id: 1, result: { protocolVersion: "draft", effects: [] } } }
  )

/** A token endpoint that issues `learned-token` to anyone. */
const tokenServer = loopback(() => ({
  status: 200,
  json: { access_token: "learned-token", token_type: "Bearer", expires_in: 60 }
}))

const issuerOAuth: Registration.Authentication = {
  type: "oauth",
  issuer: "https://issuer.test",
  resource: "https://backend.test/hooks",
  clientId: "harness",
  clientSecretRef: "oauth-client-secret",
  flow: "client_credentials"
}

describe("OAuth metadata cannot downgrade", () => {
  it("a learned token endpoint obeys the rules of a configured URL, cannot downgrade its issuer and keeps to its origin", () => {
    const https = new URL("https://issuer.test")
    const loopbackIssuer = new URL("http://127.0.0.1:4000")
    const none = new Set<string>()
    const allowed = oauthInternal.originsOf(["https://Tokens.Test:443/anything", "http://127.0.0.1:5000", "not a url"])
    const cases: ReadonlyArray<[string, URL, ReadonlySet<string>, boolean]> = [
      ["https://issuer.test/token", https, none, true],
      ["https://issuer.test:8443/token", https, none, false],
      ["https://tokens.test/token", https, none, false],
      ["https://tokens.test/token", https, allowed, true],
      ["http://issuer.test/token", https, none, false],
      ["http://127.0.0.1:5000/token", https, none, false],
      ["http://127.0.0.1:5000/token", https, allowed, false],
      ["https://user:pw@issuer.test/token", https, none, false],
      ["ftp://issuer.test/token", https, none, false],
      ["not a url", https, none, false],
      ["http://127.0.0.1:4000/token", loopbackIssuer, none, true],
      ["http://127.0.0.1:5000/token", loopbackIssuer, none, false],
      ["http://127.0.0.1:5000/token", loopbackIssuer, allowed, true],
      ["http://example.com/token", new URL("http://localhost:4000"), new Set(["http://example.com"]), false]
    ]
    for (const [endpoint, issuer, origins, accepted] of cases) {
      const checked = oauthInternal.checkTokenEndpoint(endpoint, issuer, origins)
      assert.strictEqual(checked._tag === "Right", accepted, `${endpoint} from ${issuer.origin}`)
      if (checked._tag === "Left") assert.strictEqual(checked.left.reason, "credential")
    }
  })

  it.scopedLive("an https issuer's metadata naming a plain-http token endpoint: credential, and the secret is sent nowhere", () =>
    Effect.gen(function*() {
      const tokens = yield* tokenServer
      const issuer = yield* issuerNaming(`${tokens.origin}/token`)
      const dispatcher = yield* routedDispatcher({
        "https://issuer.test": issuer.origin,
        "https://backend.test": issuer.origin
      })
      const endpoint = yield* connect("https://backend.test/hooks", issuerOAuth).pipe(
        Effect.provideService(HttpTransport.Dispatcher, dispatcher)
      )
      const error = yield* failureOf(endpoint.request(request(1)))
      assert.strictEqual(error.reason, "credential")
      assert.deepStrictEqual(tokens.seen, [], "the plain-http token endpoint is never contacted")
      assert.deepStrictEqual(issuer.seen.map((s) => [s.method, s.path]), [[
        "GET",
        "/.well-known/oauth-authorization-server"
      ]])
      for (const s of [...issuer.seen, ...tokens.seen]) assert.notInclude(s.body, clientSecret)
    }).pipe(Effect.provide(TestLayer)))

  it.scopedLive("a token endpoint on another origin is used only when configuration allows that origin", () =>
    Effect.gen(function*() {
      const tokens = yield* tokenServer
      const issuer = yield* issuerNaming("https://tokens.test/token")
      const dispatcher = yield* routedDispatcher({
        "https://issuer.test": issuer.origin,
        "https://backend.test": issuer.origin,
        "https://tokens.test": tokens.origin
      })
      const refused = yield* connect("https://backend.test/hooks", issuerOAuth).pipe(
        Effect.provideService(HttpTransport.Dispatcher, dispatcher)
      )
      assert.strictEqual((yield* failureOf(refused.request(request(1)))).reason, "credential")
      assert.deepStrictEqual(tokens.seen, [])
      const allowed = yield* connect("https://backend.test/hooks", issuerOAuth, {
        tokenEndpointOrigins: ["https://tokens.test"]
      }).pipe(
        Effect.provideService(HttpTransport.Dispatcher, dispatcher)
      )
      assert.deepStrictEqual(yield* allowed.request(request(1)), okResponse(1))
      assert.deepStrictEqual(tokens.seen.map((s) => [s.method, s.path]), [["POST", "/token"]])
      assert.strictEqual(new URLSearchParams(tokens.seen[0]!.body).get("client_secret"), clientSecret)
      assert.deepStrictEqual(issuer.seen.filter((s) => s.path === "/hooks").map((s) => s.authorization), [
        "Bearer learned-token"
      ])
    }).pipe(Effect.provide(TestLayer)))

  for (const policy of ["fail-open", "fail-closed"] as const) {
    it.scopedLive(`through the harness the route fails with credential under its policy (${policy})`, () =>
      Effect.gen(function*() {
        const tokens = yield* tokenServer
        const issuer = yield* issuerNaming(`${tokens.origin}/token`)
        const dispatcher = yield* routedDispatcher({
          "https://issuer.test": issuer.origin,
          "https://backend.test": issuer.origin
        })
        const transports = NodeTransports.layer().pipe(
          Layer.provide(Layer.merge(TestLayer, Layer.succeed(HttpTransport.Dispatcher, dispatcher)))
        )
        const reg = {
          protocolVersion: "draft",
          hooks: [{
            id: "com.example.oauth",
            transport: { type: "http", url: "https://backend.test/hooks" },
            authentication: issuerOAuth,
            subscriptions: [{
              mode: "intercept",
              events: ["tool.before"],
              timeoutMs: 10_000,
              failurePolicy: policy,
              content: { default: "body" }
            }]
          }]
        }
        const result = yield* Hooks.dispatch("tool.before", {
          tool: { name: "bash", input: { command: "ls" }, origin: "native" },
          call: { id: "call-1" },
          path: "main"
        }).pipe(Effect.provide(Hooks.layerUnknown(reg).pipe(Layer.provide(transports))))
        assert.deepStrictEqual(result.errors.map((e) => [e.code, e.policy, e.syntheticDenial]), [[
          "credential",
          policy,
          policy === "fail-closed"
        ]])
        assert.strictEqual(result.decision.permission, policy === "fail-closed" ? "deny" : "none")
        assert.notInclude(JSON.stringify(result.errors), clientSecret)
        assert.deepStrictEqual(tokens.seen, [])
      }))
  }
})
