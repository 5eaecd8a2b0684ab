import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import type * as net from "node:net"
import * as path from "node:path"
import { eventually, intercept, output, registration, runCli, startCli, tempDir, writeFile } from "./support.js"

/**
 * One loopback server playing a protected resource (`/hooks`) and its authorization server
 * (the issuer is the server's origin): metadata, `/authorize` redirecting with a code, and
 * `/token` exchanging the code for `cli-at-1` when the PKCE verifier matches.
 */
const protectedServer = Effect.acquireRelease(
  Effect.async<{ readonly server: http.Server; readonly origin: string }>((resume) => {
    const challenges = new Map<string, string>()
    const server = http.createServer((req, res) => {
      let body = ""
      req.setEncoding("utf8").on("data", (c: string) => (body += c)).on("end", () => {
        const origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
        const url = new URL(req.url ?? "/", origin)
        const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
          res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value))
        switch (url.pathname) {
          case "/hooks":
            return json(401, {}, { "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/hooks"` })
          case "/.well-known/oauth-protected-resource/hooks":
            return json(200, { resource: `${origin}/hooks`, authorization_servers: [origin] })
          case "/.well-known/oauth-authorization-server":
            return json(200, {
              issuer: origin,
              authorization_endpoint: `${origin}/authorize`,
              token_endpoint: `${origin}/token`,
              code_challenge_methods_supported: ["S256"]
            })
          case "/authorize": {
            challenges.set("code-1", url.searchParams.get("code_challenge")!)
            const back = new URL(url.searchParams.get("redirect_uri")!)
            back.searchParams.set("code", "code-1")
            back.searchParams.set("state", url.searchParams.get("state")!)
            return res.writeHead(302, { location: back.href }).end()
          }
          case "/token": {
            const form = new URLSearchParams(body)
            const verified = crypto.createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url")
            return verified === challenges.get(form.get("code") ?? "")
              ? json(200, { access_token: "cli-at-1", refresh_token: "cli-rt-1", token_type: "Bearer", expires_in: 3600 })
              : json(400, { error: "invalid_grant" })
          }
        }
        json(404, {})
      })
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({ server, origin: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}` })))
  }),
  ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
)

describe("ahp auth", () => {
  it.scopedLive("login (browser flow on 127.0.0.1), status, logout against a local authorization server", () =>
    Effect.gen(function*() {
      const { origin } = yield* protectedServer
      const dir = yield* tempDir
      const tokens = path.join(dir, "state", "tokens.json")
      const env = { AHP_OAUTH_TOKENS: tokens }
      const reg = writeFile(dir, "reg.json", registration({
        id: "com.example.rs",
        transport: { type: "http", url: `${origin}/hooks` },
        subscriptions: [intercept(["tool.before"])]
      }))
      const client = ["--registration", reg, "--issuer", origin, "--client-id", "person", "--scope", "hooks"]
      const login = yield* startCli(["auth", "login", "com.example.rs", ...client, "--no-browser"], { env })
      const url = yield* eventually(() => login.stderr().match(/https?:\/\/\S+\/authorize\S*/)?.[0])
      const location = yield* Effect.promise(() => fetch(url, { redirect: "manual" }).then((r) => r.headers.get("location")!))
      yield* Effect.promise(() => fetch(location))
      const done = yield* login.done
      assert.strictEqual(done.code, 0, done.stderr)
      assert.include(done.stdout, "logged in for com.example.rs")
      assert.notInclude(done.stdout + done.stderr, "cli-at-1")
      assert.strictEqual(fs.statSync(tokens).mode & 0o777, 0o600)

      const status = yield* runCli(["auth", "status", ...client], { env })
      assert.strictEqual(status.stdout.trim(), `com.example.rs: logged in (issuer ${origin}, client person)`)
      assert.notInclude(status.stdout, "cli-")
      const logout = yield* runCli(["auth", "logout", "com.example.rs", ...client], { env })
      assert.strictEqual(logout.code, 0)
      assert.strictEqual((yield* runCli(["auth", "status", ...client], { env })).stdout.trim(), "com.example.rs: not logged in")
      const again = yield* runCli(["auth", "logout", "com.example.rs", ...client], { env })
      assert.strictEqual(again.code, 1)
      assert.include(again.stderr, "there is no login for com.example.rs")
    }), 60_000)

  it.scopedLive("an unknown backend is a configuration error; a bearer backend needs no login", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const env = { AHP_OAUTH_TOKENS: path.join(dir, "tokens.json") }
      const reg = writeFile(dir, "reg.json", registration({
        id: "com.example.bearer",
        transport: { type: "http", url: "https://policy.example/hooks" },
        authentication: { type: "bearer", tokenEnv: "T" },
        subscriptions: [intercept(["tool.before"])]
      }))
      const unknown = yield* runCli(["auth", "login", "com.example.nope", "--registration", reg], { env })
      assert.strictEqual(unknown.code, 2)
      assert.strictEqual(output(unknown).issues[0].code, "unknown-backend")
      const bearer = yield* runCli(["auth", "login", "com.example.bearer", "--registration", reg], { env })
      assert.strictEqual(bearer.code, 1)
      assert.include(bearer.stderr, "bearer token, not a login")
      assert.isFalse(fs.existsSync(env.AHP_OAUTH_TOKENS))
    }), 60_000)
})
