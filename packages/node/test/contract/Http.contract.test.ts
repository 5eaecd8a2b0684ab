/**
 * The HTTP transport's contract: one table of cases — answers, statuses, redirects, bodies
 * too large or malformed, resets, refused connections, credentials, interruption and
 * closing — run against `HttpTransport` and against the reference built on
 * `@effect/platform`'s `HttpClient`. Each case states the outcome it must have, and the two
 * transports must agree on it (reason code and status).
 */
import type * as TransportApi from "@effect-ahp/harness/Transport"
import { Credentials, HttpTransport } from "@effect-ahp/node"
import { NodeHttpClient } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, FastCheck as fc, Fiber, Layer, Scope } from "effect"
import * as net from "node:net"
import { httpBackend, notification, okResponse, readLog, request, waitForLog } from "../utils.js"
import * as HttpReference from "./HttpReference.js"
import { type Outcome, outcomeOf } from "./outcome.js"

const maxBodyBytes = 64 * 1024
const token = "contract-token"

/** What both need, for the lifetime of a test: the dispatcher and credentials, the platform's client. */
const platform = Layer.mergeAll(
  HttpTransport.layerDispatcher,
  Credentials.layerTest({ policy: token }),
  NodeHttpClient.layerUndici
)

/** What connecting needs: the scope and the services `platform` provides. */
type Needs = Layer.Layer.Success<typeof platform> | Scope.Scope

/** The two transports under contract, each connecting a URL in the current scope. */
const transports: Record<"fast" | "reference", (url: string) => Effect.Effect<TransportApi.Endpoint, never, Needs>> = {
  fast: (url: string) =>
    HttpTransport.connect(
      { type: "http", url },
      { type: "bearer", tokenRef: "policy" },
      { maxBodyBytes },
      { backend: "contract" }
    ),
  reference: (url: string) => HttpReference.connect({ type: "http", url }, { maxBodyBytes, bearer: token })
}

interface Case {
  readonly name: string
  readonly behaviour: string
  readonly args?: ReadonlyArray<string>
  readonly call: "request" | "notify"
  readonly expected: Outcome
}

const errorAnswer = { jsonrpc: "2.0", id: 1, error: { code: -32603, message: "scripted error" } }

const cases: ReadonlyArray<Case> = [
  { name: "an answer", behaviour: "ok", call: "request", expected: { ok: okResponse(1) } },
  { name: "a JSON-RPC error answer", behaviour: "error=-32603", call: "request", expected: { ok: errorAnswer } },
  {
    name: "the right bearer token",
    behaviour: `require-bearer=${token}`,
    call: "request",
    expected: { ok: okResponse(1) }
  },
  {
    name: "a JSON-RPC error quoting the bearer token (masked)",
    behaviour: "error-echo-auth",
    call: "request",
    expected: {
      ok: {
        jsonrpc: "2.0",
        id: 1,
        error: { code: -32001, message: "refused Bearer [redacted]", data: { said: "refused Bearer [redacted]" } }
      }
    }
  },
  { name: "another id", behaviour: "wrong-id", call: "request", expected: { reason: "malformed" } },
  { name: "result and error", behaviour: "result-and-error", call: "request", expected: { reason: "malformed" } },
  { name: "a batch", behaviour: "batch", call: "request", expected: { reason: "malformed" } },
  { name: "text/plain", behaviour: "non-json", call: "request", expected: { reason: "malformed" } },
  { name: "JSON declared but not JSON", behaviour: "invalid-json", call: "request", expected: { reason: "malformed" } },
  { name: "nesting past the depth limit", behaviour: "deep=600", call: "request", expected: { reason: "malformed" } },
  {
    name: "a body past the bound",
    behaviour: "oversized",
    args: ["--size", String(maxBodyBytes * 4)],
    call: "request",
    expected: { reason: "oversized" }
  },
  { name: "HTTP 500", behaviour: "500", call: "request", expected: { reason: "status", status: 500 } },
  { name: "HTTP 404", behaviour: "404", call: "request", expected: { reason: "status", status: 404 } },
  { name: "HTTP 201 with a body", behaviour: "201", call: "request", expected: { reason: "status", status: 201 } },
  { name: "HTTP 302", behaviour: "302", call: "request", expected: { reason: "redirect", status: 302 } },
  { name: "HTTP 307", behaviour: "307", call: "request", expected: { reason: "redirect", status: 307 } },
  {
    name: "HTTP 401 always",
    behaviour: "401-always",
    call: "request",
    expected: { reason: "unauthorized", status: 401 }
  },
  { name: "a reset socket", behaviour: "reset", call: "request", expected: { reason: "connection" } },
  { name: "a notification answered 204", behaviour: "ok", call: "notify", expected: { ok: undefined } },
  {
    name: "a notification answered with a body",
    behaviour: "notify-with-body",
    call: "notify",
    expected: { reason: "malformed" }
  },
  {
    name: "a notification answered 500",
    behaviour: "500",
    call: "notify",
    expected: { reason: "status", status: 500 }
  },
  { name: "a notification redirected", behaviour: "302", call: "notify", expected: { reason: "redirect", status: 302 } }
]

/** A loopback port nothing listens on (bound, then closed). */
const closedPort = Effect.async<number>((resume) => {
  const server = net.createServer().listen(0, "127.0.0.1", () => {
    const { port } = server.address() as net.AddressInfo
    server.close(() => resume(Effect.succeed(port)))
  })
})

describe("the HTTP transport contract", () => {
  for (const c of cases) {
    it.scopedLive(`${c.call}: ${c.name}`, () =>
      Effect.gen(function*() {
        const outcomes: Record<string, Outcome> = {}
        for (const [name, connect] of Object.entries(transports)) {
          const server = yield* httpBackend(c.behaviour, ...(c.args ?? []))
          const endpoint = yield* connect(server.url)
          outcomes[name] = yield* outcomeOf(
            c.call === "request" ? endpoint.request(request(1)) : endpoint.notify(notification())
          )
          // no transport follows a redirect
          assert.notInclude((yield* readLog(server.log)).map((e) => e.path), "/redirect-target", name)
        }
        assert.deepStrictEqual(outcomes["fast"], c.expected, "fast")
        assert.deepStrictEqual(outcomes["reference"], outcomes["fast"], "reference")
      }).pipe(Effect.provide(platform)))
  }

  it.scopedLive("a refused connection, and a plain-http URL off loopback (nothing sent)", () =>
    Effect.gen(function*() {
      const port = yield* closedPort
      for (const [name, connect] of Object.entries(transports)) {
        const refused = yield* connect(`http://127.0.0.1:${port}/hooks`)
        assert.deepStrictEqual(yield* outcomeOf(refused.request(request(1))), { reason: "connection" }, name)
        const remote = yield* connect("http://backend.example/hooks")
        assert.deepStrictEqual(yield* outcomeOf(remote.request(request(1))), { reason: "unsupported" }, name)
      }
    }).pipe(Effect.provide(platform)))

  it.scopedLive("an exchange in flight ends when interrupted, and the backend sees the request dropped", () =>
    Effect.gen(function*() {
      for (const [name, connect] of Object.entries(transports)) {
        const server = yield* httpBackend("hang")
        const endpoint = yield* connect(server.url)
        const fiber = yield* Effect.fork(endpoint.request(request(1)))
        yield* waitForLog(server.log, (e) => e.event === "request")
        const exit = yield* Fiber.interrupt(fiber)
        assert.isTrue(Exit.isInterrupted(exit), name)
        yield* waitForLog(server.log, (e) => e.event === "closed")
      }
    }).pipe(Effect.provide(platform)))

  it.scopedLive("an answer arriving after its request was interrupted reaches no one; the next request gets its own", () =>
    Effect.gen(function*() {
      for (const [name, connect] of Object.entries(transports)) {
        const lateMs = 300
        const server = yield* httpBackend("ok", "--sequence", `late=${lateMs},ok`)
        const endpoint = yield* connect(server.url)
        const fiber = yield* Effect.fork(endpoint.request(request(1)))
        yield* waitForLog(server.log, (e) => e.event === "request")
        assert.isTrue(Exit.isInterrupted(yield* Fiber.interrupt(fiber)), name)
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(2))), { ok: okResponse(2) }, name)
        // the late answer to request 1 is written after request 2 was answered, and is not a third outcome
        yield* Effect.sleep(lateMs + 100)
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(3))), { ok: okResponse(3) }, name)
      }
    }).pipe(Effect.provide(platform)))

  it.scopedLive("closing the endpoint's scope fails the exchange in flight and later calls with closed", () =>
    Effect.gen(function*() {
      for (const [name, connect] of Object.entries(transports)) {
        const server = yield* httpBackend("hang")
        const scope = yield* Scope.make()
        const endpoint = yield* Scope.extend(connect(server.url), scope)
        const done = yield* Deferred.make<Outcome>()
        yield* Effect.fork(Effect.flatMap(outcomeOf(endpoint.request(request(1))), (o) => Deferred.succeed(done, o)))
        yield* waitForLog(server.log, (e) => e.event === "request")
        yield* Scope.close(scope, Exit.void)
        assert.deepStrictEqual(yield* Deferred.await(done), { reason: "closed" }, name)
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(2))), { reason: "closed" }, name)
      }
    }).pipe(Effect.provide(platform)))

  it.live.prop(
    "under a random fault script both give the same outcome to every request, over one endpoint",
    [fc.array(
      fc.constantFrom(
        "ok",
        "error=-32603",
        "wrong-id",
        "batch",
        "non-json",
        "invalid-json",
        "500",
        "503",
        "302",
        "201",
        "reset"
      ),
      { minLength: 1, maxLength: 8 }
    )],
    ([script]) =>
      Effect.scoped(Effect.gen(function*() {
        const seen: Record<string, ReadonlyArray<Outcome>> = {}
        for (const [name, connect] of Object.entries(transports)) {
          const server = yield* httpBackend("ok", "--sequence", script.join(","))
          const endpoint = yield* connect(server.url)
          const outcomes: Array<Outcome> = []
          for (let id = 1; id <= script.length; id++) outcomes.push(yield* outcomeOf(endpoint.request(request(id))))
          seen[name] = outcomes
        }
        assert.deepStrictEqual(seen["reference"], seen["fast"], JSON.stringify(script))
      })).pipe(Effect.provide(platform)),
    { fastCheck: { numRuns: 25 } }
  )
})
