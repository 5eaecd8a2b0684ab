import { Credentials, HttpAuth, HttpTransport, OAuthLogin, TokenStore } from "@effect-ahp/node"
import type { Registration } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Fiber, Layer, Option, Redacted } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  browser,
  issuer,
  pkceBinding,
  resourceUrl,
  silentBrowser,
  type World,
  world,
  type WorldOptions
} from "./oauthWorld.js"
import { okResponse, request, tempFile } from "./utils.js"

const backendId = "com.example.rs"

const subscriptions: Registration.Backend["subscriptions"] = [{
  mode: "intercept",
  events: ["tool.before"],
  timeoutMs: 5000,
  failurePolicy: "fail-closed",
  content: { default: "metadata" }
}]

const withBinding: Registration.Backend = {
  id: backendId,
  transport: { type: "http", url: resourceUrl },
  authentication: pkceBinding,
  subscriptions
}

const pkceClient: HttpAuth.Client = { issuer, clientId: "person", flow: "authorization_code_pkce", scopes: ["hooks"] }

/** The token store in a fresh file, located through `Config` (`AHP_OAUTH_TOKENS`). */
const fileStore = Effect.map(tempFile("state/ahp/tokens.json"), (file) => ({
  file,
  layer: TokenStore.layerConfig().pipe(
    Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["AHP_OAUTH_TOKENS", file]]))))
  )
}))

/** What the tests need around a world: its dispatcher, the store, a browser double, no secrets. */
const services = (
  w: World,
  store: Layer.Layer<TokenStore.TokenStore>,
  opened: Array<string>,
  tamper?: (u: URL) => URL
) => Layer.mergeAll(w.dispatcherLayer, store, browser(w, opened, tamper), Credentials.layerTest({}))

const connect = (backend: Registration.Backend, options: HttpTransport.Options = {}) =>
  HttpTransport.connect(backend.transport as Registration.HttpTransport, backend.authentication, options, {
    backend: backend.id
  })

const noTokens = (text: string) => {
  for (const token of ["at-", "rt-", "code-"]) assert.notInclude(text, token)
}

const loginFailure = <A, R>(self: Effect.Effect<A, OAuthLogin.LoginError, R>) =>
  Effect.map(Effect.flip(self), (error) => {
    noTokens(`${JSON.stringify(error)} ${error.message}`)
    return error
  })

describe("OAuthLogin", () => {
  it.scopedLive("login, use, refresh at dispatch, status, logout: the whole cycle against a local authorization server", () =>
    Effect.gen(function*() {
      const w = yield* world()
      const { file, layer } = yield* fileStore
      const opened: Array<string> = []
      yield* Effect.gen(function*() {
        const endpoint = yield* connect(withBinding)
        const before = yield* Effect.flip(endpoint.request(request(1)))
        assert.strictEqual(before.reason, "credential")
        assert.include(before.message, `run \`ahp auth login ${backendId}\``)
        assert.deepStrictEqual(w.rs.seen, [], "nothing is sent without a login")

        const loggedIn = yield* OAuthLogin.login(withBinding)
        assert.isTrue(loggedIn.refreshable)
        assert.deepStrictEqual(loggedIn.target.key, { issuer, resource: resourceUrl, clientId: "person" })
        const authorize = new URL(opened[0]!)
        const q = authorize.searchParams
        assert.strictEqual(`${authorize.origin}${authorize.pathname}`, `${issuer}/authorize`)
        assert.strictEqual(q.get("response_type"), "code")
        assert.strictEqual(q.get("client_id"), "person")
        assert.strictEqual(q.get("code_challenge_method"), "S256")
        assert.match(q.get("code_challenge")!, /^[A-Za-z0-9_-]{43}$/)
        assert.match(q.get("state")!, /^[A-Za-z0-9_-]{32}$/)
        assert.strictEqual(q.get("resource"), resourceUrl)
        assert.strictEqual(q.get("scope"), "hooks")
        assert.match(q.get("redirect_uri")!, /^http:\/\/127\.0\.0\.1:\d+\/callback$/)
        const exchange = w.grants[0]!
        assert.strictEqual(exchange.get("grant_type"), "authorization_code")
        assert.strictEqual(exchange.get("redirect_uri"), q.get("redirect_uri"))
        assert.isFalse(exchange.has("client_secret"))

        assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
        assert.strictEqual(fs.statSync(path.dirname(file)).mode & 0o777, 0o700)
        assert.include(fs.readFileSync(file, "utf8"), "\"at-1\"")

        assert.deepStrictEqual(yield* endpoint.request(request(2)), okResponse(2))
        assert.deepStrictEqual(w.rs.seen.map((s) => s.authorization), ["Bearer at-1"])

        // The access token expires: the next dispatch refreshes it (and the rotated refresh token is kept).
        const store = yield* TokenStore.TokenStore
        const entry = Option.getOrThrow(yield* store.get(loggedIn.target.key))
        yield* store.put({ ...entry, expiresAt: Date.now() - 1 })
        assert.deepStrictEqual(yield* endpoint.request(request(3)), okResponse(3))
        assert.deepStrictEqual(w.rs.seen.map((s) => s.authorization), ["Bearer at-1", "Bearer at-2"])
        const refresh = w.grants[1]!
        assert.deepStrictEqual(
          [refresh.get("grant_type"), refresh.get("refresh_token"), refresh.get("resource"), refresh.get("client_id")],
          ["refresh_token", "rt-1", resourceUrl, "person"]
        )
        const refreshed = Option.getOrThrow(yield* store.get(loggedIn.target.key))
        assert.strictEqual(Redacted.value(refreshed.accessToken), "at-2")
        assert.strictEqual(Redacted.value(refreshed.refreshToken!), "rt-2")

        const status = yield* OAuthLogin.status([withBinding])
        assert.deepStrictEqual(status.map((s) => [s.backend, s.key.issuer, s.refreshable]), [[backendId, issuer, true]])
        noTokens(JSON.stringify(status))

        assert.strictEqual(yield* OAuthLogin.logout(withBinding), 1)
        assert.deepStrictEqual(yield* OAuthLogin.status([withBinding]), [])
        const after = yield* Effect.flip(endpoint.request(request(4)))
        assert.strictEqual(after.reason, "credential")
        assert.include(after.message, `ahp auth login ${backendId}`)
        assert.strictEqual(w.rs.seen.length, 2, "nothing is sent after logout")
      }).pipe(Effect.provide(services(w, layer, opened)))
    }))

  it.scopedLive("a refused refresh fails the call naming the login command; nothing is sent", () =>
    Effect.gen(function*() {
      const w = yield* world()
      const opened: Array<string> = []
      yield* Effect.gen(function*() {
        const loggedIn = yield* OAuthLogin.login(withBinding)
        const store = yield* TokenStore.TokenStore
        const entry = Option.getOrThrow(yield* store.get(loggedIn.target.key))
        yield* store.put({ ...entry, expiresAt: Date.now() - 1, refreshToken: Redacted.make("rt-stale") })
        const endpoint = yield* connect(withBinding)
        const error = yield* Effect.flip(endpoint.request(request(1)))
        assert.strictEqual(error.reason, "credential")
        assert.include(error.message, "refused")
        assert.include(error.message, `ahp auth login ${backendId}`)
        assert.deepStrictEqual(w.rs.seen, [])
      }).pipe(Effect.provide(services(w, TokenStore.layerMemory(), opened)))
    }))

  it.scopedLive("a login through discovery (no binding) stores the discovered resource; dispatch finds it after the 401", () =>
    Effect.gen(function*() {
      const w = yield* world()
      const opened: Array<string> = []
      const noBinding: Registration.Backend = {
        id: backendId,
        transport: { type: "http", url: resourceUrl },
        subscriptions
      }
      yield* Effect.gen(function*() {
        const loggedIn = yield* OAuthLogin.login(noBinding, { clients: [pkceClient] })
        assert.deepStrictEqual(loggedIn.target.key, { issuer, resource: resourceUrl, clientId: "person" })
        const probe = JSON.parse(w.rs.seen[0]!.body) as { method: string }
        assert.strictEqual(probe.method, "hooks/capabilities", "the probe is a capabilities request, never an event")
        const endpoint = yield* connect(noBinding, { clients: [pkceClient] })
        assert.deepStrictEqual(yield* endpoint.request(request(1)), okResponse(1))
        assert.deepStrictEqual(w.rs.seen.filter((s) => s.method === "POST").map((s) => s.authorization), [
          undefined,
          undefined,
          "Bearer at-1"
        ])
        assert.deepStrictEqual((yield* OAuthLogin.status([noBinding], { clients: [pkceClient] })).length, 1)
        assert.deepStrictEqual(yield* OAuthLogin.status([noBinding]), [], "without the client, nothing belongs to it")
      }).pipe(Effect.provide(services(w, TokenStore.layerMemory(), opened)))
    }))

  const refusals: ReadonlyArray<
    readonly [string, WorldOptions, ((u: URL) => URL) | undefined, OAuthLogin.LoginError["reason"], boolean]
  > = [
    [
      "a redirect with another state",
      {},
      (u) => {
        u.searchParams.set("state", "forged")
        return u
      },
      "state",
      true
    ],
    ["a denied authorization", { denyWith: "access_denied" }, undefined, "denied", true],
    [
      "an issuer without PKCE S256",
      { issuerMetadata: { code_challenge_methods_supported: ["plain"] } },
      undefined,
      "discovery",
      false
    ],
    [
      "issuer metadata naming another issuer",
      { issuerMetadata: { issuer: "https://evil.test" } },
      undefined,
      "discovery",
      false
    ],
    [
      "a plain-http authorization endpoint",
      { issuerMetadata: { authorization_endpoint: "http://as.test/authorize" } },
      undefined,
      "discovery",
      false
    ]
  ]
  for (const [name, options, tamper, reason, opens] of refusals) {
    it.scopedLive(`${name}: the login fails with ${reason}, no token is requested or stored`, () =>
      Effect.gen(function*() {
        const w = yield* world(options)
        const opened: Array<string> = []
        yield* Effect.gen(function*() {
          const error = yield* loginFailure(OAuthLogin.login(withBinding))
          assert.strictEqual(error.reason, reason, error.message)
          assert.strictEqual(opened.length, opens ? 1 : 0)
          assert.deepStrictEqual(w.grants, [])
          assert.deepStrictEqual(yield* (yield* TokenStore.TokenStore).list, [])
        }).pipe(Effect.provide(services(w, TokenStore.layerMemory(), opened, tamper)))
      }))
  }

  it.scopedLive("a login nobody completes times out, and its loopback listener is closed", () =>
    Effect.gen(function*() {
      const w = yield* world()
      const opened: Array<string> = []
      const error = yield* loginFailure(OAuthLogin.login(withBinding, { timeout: "300 millis" })).pipe(
        Effect.provide(
          Layer.mergeAll(w.dispatcherLayer, TokenStore.layerMemory(), silentBrowser(opened), Credentials.layerTest({}))
        )
      )
      assert.strictEqual(error.reason, "timeout")
      const redirect = new URL(opened[0]!).searchParams.get("redirect_uri")!
      const refused = yield* Effect.promise(() => fetch(redirect).then(() => false, () => true))
      assert.isTrue(refused, "the listener no longer accepts connections")
    }))

  it.scopedLive("bindings that need no login are refused with unsupported", () =>
    Effect.gen(function*() {
      const w = yield* world()
      const cases: ReadonlyArray<Registration.Backend> = [
        { ...withBinding, authentication: { type: "bearer", tokenEnv: "T" } },
        { ...withBinding, authentication: { ...pkceBinding, flow: "client_credentials" } },
        { id: backendId, transport: { type: "stdio", command: "x", lifecycle: "persistent" }, subscriptions }
      ]
      for (const backend of cases) {
        const error = yield* loginFailure(OAuthLogin.target(backend)).pipe(Effect.provide(w.dispatcherLayer))
        assert.strictEqual(error.reason, "unsupported")
      }
      assert.deepStrictEqual(w.traffic, [])
    }))
})

const waitingDone = <A, E>(fiber: Fiber.RuntimeFiber<A, E>) => Effect.timeout(Fiber.join(fiber), "5 seconds")

describe("TokenStore", () => {
  it.scopedLive("a file that is not a token file is a format error naming the file, never its content", () =>
    Effect.gen(function*() {
      const { file, layer } = yield* fileStore
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(file, "{\"secret\":\"do-not-print\"}", { mode: 0o600 })
      const error = yield* Effect.flip(Effect.flatMap(TokenStore.TokenStore, (s) => s.list).pipe(Effect.provide(layer)))
      assert.strictEqual(error.reason, "format")
      assert.include(error.message, file)
      assert.notInclude(error.message, "do-not-print")
    }))

  it.scopedLive("a change waits for a lock held by a live process, and takes over one left by a process that is gone", () =>
    Effect.gen(function*() {
      const file = yield* tempFile("state/ahp/tokens.json")
      const store = yield* TokenStore.makeFile(file)
      const entry: TokenStore.Entry = {
        issuer,
        resource: resourceUrl,
        clientId: "person",
        scopes: [],
        accessToken: Redacted.make("at-1"),
        refreshToken: undefined,
        expiresAt: undefined
      }
      fs.mkdirSync(path.dirname(file), { recursive: true })
      fs.writeFileSync(`${file}.lock`, String(process.pid))
      const waiting = yield* Effect.fork(store.put(entry))
      yield* Effect.sleep("200 millis")
      assert.isNull(waiting.unsafePoll(), "a lock held by a live process is waited for")
      assert.isFalse(fs.existsSync(file))
      fs.rmSync(`${file}.lock`)
      yield* waitingDone(waiting)
      assert.deepStrictEqual((yield* store.list).map((e) => Redacted.value(e.accessToken)), ["at-1"])

      const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
        encoding: "utf8"
      })
      fs.writeFileSync(`${file}.lock`, gone.stdout)
      const modified = yield* store.modify(
        entry,
        (current) =>
          Effect.succeed(
            [Option.map(current, (e) => Redacted.value(e.accessToken)), {
              ...entry,
              accessToken: Redacted.make("at-2")
            }] as const
          )
      )
      assert.deepStrictEqual(modified, Option.some("at-1"))
      assert.deepStrictEqual((yield* store.list).map((e) => Redacted.value(e.accessToken)), ["at-2"])
      assert.isFalse(fs.existsSync(`${file}.lock`), "the lock is removed after the change")
    }))

  it.effect("without a configured location the store fails with location when used", () =>
    Effect.gen(function*() {
      const layer = TokenStore.layerConfig().pipe(
        Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map())))
      )
      const error = yield* Effect.flip(Effect.flatMap(TokenStore.TokenStore, (s) => s.list).pipe(Effect.provide(layer)))
      assert.strictEqual(error.reason, "location")
    }))

  it.effect("the location falls back to XDG_STATE_HOME, then HOME/.local/state", () =>
    Effect.gen(function*() {
      const at = (entries: Array<[string, string]>) =>
        Effect.withConfigProvider(TokenStore.fileConfig, ConfigProvider.fromMap(new Map(entries)))
      assert.strictEqual(yield* at([["XDG_STATE_HOME", "/s"], ["HOME", "/h"]]), "/s/ahp/oauth-tokens.json")
      assert.strictEqual(yield* at([["HOME", "/h"]]), "/h/.local/state/ahp/oauth-tokens.json")
      assert.strictEqual(yield* at([["AHP_OAUTH_TOKENS", "/t.json"], ["HOME", "/h"]]), "/t.json")
    }))
})
