/**
 * Hostile probes on the OAuth login (issue 33), with real loopback servers: the redirect
 * listener is attacked as a web page and a local program would (an `Origin`, a rebinding
 * `Host`, a wrong state, a huge query, a repeated callback, a second code) while the real
 * browser completes the login; it listens on loopback only and never redirects. The token
 * file is written 0600 and used only while private to the user: a symbolic link planted in
 * its place or at its temporary name, another owner, a mode open to others or a FIFO are
 * refused, never read or written through; concurrent writers lose no entry.
 */
import { Credentials, OAuthLogin, TokenStore } from "@effect-ahp/node"
import type { Registration } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as os from "node:os"
import * as path from "node:path"
import { issuer, pkceBinding, resourceUrl, type World, world } from "./oauthWorld.js"
import { tempFile } from "./utils.js"

const backend: Registration.Backend = {
  id: "com.example.rs",
  transport: { type: "http", url: resourceUrl },
  authentication: pkceBinding,
  subscriptions: [{
    mode: "intercept",
    events: ["tool.before"],
    timeoutMs: 5000,
    failurePolicy: "fail-closed",
    content: { default: "metadata" }
  }]
}

interface Answer {
  readonly status: number | undefined
  readonly location: string | undefined
}

/** One raw GET of `target` with exactly these headers (`host` among them, or none). */
const get = (target: URL, headers: Record<string, string>): Promise<Answer> =>
  new Promise((resolve) => {
    const request = http.request({
      host: target.hostname,
      port: target.port,
      path: `${target.pathname}${target.search}`,
      headers,
      setHost: false
    }, (response) => {
      response.resume()
      response.on("end", () => resolve({ status: response.statusCode, location: response.headers.location }))
    })
    request.on("error", () => resolve({ status: undefined, location: undefined }))
    request.end()
  })

/** An address of this machine that is not loopback, if it has one. */
const outsideAddress = Object.values(os.networkInterfaces()).flat().find((a) =>
  a !== undefined && a.family === "IPv4" && !a.internal
)?.address

/**
 * A browser double under attack: before and after it follows the real redirect, hostile
 * requests hit the listener; what each was answered is recorded.
 */
const besieged = (w: World, answers: Record<string, Answer>) =>
  Layer.succeed(
    OAuthLogin.Browser,
    OAuthLogin.Browser.of({
      open: (url) =>
        Effect.promise(async () => {
          const visit = await fetch(url.replace(issuer, w.as.origin), { redirect: "manual" })
          const real = new URL(visit.headers.get("location")!)
          const host = real.host
          const forged = new URL(real)
          forged.searchParams.set("code", "code-forged")
          const wrongState = new URL(forged)
          wrongState.searchParams.set("state", "guessed")
          const huge = new URL(forged)
          huge.searchParams.set("pad", "a".repeat(64 * 1024))
          const elsewhere = new URL(real)
          elsewhere.searchParams.set("redirect_uri", "https://evil.example/")
          answers.origin = await get(forged, { host, origin: "http://evil.example" })
          answers.rebinding = await get(forged, { host: `evil.example:${real.port}` })
          answers.huge = await get(huge, { host })
          answers.real = await get(elsewhere, { host })
          answers.repeated = await get(real, { host })
          answers.second = await get(forged, { host })
          answers.wrongState = await get(wrongState, { host })
          if (outsideAddress !== undefined) {
            const outside = new URL(real)
            outside.hostname = outsideAddress
            answers.outside = await get(outside, { host })
          }
        })
    })
  )

describe("hostile: the OAuth login callback", () => {
  it.scopedLive("only the browser's redirect with the right state decides, once; the listener is loopback only", () =>
    Effect.gen(function*() {
      const w = yield* world()
      const answers: Record<string, Answer> = {}
      const loggedIn = yield* OAuthLogin.login(backend).pipe(
        Effect.provide(Layer.mergeAll(
          w.dispatcherLayer,
          TokenStore.layerMemory(),
          besieged(w, answers),
          Credentials.layerTest({})
        ))
      )
      assert.isTrue(loggedIn.refreshable)
      assert.strictEqual(answers.origin?.status, 403, "a request from a web page")
      assert.strictEqual(answers.rebinding?.status, 421, "a DNS-rebinding Host")
      assert.strictEqual(answers.huge?.status, 431, "a huge query")
      assert.strictEqual(answers.real?.status, 200, "the browser's redirect")
      assert.strictEqual(answers.repeated?.status, 409, "the same redirect again")
      assert.strictEqual(answers.second?.status, 409, "a second code")
      assert.strictEqual(answers.wrongState?.status, 409, "a wrong state after the login")
      if (outsideAddress !== undefined) {
        assert.isUndefined(answers.outside?.status, `the listener answered on ${outsideAddress}`)
      }
      assert.deepStrictEqual(Object.values(answers).map((a) => a.location).filter((l) => l !== undefined), [])
      const exchanges = w.grants.filter((g) => g.get("grant_type") === "authorization_code")
      assert.deepStrictEqual(exchanges.map((g) => g.get("code")), ["code-1"], "only the real code is exchanged")
    }))
})

const entry = (n: number): TokenStore.Entry => ({
  issuer,
  resource: `${resourceUrl}/${n}`,
  clientId: "person",
  scopes: [],
  accessToken: Redacted.make(`at-${n}`),
  refreshToken: undefined,
  expiresAt: undefined
})

const reasonOf = (file: string) =>
  Effect.flatMap(TokenStore.makeFile(file), (store) => Effect.flip(store.list)).pipe(
    Effect.map((error) => error.reason),
    Effect.catchAllDefect(() => Effect.succeed("defect"))
  )

describe("hostile: the token file", () => {
  it.scopedLive("written 0600 in a 0700 folder; a file open to others, another user's, a link or a FIFO is refused", () =>
    Effect.gen(function*() {
      const file = yield* tempFile("state/ahp/tokens.json")
      const store = yield* TokenStore.makeFile(file)
      yield* store.put(entry(1))
      assert.strictEqual(fs.statSync(file).mode & 0o777, 0o600)
      assert.strictEqual(fs.statSync(path.dirname(file)).mode & 0o777, 0o700)
      assert.strictEqual((yield* store.list).length, 1)

      fs.chmodSync(file, 0o640)
      assert.strictEqual(yield* reasonOf(file), "insecure", "group-readable")
      fs.chmodSync(file, 0o604)
      assert.strictEqual(yield* reasonOf(file), "insecure", "readable by others")
      fs.chmodSync(file, 0o600)
      fs.chmodSync(path.dirname(file), 0o770)
      assert.strictEqual(yield* reasonOf(file), "insecure", "in a group-writable folder")
      fs.chmodSync(path.dirname(file), 0o700)
      if (process.getuid?.() === 0) {
        fs.chownSync(file, 65534, 65534)
        assert.strictEqual(yield* reasonOf(file), "insecure", "another user's file")
        fs.chownSync(file, 0, 0)
      }
      assert.strictEqual((yield* store.list).length, 1)

      // a link planted in its place, to a file of attacker-chosen tokens
      const planted = path.join(path.dirname(file), "planted.json")
      fs.writeFileSync(planted, JSON.stringify({ version: 1, tokens: [] }), { mode: 0o600 })
      const kept = `${file}.kept`
      fs.renameSync(file, kept)
      fs.symlinkSync(planted, file)
      assert.strictEqual(yield* reasonOf(file), "insecure", "a symbolic link")
      const error = yield* Effect.flip(store.put(entry(2)))
      assert.strictEqual(error.reason, "insecure")
      assert.include(error.message, file)
      assert.strictEqual(fs.readFileSync(planted, "utf8"), JSON.stringify({ version: 1, tokens: [] }))
      fs.rmSync(file)

      // a FIFO nobody writes: refused at once, not waited on
      execFileSync("mkfifo", [file])
      assert.strictEqual(yield* Effect.timeout(reasonOf(file), "5 seconds"), "insecure", "a FIFO")
      fs.rmSync(file)
      fs.renameSync(kept, file)

      // a link planted at the temporary name is replaced, never written through
      const target = path.join(path.dirname(file), "target")
      fs.writeFileSync(target, "untouched", { mode: 0o600 })
      fs.symlinkSync(target, path.join(path.dirname(file), `.tokens.json.${process.pid}.tmp`))
      yield* store.put(entry(3))
      assert.strictEqual(fs.readFileSync(target, "utf8"), "untouched")
      assert.strictEqual((yield* store.list).length, 2)
      assert.notInclude(fs.readFileSync(file, "utf8"), "at-2")
    }))

  it.scopedLive("concurrent writers, each with its own store on the file: no entry lost", () =>
    Effect.gen(function*() {
      const file = yield* tempFile("state/ahp/tokens.json")
      const writers = 16
      yield* Effect.forEach(
        Array.from({ length: writers }, (_, n) => n),
        (n) => Effect.flatMap(TokenStore.makeFile(file), (store) => store.put(entry(n))),
        { concurrency: writers }
      )
      const all = yield* Effect.flatMap(TokenStore.makeFile(file), (store) => store.list)
      assert.deepStrictEqual(
        all.map((e) => Redacted.value(e.accessToken)).sort(),
        Array.from({ length: writers }, (_, n) => `at-${n}`).sort()
      )
      assert.isFalse(fs.existsSync(`${file}.lock`))
    }))
})
