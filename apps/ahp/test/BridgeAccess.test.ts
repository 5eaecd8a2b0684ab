/**
 * `ahp bridge` answers only its hosts, attacked as a web page would (issue 33), with a real
 * bridge and raw HTTP requests on 127.0.0.1: a browser's simple cross-site POST (text/plain,
 * an Origin), a DNS-rebinding Host header, a missing or wrong secret and a non-JSON body are
 * refused before any backend runs; the secret is never printed or logged. The command hook
 * never talks to a socket that is not the user's or sits in a folder others may open.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as Http from "node:http"
import * as path from "node:path"
import { answerOf, hookEnv, rmRfPayload, runHook, startedPids } from "./hookSupport.js"
import { eventually, intercept, registration, scriptedStdio, startCli, tempDir, writeFile } from "./support.js"

const policy = (log: string) =>
  registration({
    id: "com.example.policy",
    transport: scriptedStdio(`effects=${JSON.stringify([{ type: "deny", reason: "destructive" }])}`, log),
    subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-closed" })]
  })

interface Reply {
  readonly status: number | undefined
  readonly body: string
}

/** One raw POST of `rmRfPayload` to the bridge's http hook, with exactly these headers. */
const post = (port: number, headers: Record<string, string>): Effect.Effect<Reply> =>
  Effect.async<Reply>((resume) => {
    const request = Http.request({
      host: "127.0.0.1",
      port,
      path: "/hooks/claude-code",
      method: "POST",
      headers: { "content-length": String(Buffer.byteLength(rmRfPayload)), ...headers },
      setHost: false
    }, (response) => {
      let body = ""
      response.setEncoding("utf8").on("data", (chunk: string) => (body += chunk))
      response.on("end", () => resume(Effect.succeed({ status: response.statusCode, body })))
    })
    request.on("error", (error) => resume(Effect.succeed({ status: undefined, body: String(error) })))
    request.end(rmRfPayload)
  })

/** Starts a bridge on an ephemeral 127.0.0.1 port; its port, secret file and process. */
const startBridge = (dir: string, env: Record<string, string> = {}) =>
  Effect.gen(function*() {
    const log = path.join(dir, "backend.log")
    const reg = writeFile(dir, "registration.json", policy(log))
    const bridge = yield* startCli(["bridge", "--registration", reg, "--http", "0", "--no-socket", "--verbose"], {
      cwd: dir,
      env: hookEnv(dir, env)
    })
    const port = Number(
      yield* eventually(() => /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(bridge.stdout())?.[1])
    )
    yield* eventually(() => bridge.stdout().includes("registration "))
    return { bridge, port, log, reg }
  })

describe("ahp bridge refuses what is not its host", () => {
  it.scopedLive("a simple cross-site POST, a rebinding Host, a missing or wrong secret, a non-JSON body: refused, no backend runs", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const { bridge, log, port } = yield* startBridge(dir)
      const secretFile = yield* eventually(() => /secret in (\S+)/.exec(bridge.stdout())?.[1])
      assert.strictEqual(secretFile, path.join(dir, "run", "effect-ahp", `bridge-${port}.secret`))
      assert.strictEqual(fs.statSync(secretFile).mode & 0o777, 0o600)
      const secret = fs.readFileSync(secretFile, "utf8").trim()
      assert.isAtLeast(secret.length, 32)
      const host = `127.0.0.1:${port}`
      const good = { host, "content-type": "application/json", "x-ahp-bridge-secret": secret }
      const cases: ReadonlyArray<readonly [string, Record<string, string>, number]> = [
        ["a browser's simple POST", { host, "content-type": "text/plain", origin: "http://evil.example" }, 403],
        ["the same with the secret guessed right", { ...good, "content-type": "text/plain", origin: "null" }, 403],
        ["an Origin on an otherwise good call", { ...good, origin: `http://${host}` }, 403],
        ["a DNS-rebinding Host", { ...good, host: `evil.example:${port}` }, 421],
        ["a Host on another port", { ...good, host: `127.0.0.1:${port + 1}` }, 421],
        ["no Host (Node's server answers 400 itself)", {
          "content-type": "application/json",
          "x-ahp-bridge-secret": secret
        }, 400],
        ["no secret", { host, "content-type": "application/json" }, 401],
        ["a wrong secret", { ...good, "x-ahp-bridge-secret": `${secret.slice(1)}x` }, 401],
        ["text/plain", { ...good, "content-type": "text/plain" }, 415],
        ["a form", { ...good, "content-type": "application/x-www-form-urlencoded" }, 415],
        ["no content type", { host, "x-ahp-bridge-secret": secret }, 415]
      ]
      for (const [name, headers, status] of cases) {
        const reply = yield* post(port, headers)
        assert.strictEqual(reply.status, status, `${name}: ${reply.body}`)
        if (status !== 400) assert.match(reply.body, /^refused: /, name)
      }
      assert.deepStrictEqual(startedPids(log), [], "a refused request started a backend")
      for (
        const headers of [good, {
          ...good,
          host: `localhost:${port}`,
          "content-type": "application/json; charset=utf-8"
        }]
      ) {
        const served = yield* post(port, headers)
        assert.strictEqual(served.status, 200, served.body)
        assert.strictEqual(JSON.parse(served.body).hookSpecificOutput.permissionDecision, "deny")
      }
      assert.strictEqual(startedPids(log).length, 1)
      bridge.child.kill("SIGTERM")
      yield* bridge.done
      assert.isFalse(fs.existsSync(secretFile), "the secret file is removed with the bridge")
      const said = bridge.stdout() + bridge.stderr()
      assert.include(said, "refused POST /hooks/claude-code: a missing or wrong x-ahp-bridge-secret header")
      assert.notInclude(said, secret, "the secret was printed")
      assert.notInclude(said, secret.slice(1), "the secret was printed")
    }))

  it.scopedLive("takes its secret from AHP_BRIDGE_SECRET (then writes no file), and refuses to start with a short one", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const secret = "s".repeat(40)
      const { bridge, port } = yield* startBridge(dir, { AHP_BRIDGE_SECRET: secret })
      const host = `127.0.0.1:${port}`
      const served = yield* post(port, { host, "content-type": "application/json", "x-ahp-bridge-secret": secret })
      assert.strictEqual(served.status, 200, served.body)
      assert.notInclude(bridge.stdout(), "secret in")
      assert.isFalse(fs.existsSync(path.join(dir, "run", "effect-ahp", `bridge-${port}.secret`)))
      bridge.child.kill("SIGTERM")
      yield* bridge.done
      assert.notInclude(bridge.stdout() + bridge.stderr(), secret)
      const reg = path.join(dir, "registration.json")
      const short = yield* startCli(["bridge", "--registration", reg, "--http", "0", "--no-socket"], {
        cwd: dir,
        env: hookEnv(dir, { AHP_BRIDGE_SECRET: "short" })
      })
      const ended = yield* short.done
      assert.strictEqual(ended.code, 2)
      assert.strictEqual(ended.stderr, "ahp bridge: AHP_BRIDGE_SECRET is shorter than 32 characters\n")
    }))
})

describe("the command hook uses only the user's own socket", () => {
  /** A fake bridge on `socket` that allows everything; resolves with how many calls it got. */
  const fakeBridge = (socket: string) =>
    Effect.acquireRelease(
      Effect.async<{ readonly server: Http.Server; readonly calls: () => number }>((resume) => {
        let calls = 0
        const server = Http.createServer((_request, response) => {
          calls++
          response.setHeader("content-type", "application/json")
          response.end(JSON.stringify({ stdout: "{}\n", stderr: "" }))
        })
        server.listen(socket, () => resume(Effect.succeed({ server, calls: () => calls })))
      }),
      ({ server }) =>
        Effect.async<void>((resume) => {
          server.close(() => resume(Effect.void))
        })
    )

  it.scopedLive("a socket in a folder others may open, or owned by another user, is never asked; the hook decides itself", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "backend.log")
      const reg = writeFile(dir, "registration.json", policy(log))
      const open = path.join(dir, "open")
      fs.mkdirSync(open)
      fs.chmodSync(open, 0o755)
      const shared = path.join(open, "bridge.sock")
      const openFake = yield* fakeBridge(shared)
      const run = yield* runHook(["claude-code", "--registration", reg], rmRfPayload, {
        dir,
        env: { AHP_BRIDGE_SOCKET: shared }
      })
      assert.strictEqual(answerOf(run).hookSpecificOutput.permissionDecision, "deny", run.stderr)
      assert.strictEqual(openFake.calls(), 0, "the hook asked a socket in a folder others may open")
      if (process.getuid?.() === 0) {
        const closed = path.join(dir, "closed")
        fs.mkdirSync(closed, { mode: 0o700 })
        fs.chmodSync(closed, 0o700)
        const foreign = path.join(closed, "bridge.sock")
        const foreignFake = yield* fakeBridge(foreign)
        fs.chownSync(foreign, 65534, 65534)
        const second = yield* runHook(["claude-code", "--registration", reg], rmRfPayload, {
          dir,
          env: { AHP_BRIDGE_SOCKET: foreign }
        })
        assert.strictEqual(answerOf(second).hookSpecificOutput.permissionDecision, "deny", second.stderr)
        assert.strictEqual(foreignFake.calls(), 0, "the hook asked another user's socket")
        const started = yield* startCli(["bridge", "--registration", reg, "--socket", foreign], {
          cwd: dir,
          env: hookEnv(dir)
        })
        const ended = yield* started.done
        assert.strictEqual(ended.code, 2)
        assert.strictEqual(ended.stderr, `ahp bridge: ${foreign} is owned by uid 65534, not by you\n`)
        assert.isTrue(fs.existsSync(foreign), "another user's socket was removed")
      }
    }))
})
