/**
 * Hostile probes on the warm path (issue 33).
 *
 * - A fake bridge on the command hook's own socket (this user's, in a private folder, so the
 *   hook asks it) that answers without end or never answers: the hook reads no more than
 *   `maxInputBytes` of the answer, gives up at the call's deadline, and decides by the
 *   fail-closed policy before the host's timeout.
 * - Hostile callers of a real `ahp bridge`, with raw sockets on 127.0.0.1: slow headers and
 *   bodies are dropped by the bridge's request deadline while good callers are served; a
 *   flood of connections is bounded per listener (the private socket stays served) and in
 *   memory; a body over the limit, declared or sent, is refused without being read; many
 *   concurrent calls are all answered by one warm backend; a half-written or swapped-in
 *   untrusted registration is never used, the old one answers until a good one replaces it.
 */
import { limits as BridgeLimits } from "@effect-ahp/hook/Bridge"
import { maxInputBytes } from "@effect-ahp/hook/Limits"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, type Scope } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as Net from "node:net"
import * as path from "node:path"
import { loadFactor, scaled } from "../../../test/support/load.js"
import { answerOf, callHook, guard, hookEnv, rmRfPayload, runHook, startedPids } from "./hookSupport.js"
import { eventually, intercept, registration, scriptedStdio, startCli, tempDir, writeFile } from "./support.js"

const payload = JSON.stringify({
  session_id: "s",
  cwd: "/",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "rm -rf /" }
})

type Behaviour = "endless" | "hang"

/** A fake bridge on a private socket; counts the bytes it wrote and whether the hook hung up. */
const fakeBridge = (dir: string, behaviour: Behaviour) =>
  Effect.gen(function*() {
    const folder = path.join(dir, "private")
    fs.mkdirSync(folder, { mode: 0o700 })
    const socket = path.join(folder, "bridge.sock")
    const seen = { asked: 0, written: 0, closed: false }
    const chunk = Buffer.alloc(1024 * 1024, "a")
    const server = http.createServer((_request, response) => {
      seen.asked++
      response.on("close", () => (seen.closed = true))
      if (behaviour === "hang") return
      response.writeHead(200, { "content-type": "application/json" })
      response.write(`{"stdout":"`)
      const pump = () => {
        while (!response.destroyed && seen.written < 8 * maxInputBytes) {
          seen.written += chunk.length
          if (!response.write(chunk)) return void response.once("drain", pump)
        }
      }
      pump()
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void server.listen(socket, () => resume(Effect.void))),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { socket, seen }
  })

describe("hostile: a fake bridge on the hook's socket", () => {
  for (const behaviour of ["endless", "hang"] as const) {
    it.scopedLive(`answering ${behaviour === "endless" ? "without end" : "never"}: fail-closed deny within the budget`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const reg = writeFile(dir, "registration.json", guard)
        const { seen, socket } = yield* fakeBridge(dir, behaviour)
        const timeoutSeconds = Math.ceil(scaled(4000) / 1000)
        const run = yield* callHook(
          ["claude-code", "--registration", reg, "--timeout", String(timeoutSeconds)],
          payload,
          { dir, env: { AHP_BRIDGE_SOCKET: socket } }
        )
        assert.strictEqual(seen.asked, 1)
        assert.isBelow(run.elapsedMs, timeoutSeconds * 1000)
        assert.strictEqual(answerOf(run).hookSpecificOutput?.permissionDecision, "deny", run.stdout)
        if (behaviour === "endless") {
          assert.isTrue(seen.closed, "the hook hung up")
          assert.isBelow(seen.written, 8 * maxInputBytes, "the hook stopped reading at its limit")
        }
      }))
  }
})

/** The probes' registration: a persistent fail-closed backend that denies, logging its starts. */
const denying = (log: string, effect: Record<string, unknown> = { type: "deny", reason: "destructive" }) =>
  registration({
    id: "com.example.policy",
    transport: scriptedStdio(`effects=${JSON.stringify([effect])}`, log),
    subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-closed" })]
  })

const secret = "s".repeat(40)

/** A bridge on TCP (127.0.0.1, an ephemeral port) and on a private socket, with a known secret. */
const startBridge = (dir: string) =>
  Effect.gen(function*() {
    const log = path.join(dir, "backend.log")
    const reg = writeFile(dir, "registration.json", denying(log))
    const socket = path.join(dir, "run", "bridge.sock")
    const bridge = yield* startCli(["bridge", "--registration", reg, "--http", "0", "--socket", socket], {
      cwd: dir,
      env: hookEnv(dir, { AHP_BRIDGE_SECRET: secret })
    })
    const port = Number(
      yield* eventually(() => /listening on http:\/\/127\.0\.0\.1:(\d+)\//.exec(bridge.stdout())?.[1])
    )
    yield* eventually(() => bridge.stdout().includes("listening on socket"))
    return { bridge, port, socket, log, reg }
  })

/** The head of a good call of the http hook with a body of `length` bytes. */
const head = (port: number, length: number | "chunked") =>
  [
    "POST /hooks/claude-code HTTP/1.1",
    `Host: 127.0.0.1:${port}`,
    "Content-Type: application/json",
    `X-AHP-Bridge-Secret: ${secret}`,
    length === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${length}`,
    "",
    ""
  ].join("\r\n")

/** A raw TCP connection to the bridge: what it answered, and whether the bridge closed it. */
interface Raw {
  readonly socket: Net.Socket
  readonly received: () => string
  readonly closed: () => boolean
}

const connect = (port: number): Effect.Effect<Raw, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.async<Raw>((resume) => {
      let received = ""
      let closed = false
      const socket = Net.connect({ host: "127.0.0.1", port })
      socket.setEncoding("utf8").on("data", (text: string) => (received += text))
      socket.on("error", () => {})
      socket.on("close", () => (closed = true))
      const raw = { socket, received: () => received, closed: () => closed }
      socket.once("connect", () => resume(Effect.succeed(raw)))
      socket.once("error", () => resume(Effect.succeed(raw)))
    }),
    ({ socket }) => Effect.sync(() => socket.destroy())
  )

/** Writes one byte of `text` every `everyMs` until the connection closes. */
const trickle = (raw: Raw, text: string, everyMs: number): Effect.Effect<void, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      let at = 0
      return setInterval(() => {
        if (!raw.closed() && !raw.socket.destroyed) raw.socket.write(text[at++ % text.length]!)
      }, everyMs)
    }),
    (timer) => Effect.sync(() => clearInterval(timer))
  ).pipe(Effect.asVoid)

/** One good call of the http hook over TCP: its status and decision. */
const goodCall = (port: number) =>
  Effect.tryPromise(() =>
    fetch(`http://127.0.0.1:${port}/hooks/claude-code`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-ahp-bridge-secret": secret },
      body: rmRfPayload,
      signal: AbortSignal.timeout(scaled(10_000))
    }).then(async (response) => ({
      status: response.status,
      decision: response.status === 200
        ? ((await response.json()) as any).hookSpecificOutput?.permissionDecision as string | undefined
        : undefined
    }))
  )

/** One forwarded command hook over the socket: the hook's decision. */
const socketCall = (dir: string, reg: string, socket: string) =>
  Effect.map(
    runHook(["claude-code", "--registration", reg], rmRfPayload, { dir, env: { AHP_BRIDGE_SOCKET: socket } }),
    (run) => answerOf(run).hookSpecificOutput?.permissionDecision as string | undefined
  )

/** The resident memory of a process, in KiB (Linux). */
const rssKiB = (pid: number): number =>
  Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/status`, "utf8"))?.[1])

/** Waits, at most `ms`, for `check`; whether it held. */
const within = (ms: number, check: () => boolean) =>
  Effect.gen(function*() {
    const until = Date.now() + ms
    while (!check() && Date.now() < until) yield* Effect.sleep(Duration.millis(50))
    return check()
  })

describe("hostile: slow, many and huge callers of ahp bridge", () => {
  it.scopedLive("slow clients (headers, body) are dropped by a deadline while a good caller is served", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const { bridge, port } = yield* startBridge(dir)
      // a header that never ends, and a body of a megabyte sent a byte at a time
      const slowHead = yield* connect(port)
      slowHead.socket.write(`POST /hooks/claude-code HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nX-Slow: `)
      yield* trickle(slowHead, "a", 200)
      const slowBody = yield* connect(port)
      slowBody.socket.write(head(port, 1024 * 1024))
      yield* trickle(slowBody, " ", 200)
      const served = yield* goodCall(port)
      assert.deepStrictEqual(served, { status: 200, decision: "deny" })
      const dropped = yield* within(scaled(BridgeLimits.requestMs + 4000), () => slowHead.closed() && slowBody.closed())
      assert.isTrue(dropped, `slow callers still connected: head ${!slowHead.closed()}, body ${!slowBody.closed()}`)
      assert.deepStrictEqual(yield* goodCall(port), { status: 200, decision: "deny" })
      bridge.child.kill("SIGTERM")
      yield* bridge.done
    }))

  it.scopedLive("a body over the limit, declared or sent, is refused with 413 without reading it all", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const { bridge, log, port } = yield* startBridge(dir)
      // a lying Content-Length: 1 GB declared, nothing sent
      const lying = yield* connect(port)
      lying.socket.write(head(port, 1024 * 1024 * 1024))
      const declared = yield* within(scaled(3000), () => lying.received().startsWith("HTTP/1.1 413"))
      assert.isTrue(declared, `no 413 for a declared 1 GB body: ${JSON.stringify(lying.received())}`)
      assert.isTrue(yield* within(scaled(3000), lying.closed), "the connection is closed")
      // a chunked body without end
      const endless = yield* connect(port)
      endless.socket.write(head(port, "chunked"))
      const chunk = Buffer.alloc(1024 * 1024, "a")
      let sent = 0
      const pump = () => {
        while (!endless.socket.destroyed && sent < 16 * maxInputBytes) {
          sent += chunk.length
          const more = endless.socket.write(`${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n`)
          if (!more) return void endless.socket.once("drain", pump)
        }
      }
      pump()
      assert.isTrue(yield* within(scaled(15_000), endless.closed), "the bridge hung up")
      // the 413 may be lost to the reset of a connection closed with unread bytes, never a 200;
      // on a loaded machine the request deadline (408) may come before the size limit: still
      // refused, and the size check below still holds
      const answered = endless.received()
      assert.isTrue(answered === "" || /^HTTP\/1\.1 4(13|08) /.test(answered), answered.slice(0, 200))
      assert.isBelow(sent, 4 * maxInputBytes, "the bridge read on after the limit")
      assert.deepStrictEqual(startedPids(log), [], "an oversized call started a backend")
      assert.deepStrictEqual(yield* goodCall(port), { status: 200, decision: "deny" })
      bridge.child.kill("SIGTERM")
      yield* bridge.done
    }))

  it.scopedLive(
    "many connections: bounded, memory bounded, the socket's caller served at once and TCP's once they drop",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const { bridge, log, port, reg, socket } = yield* startBridge(dir)
        assert.deepStrictEqual(yield* goodCall(port), { status: 200, decision: "deny" })
        const before = rssKiB(bridge.child.pid!)
        const count = 10_000
        const flood = yield* Effect.forEach(Array.from({ length: count }), () => connect(port), { concurrency: 200 })
        for (const raw of flood) if (!raw.closed()) raw.socket.write(head(port, 2).slice(0, 20))
        const open = yield* Effect.sync(() => flood.filter((raw) => !raw.closed()).length)
        assert.strictEqual(
          yield* socketCall(dir, reg, socket),
          "deny",
          "the socket's caller is served during the flood"
        )
        const after = rssKiB(bridge.child.pid!)
        yield* Effect.logInfo(`${count} connections: RSS ${before} KiB -> ${after} KiB`)
        assert.isBelow(after - before, 256 * 1024, "memory grew without bound")
        const held = () => flood.filter((raw) => !raw.closed()).length
        const bounded = yield* within(scaled(3000), () => held() <= BridgeLimits.maxConnections)
        assert.isTrue(bounded, `${held()} of ${count} connections held (${open} after writing)`)
        const drained = yield* within(scaled(BridgeLimits.requestMs + 4000), () => flood.every((raw) => raw.closed()))
        assert.isTrue(drained, "the flood's connections were dropped by the deadline")
        assert.deepStrictEqual(yield* goodCall(port), { status: 200, decision: "deny" })
        assert.strictEqual(startedPids(log).length, 1)
        bridge.child.kill("SIGTERM")
        yield* bridge.done
      }),
    { timeout: 300_000 }
  )

  it.scopedLive("many concurrent calls: every one answered, by one warm backend", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const { bridge, log, port } = yield* startBridge(dir)
      // 200 callers on a quiet machine, fewer on a loaded one: each request must still arrive
      // within the bridge's request deadline (BridgeLimits.requestMs)
      const callers = Math.max(32, Math.floor(200 / loadFactor()))
      const answers = yield* Effect.forEach(Array.from({ length: callers }), () => goodCall(port), {
        concurrency: callers
      })
      assert.deepStrictEqual(new Set(answers.map((a) => `${a.status} ${a.decision}`)), new Set(["200 deny"]))
      assert.strictEqual(startedPids(log).length, 1)
      bridge.child.kill("SIGTERM")
      yield* bridge.done
    }), { timeout: 120_000 })

  it.scopedLive("a half-written or swapped-in untrusted registration during reload: the old one answers, never a partial one", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const { bridge, log, port, reg } = yield* startBridge(dir)
      assert.deepStrictEqual(yield* goodCall(port), { status: 200, decision: "deny" })
      const allowing = JSON.stringify(denying(log, { type: "allow" }))
      fs.writeFileSync(reg, allowing.slice(0, allowing.length / 2))
      assert.deepStrictEqual(yield* goodCall(port), { status: 200, decision: "deny" }, "a half-written file")
      const planted = path.join(dir, "planted.json")
      fs.writeFileSync(planted, allowing)
      fs.chmodSync(planted, 0o666)
      fs.renameSync(planted, reg)
      assert.deepStrictEqual(yield* goodCall(port), { status: 200, decision: "deny" }, "a swapped-in writable file")
      fs.rmSync(reg)
      fs.writeFileSync(reg, allowing, { mode: 0o600 })
      assert.deepStrictEqual(yield* goodCall(port), { status: 200, decision: "allow" }, "the new good file")
      bridge.child.kill("SIGTERM")
      yield* bridge.done
      assert.include(bridge.stderr(), "is not JSON")
      assert.include(bridge.stderr(), "not used")
    }))
})
