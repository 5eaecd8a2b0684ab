import { Hooks } from "@effect-ahp/harness"
import type { TransportError } from "@effect-ahp/harness/Transport"
import { Credentials, HttpAuth, HttpTransport, NodeTransports } from "@effect-ahp/node"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Either, Layer, Option, Redacted } from "effect"
import * as fs from "node:fs"
import { fileURLToPath } from "node:url"
import * as Undici from "undici"
import { scaled } from "../../../test/support/load.js"
import * as oauthInternal from "../src/internal/oauth.js"
import {
  clientSecret,
  issuer,
  metadataUrl,
  type Reply,
  resourceUrl,
  type World,
  world,
  type WorldOptions
} from "./oauthWorld.js"
import { okResponse, request } from "./utils.js"

const Secrets = Credentials.layerTest({ "oauth-client-secret": clientSecret, AHP_POLICY_TOKEN: "policy-bearer-token" })

const client: HttpAuth.Client = {
  issuer,
  clientId: "harness",
  flow: "client_credentials",
  clientSecretRef: "oauth-client-secret",
  scopes: ["hooks"]
}

const connectTo = (w: World, url: string = resourceUrl, options: HttpTransport.Options = { clients: [client] }) =>
  HttpTransport.connect({ type: "http", url }, undefined, options, { backend: "com.example.rs" }).pipe(
    Effect.provideService(HttpTransport.Dispatcher, w.dispatcher)
  )

/** The failure of `self`, asserting no token or secret leaks into it. */
const failureOf = <A, R>(self: Effect.Effect<A, { readonly reason: string; readonly detail: string }, R>) =>
  Effect.map(Effect.flip(self), (error) => {
    const rendered = `${JSON.stringify(error)} ${String(error)}`
    for (const secret of [clientSecret, "at-", "rt-", "policy-bearer-token"]) assert.notInclude(rendered, secret)
    return error
  })

/** Asserts the client secret went to the token endpoint only. */
const secretOnlyAtTokenEndpoint = (w: World) => {
  for (const s of w.rs.seen) assert.notInclude(`${s.path} ${s.body} ${s.authorization}`, clientSecret)
  for (const s of w.as.seen.filter((s) => s.path !== "/token")) assert.notInclude(`${s.path} ${s.body}`, clientSecret)
}

const posts = (w: World) => w.rs.seen.filter((s) => s.method === "POST")

describe("HttpAuth: protected resource discovery", () => {
  it.scopedLive("a 401 with resource_metadata: metadata, issuer, a resource-bound token, one retry; later calls send it at once", () =>
    Effect.gen(function*() {
      const w = yield* world()
      const endpoint = yield* connectTo(w)
      assert.deepStrictEqual(yield* endpoint.request(request(1)), okResponse(1))
      assert.deepStrictEqual(yield* endpoint.request(request(2)), okResponse(2))
      assert.deepStrictEqual(w.traffic, [
        "POST https://rs.test/hooks",
        `GET ${metadataUrl}`,
        "GET https://as.test/.well-known/oauth-authorization-server",
        "POST https://as.test/token",
        "POST https://rs.test/hooks",
        "POST https://rs.test/hooks"
      ])
      assert.deepStrictEqual(posts(w).map((s) => s.authorization), [undefined, "Bearer at-1", "Bearer at-1"])
      assert.strictEqual(posts(w)[0]!.body, posts(w)[1]!.body, "the retry sends the identical body")
      const grant = w.grants[0]!
      assert.deepStrictEqual(Object.fromEntries(grant), {
        grant_type: "client_credentials",
        client_id: "harness",
        resource: resourceUrl,
        scope: "hooks",
        client_secret: clientSecret
      })
      secretOnlyAtTokenEndpoint(w)
    }).pipe(Effect.provide(Secrets)))

  it.scopedLive("without resource_metadata the well-known locations are tried in order: path-specific, then origin root", () =>
    Effect.gen(function*() {
      const w = yield* world({
        challenge: "Bearer",
        resourceMetadata: (path) =>
          path === "/.well-known/oauth-protected-resource"
            ? {
              status: 200,
              json: { resource: "https://rs.test/", authorization_servers: ["https://elsewhere.test", issuer] }
            }
            : { status: 404 }
      })
      const endpoint = yield* connectTo(w)
      assert.deepStrictEqual(yield* endpoint.request(request(1)), okResponse(1))
      assert.deepStrictEqual(w.traffic.slice(0, 4), [
        "POST https://rs.test/hooks",
        "GET https://rs.test/.well-known/oauth-protected-resource/hooks",
        "GET https://rs.test/.well-known/oauth-protected-resource",
        "GET https://as.test/.well-known/oauth-authorization-server"
      ])
      assert.strictEqual(
        w.grants[0]!.get("resource"),
        "https://rs.test/",
        "the token is bound to the discovered resource"
      )
    }).pipe(Effect.provide(Secrets)))

  it.scopedLive("endpoints sharing one HttpAuth share its tokens (per issuer, resource and client) and what discovery learned", () =>
    Effect.gen(function*() {
      const w = yield* world()
      const auth = HttpTransport.layerAuth({ clients: [client] }).pipe(
        Layer.provide(Layer.merge(w.dispatcherLayer, Secrets))
      )
      const [a, b] = yield* Effect.all([connectTo(w), connectTo(w)]).pipe(Effect.provide(auth))
      yield* a.request(request(1))
      yield* b.request(request(2))
      assert.strictEqual(w.grants.length, 1)
      assert.deepStrictEqual(posts(w).map((s) => s.authorization), [undefined, "Bearer at-1", "Bearer at-1"])
    }).pipe(Effect.provide(Secrets)))

  it.scopedLive("event and upload endpoints are authorized independently: an upload authorizer inherits nothing", () =>
    Effect.gen(function*() {
      const w = yield* world()
      const auth = yield* HttpAuth.make({
        dispatcher: w.dispatcher,
        credentials: yield* Credentials.CredentialResolver,
        store: Option.none()
      }, {
        clients: [client]
      })
      const target = { url: new URL(resourceUrl), authentication: undefined, backend: "com.example.rs" } as const
      const events = auth.authorizer({ ...target, purpose: "event" })
      const token = yield* events.challenge({
        wwwAuthenticate: `Bearer resource_metadata="${metadataUrl}"`,
        credential: Option.none()
      })
      assert.strictEqual(Redacted.value(token), "at-1")
      assert.isTrue(Option.isSome(yield* events.credential))
      const uploads = auth.authorizer({ ...target, purpose: "upload" })
      assert.isTrue(Option.isNone(yield* uploads.credential), "the upload endpoint starts without a credential")
    }).pipe(Effect.provide(Secrets)))

  const hostile: ReadonlyArray<readonly [string, WorldOptions, string, ReadonlyArray<string>]> = [
    [
      "metadata for another resource",
      {
        resourceMetadata: () => ({
          status: 200,
          json: { resource: "https://other.test/hooks", authorization_servers: [issuer] }
        })
      },
      "credential",
      [`GET ${metadataUrl}`]
    ],
    [
      "metadata at the origin root naming the endpoint's sibling",
      {
        challenge: "Bearer",
        resourceMetadata: (path) =>
          path === "/.well-known/oauth-protected-resource"
            ? { status: 200, json: { resource: "https://rs.test/other", authorization_servers: [issuer] } }
            : { status: 404 }
      },
      "credential",
      [
        "GET https://rs.test/.well-known/oauth-protected-resource/hooks",
        "GET https://rs.test/.well-known/oauth-protected-resource"
      ]
    ],
    ["a plain-http metadata URL", { challenge: "Bearer resource_metadata=\"http://rs.test/prm\"" }, "credential", []],
    [
      "a metadata URL on a private address",
      { challenge: "Bearer resource_metadata=\"https://10.0.0.7/prm\"" },
      "credential",
      []
    ],
    [
      "a metadata URL on loopback",
      { challenge: "Bearer resource_metadata=\"https://127.0.0.1:1/prm\"" },
      "credential",
      []
    ],
    [
      "no authorization server",
      { resourceMetadata: () => ({ status: 200, json: { resource: resourceUrl, authorization_servers: [] } }) },
      "credential",
      [`GET ${metadataUrl}`]
    ],
    [
      "only authorization servers this harness has no client for",
      {
        resourceMetadata: () => ({
          status: 200,
          json: { resource: resourceUrl, authorization_servers: ["https://evil.test"] }
        })
      },
      "credential",
      [`GET ${metadataUrl}`]
    ],
    [
      "issuer metadata naming another issuer",
      { issuerMetadata: { issuer: "https://evil.test" } },
      "credential",
      [`GET ${metadataUrl}`, "GET https://as.test/.well-known/oauth-authorization-server"]
    ],
    [
      "a plain-http token endpoint",
      { issuerMetadata: { token_endpoint: "http://as.test/token" } },
      "credential",
      [`GET ${metadataUrl}`, "GET https://as.test/.well-known/oauth-authorization-server"]
    ],
    [
      "a token endpoint on another origin",
      { issuerMetadata: { token_endpoint: "https://tokens.test/token" } },
      "credential",
      [`GET ${metadataUrl}`, "GET https://as.test/.well-known/oauth-authorization-server"]
    ],
    [
      "a challenge asking for scopes the client may not request",
      { challenge: `Bearer resource_metadata="${metadataUrl}", scope="hooks admin"` },
      "credential",
      [`GET ${metadataUrl}`]
    ],
    [
      "oversized metadata",
      {
        resourceMetadata: () => ({
          status: 200,
          raw: Buffer.from(
            JSON.stringify({ resource: resourceUrl, authorization_servers: [issuer], pad: "x".repeat(200_000) })
          )
        })
      },
      "oversized",
      [`GET ${metadataUrl}`]
    ]
  ]
  for (const [name, options, reason, gets] of hostile) {
    it.scopedLive(`${name}: ${reason}, no token requested, no anonymous retry, no secret sent`, () =>
      Effect.gen(function*() {
        const w = yield* world(options)
        const endpoint = yield* connectTo(w)
        const error = yield* failureOf(endpoint.request(request(1)))
        assert.strictEqual(error.reason, reason, error.detail)
        assert.deepStrictEqual(w.traffic, ["POST https://rs.test/hooks", ...gets])
        assert.deepStrictEqual(w.grants, [])
        secretOnlyAtTokenEndpoint(w)
      }).pipe(Effect.provide(Secrets)))
  }

  it.scopedLive("a 401 loop: each call makes exactly one retry and fails with unauthorized; a rejected token is replaced", () =>
    Effect.gen(function*() {
      const w = yield* world({ alwaysUnauthorized: true })
      const endpoint = yield* connectTo(w)
      assert.strictEqual((yield* failureOf(endpoint.request(request(1)))).reason, "unauthorized")
      assert.strictEqual((yield* failureOf(endpoint.request(request(2)))).reason, "unauthorized")
      assert.deepStrictEqual(posts(w).map((s) => s.authorization), [
        undefined,
        "Bearer at-1",
        "Bearer at-1",
        "Bearer at-2"
      ])
      assert.strictEqual(w.grants.length, 2)
    }).pipe(Effect.provide(Secrets)))

  it("a discovered URL keeps to the rules of what named it: no downgrade, no way into loopback or private hosts", () => {
    const cases: ReadonlyArray<readonly [string, string, boolean]> = [
      ["https://as.test/m", "https://rs.test/hooks", true],
      ["http://as.test/m", "https://rs.test/hooks", false],
      ["http://127.0.0.1:9/m", "https://127.0.0.1:8/hooks", false],
      ["https://127.0.0.1:9/m", "https://127.0.0.1:8/hooks", true],
      ["http://127.0.0.1:9/m", "http://127.0.0.1:8/hooks", true],
      ["https://localhost/m", "https://rs.test/hooks", false],
      ["https://192.168.1.2/m", "https://rs.test/hooks", false],
      ["https://172.20.0.1/m", "https://rs.test/hooks", false],
      ["https://169.254.169.254/m", "https://rs.test/hooks", false],
      ["https://[::1]/m", "https://rs.test/hooks", false],
      ["https://[fd00::1]/m", "https://rs.test/hooks", false],
      ["https://172.32.0.1/m", "https://rs.test/hooks", true],
      ["https://100.64.0.1/m", "https://rs.test/hooks", false],
      ["https://0.0.0.0/m", "https://rs.test/hooks", false],
      ["https://[fe80::1]/m", "https://rs.test/hooks", false],
      ["https://[::ffff:127.0.0.1]/m", "https://rs.test/hooks", false],
      ["https://[::ffff:10.0.0.1]/m", "https://rs.test/hooks", false],
      ["https://[::ffff:8.8.8.8]/m", "https://rs.test/hooks", true],
      ["https://[2606:4700::1111]/m", "https://rs.test/hooks", true],
      ["https://u:p@as.test/m", "https://rs.test/hooks", false]
    ]
    for (const [url, anchor, accepted] of cases) {
      const checked = oauthInternal.checkDiscovered(url, new URL(anchor), "metadata URL")
      assert.strictEqual(checked._tag === "Right", accepted, `${url} from ${anchor}`)
      if (checked._tag === "Left") assert.strictEqual(checked.left.reason, "credential")
    }
  })

  it.effect("a discovered host name is looked up: one resolving to a loopback or private address is not asked", () =>
    Effect.gen(function*() {
      const endpoint = new URL("https://rs.test/hooks")
      const challenge = { resourceMetadata: "https://meta.test/m", scopes: undefined }
      const lookups: Array<string> = []
      const discover = (addresses: ReadonlyArray<string> | "fails") =>
        Effect.gen(function*() {
          const agent = new Undici.MockAgent()
          agent.disableNetConnect()
          agent.get("https://meta.test").intercept({ path: "/m" }).reply(
            200,
            { resource: "https://rs.test/hooks", authorization_servers: ["https://as.test"] },
            { headers: { "content-type": "application/json" } }
          )
          const resolve = (hostname: string) => {
            lookups.push(hostname)
            return addresses === "fails" ? Promise.reject(new Error("ENOTFOUND")) : Promise.resolve(addresses)
          }
          const config = { dispatcher: agent, maxMetadataBytes: 65_536, refreshMargin: Duration.seconds(30), resolve }
          const result = yield* Effect.either(oauthInternal.discoverResource(config, endpoint, challenge))
          const asked = agent.pendingInterceptors().length === 0
          yield* Effect.promise(() => agent.close())
          return { asked, result }
        })
      const refused = (run: { readonly asked: boolean; readonly result: Either.Either<unknown, TransportError> }) => {
        assert.isFalse(run.asked, "no request reaches the server")
        assert.strictEqual(Either.isLeft(run.result) ? run.result.left.reason : "accepted", "credential")
        return Either.isLeft(run.result) ? run.result.left.detail : ""
      }
      for (const addresses of [["10.1.2.3"], ["93.184.216.34", "127.0.0.1"], ["::1"], ["::ffff:192.168.0.9"]]) {
        assert.match(refused(yield* discover(addresses)), /host name resolves to a loopback or private address/)
      }
      assert.match(refused(yield* discover([])), /host name does not resolve/)
      assert.match(refused(yield* discover("fails")), /host name does not resolve/)
      const allowed = yield* discover(["93.184.216.34", "2606:4700::1111"])
      assert.isTrue(allowed.asked)
      assert.deepStrictEqual(Either.getOrUndefined(allowed.result), {
        resource: "https://rs.test/hooks",
        authorizationServers: ["https://as.test"]
      })
      assert.deepStrictEqual(lookups, Array.from({ length: 7 }, () => "meta.test"))
      const unchecked = (url: string, anchor: string) =>
        Effect.either(
          oauthInternal.checkResolved(
            () => Promise.reject(new Error("looked up")),
            new URL(url),
            new URL(anchor),
            "URL"
          )
        )
      assert.isTrue(
        Either.isRight(yield* unchecked("https://93.184.216.34/m", "https://rs.test/hooks")),
        "a literal address"
      )
      assert.isTrue(
        Either.isRight(yield* unchecked("https://meta.test/m", "https://127.0.0.1:8/hooks")),
        "a local anchor"
      )
      assert.isTrue(Either.isRight(yield* unchecked("https://rs.test/m", "https://rs.test/hooks")), "the anchor's host")
      const off = oauthInternal.checkResolved(false, new URL("https://meta.test/m"), endpoint, "URL")
      assert.isTrue(Either.isRight(yield* Effect.either(off)), "lookupHost: false")
    }))

  it("parses Bearer challenges among others, quoted or not", () => {
    const parse = (v: string | Array<string>) => oauthInternal.parseChallenges(v)
    assert.deepStrictEqual(parse(`Basic realm="x", Bearer realm="a,b", resource_metadata="https://r/p", scope="a b"`), {
      resourceMetadata: "https://r/p",
      scopes: ["a", "b"]
    })
    assert.deepStrictEqual(parse([`Basic resource_metadata="https://evil"`, `Bearer scope=one`]), {
      resourceMetadata: undefined,
      scopes: ["one"]
    })
    assert.deepStrictEqual(parse(`Bearer error="invalid_token", resource_metadata="https://r/\\"q"`), {
      resourceMetadata: `https://r/"q`,
      scopes: undefined
    })
    assert.deepStrictEqual(parse(`Bearer`), { resourceMetadata: undefined, scopes: undefined })
  })
})

const ahp = fileURLToPath(new URL("../../../../shared/ahp/", import.meta.url))
const portable = `${ahp}fixtures/draft/registration/portable.valid.json`

/** The official portable registration's HTTP backend, pointed through `w`'s dispatcher. */
const portableHooks = (w: World, edit: (backend: Record<string, unknown>) => Record<string, unknown>) => {
  const fixture = JSON.parse(fs.readFileSync(portable, "utf8")) as {
    protocolVersion: string
    hooks: Array<Record<string, unknown>>
  }
  const reg = {
    ...fixture,
    hooks: fixture.hooks.filter((h) => (h.transport as { type: string }).type === "http").map(edit)
  }
  const transports = NodeTransports.layer({ http: { clients: [client] } }).pipe(
    Layer.provide(Layer.merge(Secrets, w.dispatcherLayer))
  )
  return Hooks.layerUnknown(reg).pipe(Layer.provide(transports))
}

const toolBefore = Hooks.dispatch("tool.before", {
  tool: { name: "bash", input: { command: "ls" }, origin: "native" },
  call: { id: "call-1" },
  path: "main"
})

describe.skipIf(!fs.existsSync(portable))("HttpAuth with the official portable registration", () => {
  const url = "https://policy.example.com/agent-hooks"

  it.scopedLive("its bearer binding takes precedence: a 401 never starts discovery, and the call fails under its policy", () =>
    Effect.gen(function*() {
      const w = yield* world({ resource: url })
      const result = yield* toolBefore.pipe(Effect.provide(portableHooks(w, (backend) => backend)))
      assert.deepStrictEqual(result.errors.map((e) => [e.code, e.policy]), [["unauthorized", "fail-closed"]])
      assert.strictEqual(result.decision.permission, "deny")
      assert.deepStrictEqual(w.traffic, [`POST ${url}`, `POST ${url}`])
      assert.deepStrictEqual(w.rs.seen.map((s) => s.authorization), [
        "Bearer policy-bearer-token",
        "Bearer policy-bearer-token"
      ])
    }))

  it.scopedLive("without its binding (as the schema says: discovery) the call discovers the resource and is answered", () =>
    Effect.gen(function*() {
      const w = yield* world({ resource: url })
      const result = yield* toolBefore.pipe(
        Effect.provide(portableHooks(w, ({ authentication: _, ...backend }) => backend))
      )
      assert.deepStrictEqual(result.errors, [])
      assert.strictEqual(result.decision.permission, "none")
      assert.deepStrictEqual(w.traffic.slice(0, 2), [
        `POST ${url}`,
        "GET https://policy.example.com/.well-known/oauth-protected-resource/agent-hooks"
      ])
      assert.strictEqual(w.grants[0]!.get("resource"), url)
      assert.notInclude(JSON.stringify(w.rs.seen), "policy-bearer-token", "no configured bearer token goes anywhere")
    }))

  for (const policy of ["fail-open", "fail-closed"] as const) {
    it.scopedLive(`a failed discovery is an operational failure under the subscription's policy (${policy}), never anonymous`, () =>
      Effect.gen(function*() {
        const w = yield* world({ resource: url, issuerMetadata: { issuer: "https://evil.test" } })
        const result = yield* toolBefore.pipe(
          Effect.provide(portableHooks(w, ({ authentication: _, ...backend }) => ({
            ...backend,
            subscriptions: (backend.subscriptions as Array<Record<string, unknown>>).map((s) => ({
              ...s,
              failurePolicy: policy
            }))
          })))
        )
        assert.deepStrictEqual(result.errors.map((e) => [e.code, e.policy, e.syntheticDenial]), [[
          "credential",
          policy,
          policy === "fail-closed"
        ]])
        assert.strictEqual(result.decision.permission, policy === "fail-closed" ? "deny" : "none")
        assert.strictEqual(w.rs.seen.filter((s) => s.method === "POST").length, 1)
      }))
  }

  it.scopedLive("slow metadata is cut off by the subscription's deadline (the call ends in time, under its policy)", () =>
    Effect.gen(function*() {
      const hang: Reply = { status: 200, hang: true }
      const w = yield* world({ resource: url, resourceMetadata: () => hang })
      const started = Date.now()
      const result = yield* toolBefore.pipe(
        Effect.provide(portableHooks(w, ({ authentication: _, ...backend }) => ({
          ...backend,
          subscriptions: (backend.subscriptions as Array<Record<string, unknown>>).map((s) => ({
            ...s,
            timeoutMs: 500
          }))
        })))
      )
      assert.deepStrictEqual(result.errors.map((e) => [e.code, e.policy]), [["timeout", "fail-closed"]])
      assert.strictEqual(result.decision.permission, "deny")
      assert.isBelow(Date.now() - started, scaled(5000))
    }))
})
