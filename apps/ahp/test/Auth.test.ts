import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as http from "node:http"
import type * as net from "node:net"
import * as path from "node:path"
import { runInProcess } from "./inProcess.js"
import {
  eventually,
  intercept,
  output,
  registration,
  runCli,
  startCli,
  tempDir,
  toolBefore,
  writeFile
} from "./support.js"

/**
 * One loopback server playing a protected resource (`/hooks`) and its authorization server
 * (the issuer is the server's origin): metadata, `/authorize` redirecting with a code,
 * `/token` exchanging the code for `cli-at-1` (valid one second) when the PKCE verifier
 * matches and refresh token `cli-rt-N` for `cli-at-N+1`. `/hooks` answers a `hooks/intercept`
 * carrying a current token with a deny naming it, and 401 otherwise; `seen` lists the
 * credentials it received (`-` for none), `refreshes` counts refresh requests. With
 * `holdRefresh`, a successful refresh is answered only when another refresh request arrives
 * or after 3 s, so two processes refreshing at once overlap.
 */
const protectedServer = (options: { readonly holdRefresh?: boolean } = {}) =>
  Effect.acquireRelease(
    Effect.async<{
      readonly server: http.Server
      readonly origin: string
      readonly seen: Array<string>
      readonly refreshes: () => number
    }>((resume) => {
      const challenges = new Map<string, string>()
      const seen: Array<string> = []
      let issued = 1
      let refreshes = 0
      let held: (() => void) | undefined
      const release = () => {
        held?.()
        held = undefined
      }
      const server = http.createServer((req, res) => {
        let body = ""
        req.setEncoding("utf8").on("data", (c: string) => (body += c)).on("end", () => {
          const origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
          const url = new URL(req.url ?? "/", origin)
          const json = (status: number, value: unknown, headers: Record<string, string> = {}) =>
            res.writeHead(status, { "content-type": "application/json", ...headers }).end(JSON.stringify(value))
          switch (url.pathname) {
            case "/hooks": {
              const token = req.headers.authorization?.replace(/^Bearer /, "")
              seen.push(token ?? "-")
              if (token === `cli-at-${issued}`) {
                const { id } = JSON.parse(body)
                return json(200, {
                  jsonrpc: "2.0",
                  id,
                  result: { protocolVersion: "draft", effects: [{ type: "deny", reason: `with ${token}` }] }
                })
              }
              return json(401, {}, {
                "www-authenticate": `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/hooks"`
              })
            }
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
              if (form.get("grant_type") === "refresh_token") {
                refreshes++
                if (form.get("refresh_token") !== `cli-rt-${issued}`) {
                  json(400, { error: "invalid_grant" })
                  return release()
                }
                issued++
                const token = {
                  access_token: `cli-at-${issued}`,
                  refresh_token: `cli-rt-${issued}`,
                  token_type: "Bearer",
                  expires_in: 3600
                }
                if (!options.holdRefresh) return json(200, token)
                held = () => json(200, token)
                return void setTimeout(release, 3000)
              }
              const verified = crypto.createHash("sha256").update(form.get("code_verifier") ?? "").digest("base64url")
              return verified === challenges.get(form.get("code") ?? "")
                ? json(200, {
                  access_token: "cli-at-1",
                  refresh_token: "cli-rt-1",
                  token_type: "Bearer",
                  expires_in: 1
                })
                : json(400, { error: "invalid_grant" })
            }
          }
          json(404, {})
        })
      })
      server.listen(0, "127.0.0.1", () =>
        resume(Effect.succeed({
          server,
          origin: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`,
          seen,
          refreshes: () => refreshes
        })))
    }),
    ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
  )

/** Writes `reg.json`: the protected resource `com.example.rs` at `origin`, intercepting `tool.before`. */
const resourceRegistration = (dir: string, origin: string, failurePolicy: "fail-open" | "fail-closed") =>
  writeFile(
    dir,
    "reg.json",
    registration({
      id: "com.example.rs",
      transport: { type: "http", url: `${origin}/hooks` },
      subscriptions: [intercept(["tool.before"], { failurePolicy })]
    })
  )

/**
 * `ahp auth login com.example.rs` with `client`, completed the way a browser would: the
 * authorization URL it prints is followed to the loopback redirect.
 */
const loginAs = (client: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.gen(function*() {
    const login = yield* startCli(["auth", "login", "com.example.rs", ...client, "--no-browser"], { env })
    const url = yield* eventually(() => login.stderr().match(/https?:\/\/\S+\/authorize\S*/)?.[0])
    const location = yield* Effect.promise(() =>
      fetch(url, { redirect: "manual" }).then((r) => r.headers.get("location")!)
    )
    yield* Effect.promise(() => fetch(location))
    return yield* login.done
  })

describe("ahp auth", () => {
  it.scopedLive(
    "login (browser flow on 127.0.0.1), status, logout against a local authorization server",
    () =>
      Effect.gen(function*() {
        const { origin } = yield* protectedServer()
        const dir = yield* tempDir
        const tokens = path.join(dir, "state", "tokens.json")
        const env = { AHP_OAUTH_TOKENS: tokens }
        const reg = resourceRegistration(dir, origin, "fail-open")
        const client = ["--registration", reg, "--issuer", origin, "--client-id", "person", "--scope", "hooks"]
        const done = yield* loginAs(client, env)
        assert.strictEqual(done.code, 0, done.stderr)
        assert.include(done.stdout, "logged in for com.example.rs")
        assert.notInclude(done.stdout + done.stderr, "cli-at-1")
        assert.strictEqual(fs.statSync(tokens).mode & 0o777, 0o600)

        // The login's token lives 1 s from before the login ended: expired once 1 s has passed.
        yield* Effect.sleep("1100 millis")
        const status = yield* runInProcess(["auth", "status", ...client], { env })
        assert.strictEqual(
          status.stdout.trim(),
          `com.example.rs: logged in (expired; refreshed at the next call) (issuer ${origin}, client person)`
        )
        assert.notInclude(status.stdout, "cli-")
        const logout = yield* runInProcess(["auth", "logout", "com.example.rs", ...client], { env })
        assert.strictEqual(logout.code, 0)
        assert.strictEqual(
          (yield* runInProcess(["auth", "status", ...client], { env })).stdout.trim(),
          "com.example.rs: not logged in"
        )
        const again = yield* runInProcess(["auth", "logout", "com.example.rs", ...client], { env })
        assert.strictEqual(again.code, 1)
        assert.include(again.stderr, "there is no login for com.example.rs")
      }),
    60_000
  )

  it.scopedLive(
    "a discovered backend: dispatch uses the stored login, refreshes it, and after logout names the command",
    () =>
      Effect.gen(function*() {
        const { origin, seen } = yield* protectedServer()
        const dir = yield* tempDir
        const env = { AHP_OAUTH_TOKENS: path.join(dir, "tokens.json") }
        const reg = resourceRegistration(dir, origin, "fail-closed")
        const event = writeFile(dir, "event.json", toolBefore("ls"))
        const dispatch = runInProcess(["dispatch", "--registration", reg, "--event", event], { env })
        const before = output(yield* dispatch)
        assert.strictEqual(before.decision, "deny")
        assert.deepInclude(before.errors[0], { phase: "transport", code: "credential", syntheticDenial: true })
        assert.include(before.errors[0].detail, "run `ahp auth login com.example.rs --issuer ISSUER --client-id ID`")

        const client = ["--registration", reg, "--issuer", origin, "--client-id", "person", "--scope", "hooks"]
        assert.strictEqual((yield* loginAs(client, env)).code, 0)
        yield* Effect.sleep("600 millis")

        // The login's token (expires_in 1 s) is refreshed from half its lifetime on: refreshed, stored.
        const refreshed = yield* dispatch
        assert.strictEqual(refreshed.code, 0, refreshed.stderr)
        assert.deepStrictEqual([output(refreshed).decision, output(refreshed).state.denial.reason], [
          "deny",
          "with cli-at-2"
        ])
        assert.notInclude(refreshed.stdout + refreshed.stderr, "cli-rt-")
        const again = yield* dispatch
        assert.strictEqual(
          output(again).state.denial.reason,
          "with cli-at-2",
          "the refreshed token was stored and is reused"
        )
        // The first dispatch, login's own probe, then each run anonymous until the 401 starts discovery.
        assert.deepStrictEqual(seen, ["-", "-", "-", "cli-at-2", "-", "cli-at-2"])

        assert.strictEqual((yield* runInProcess(["auth", "logout", "com.example.rs", ...client], { env })).code, 0)
        const after = output(yield* dispatch)
        assert.strictEqual(after.decision, "deny")
        assert.isTrue(after.state.denial.synthetic)
        assert.include(after.errors[0].detail, "ahp auth login com.example.rs")
      }),
    60_000
  )

  it.scopedLive(
    "two processes refreshing one login at once take turns: the rotated refresh token is used once",
    () =>
      Effect.gen(function*() {
        const { origin, refreshes } = yield* protectedServer({ holdRefresh: true })
        const dir = yield* tempDir
        const env = { AHP_OAUTH_TOKENS: path.join(dir, "tokens.json") }
        const reg = resourceRegistration(dir, origin, "fail-closed")
        const client = ["--registration", reg, "--issuer", origin, "--client-id", "person"]
        assert.strictEqual((yield* loginAs(client, env)).code, 0)
        // the token (expires_in 1 s) is refreshed from half its lifetime on
        yield* Effect.sleep("600 millis")

        const event = writeFile(dir, "event.json", toolBefore("ls"))
        const dispatch = runCli(["dispatch", "--registration", reg, "--event", event], { env })
        const runs = yield* Effect.all([dispatch, dispatch], { concurrency: 2 })
        for (const run of runs) {
          assert.strictEqual(run.code, 0, run.stderr)
          assert.strictEqual(output(run).state.denial.reason, "with cli-at-2", JSON.stringify(output(run).errors))
        }
        assert.strictEqual(refreshes(), 1, "the second process waited and used the first one's refresh")
        assert.isFalse(fs.existsSync(`${env.AHP_OAUTH_TOKENS}.lock`), "the lock is gone")
      }),
    60_000
  )

  it.scopedLive(
    "an unknown backend is a configuration error; a bearer backend needs no login",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const env = { AHP_OAUTH_TOKENS: path.join(dir, "tokens.json") }
        const reg = writeFile(
          dir,
          "reg.json",
          registration({
            id: "com.example.bearer",
            transport: { type: "http", url: "https://policy.example/hooks" },
            authentication: { type: "bearer", tokenEnv: "T" },
            subscriptions: [intercept(["tool.before"])]
          })
        )
        const unknown = yield* runInProcess(["auth", "login", "com.example.nope", "--registration", reg], { env })
        assert.strictEqual(unknown.code, 2)
        assert.strictEqual(output(unknown).issues[0].code, "unknown-backend")
        const bearer = yield* runInProcess(["auth", "login", "com.example.bearer", "--registration", reg], { env })
        assert.strictEqual(bearer.code, 1)
        assert.include(bearer.stderr, "bearer token, not a login")
        assert.isFalse(fs.existsSync(env.AHP_OAUTH_TOKENS))
      }),
    60_000
  )
})
