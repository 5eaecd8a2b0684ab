import { StdioTransport } from "@effect-ahp/node"
import type { Json } from "@effect-ahp/protocol"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Scope, Tracer } from "effect"
import {
  isAlive,
  notification,
  okResponse,
  readLog,
  reasonOf,
  request,
  startedPids,
  stdio,
  tempFile,
  waitForLog,
  waitUntil,
  withDeadline
} from "./utils.js"

/** A short kill grace; an exit grace that holds on a loaded machine (a per_event answer needs the exit too). */
const fast = { killGrace: "300 millis", exitGrace: "1500 millis" } as const

/**
 * Connects the scripted backend with a fresh log file and a request counter shared by all
 * its children (so `--sequence` spans restarts and per_event children).
 */
const connect = (
  lifecycle: "persistent" | "per_event",
  args: ReadonlyArray<string>,
  options: StdioTransport.Options = fast
) =>
  Effect.gen(function*() {
    const log = yield* tempFile("stdio.log")
    const counter = yield* tempFile("counter")
    const transport = stdio(lifecycle, ...args, "--log", log, "--counter", counter)
    const endpoint = yield* StdioTransport.connect(transport, options)
    return { endpoint, log }
  })

/** Connects the scripted backend, with a fresh log file, in a scope of its own that the test closes. */
const connectClosable = (
  lifecycle: "persistent" | "per_event",
  args: ReadonlyArray<string>,
  options: StdioTransport.Options
) =>
  Effect.gen(function*() {
    const log = yield* tempFile("stdio.log")
    const scope = yield* Scope.make()
    const endpoint = yield* StdioTransport.connect(stdio(lifecycle, ...args, "--log", log), options).pipe(
      Scope.extend(scope)
    )
    return { endpoint, log, scope }
  })

describe("StdioTransport persistent", () => {
  it.scopedLive("answers requests from one child, in order, and delivers notifications", () =>
    Effect.gen(function*() {
      const { endpoint, log } = yield* connect("persistent", ["ok"])
      yield* endpoint.notify(notification({ n: 1 }))
      const first = yield* endpoint.request(request(1))
      yield* endpoint.notify(notification({ n: 2 }))
      const second = yield* endpoint.request(request("two"))
      assert.deepStrictEqual(first, okResponse(1))
      assert.deepStrictEqual(second, okResponse("two"))
      const entries = yield* readLog(log)
      assert.strictEqual((yield* startedPids(log)).length, 1)
      assert.deepStrictEqual(
        entries.filter((e) => e.event === "message").map((e) => (e.message as Json.JsonObject).params),
        [{ n: 1 }, {}, { n: 2 }, {}]
      )
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("under an installed tracer a request runs in its StdioTransport.request span; under the built-in one none", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("persistent", ["ok"])
      const builtIn = yield* Effect.tracer
      const spans: Array<string> = []
      const installed = Tracer.make({
        span: (name, ...rest) => {
          spans.push(name)
          return builtIn.span(name, ...rest)
        },
        context: builtIn.context
      })
      assert.deepStrictEqual(yield* endpoint.request(request(1)), okResponse(1))
      assert.deepStrictEqual(spans, [])
      const answer = yield* endpoint.request(request(2)).pipe(Effect.withTracer(installed))
      assert.deepStrictEqual(answer, okResponse(2))
      assert.deepStrictEqual(spans, ["StdioTransport.request"])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("serialises concurrent requests (at most one outstanding) and matches each by id", () =>
    Effect.gen(function*() {
      const { endpoint, log } = yield* connect("persistent", ["late=20"])
      const ids = [1, 2, 3, 4, 5]
      const results = yield* Effect.forEach(ids, (id) => endpoint.request(request(id)), { concurrency: "unbounded" })
      assert.deepStrictEqual(results, ids.map(okResponse))
      const messages = (yield* readLog(log)).filter((e) => e.event === "message")
      assert.strictEqual(messages.length, 5)
      assert.isTrue(messages.every((e) => e.outstanding === 0))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a hung request is retired at the deadline: the child is killed and reaped, the next is fresh", () =>
    Effect.gen(function*() {
      const { endpoint, log } = yield* connect("persistent", ["--sequence", "ok,hang"])
      yield* endpoint.request(request(1))
      const [pid] = yield* startedPids(log)
      assert.isTrue(isAlive(pid!))
      const error = yield* Effect.flip(endpoint.request(request(2)).pipe(withDeadline(200)))
      assert.strictEqual(error._tag, "Deadline")
      yield* waitUntil("the retired child to be reaped", () => !isAlive(pid!))
      assert.deepStrictEqual(yield* endpoint.request(request(3)), okResponse(3))
      const pids = yield* startedPids(log)
      assert.strictEqual(pids.length, 2)
      assert.notStrictEqual(pids[1], pid)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive(
    "a deadline returns at once; a child ignoring SIGTERM is SIGKILLed after the grace, in the background",
    () =>
      Effect.gen(function*() {
        const { endpoint, log, scope } = yield* connectClosable("persistent", ["--sequence", "ok,ignore-sigterm"], {
          killGrace: "2500 millis"
        })
        yield* endpoint.request(request(1))
        const started = Date.now()
        const error = yield* Effect.flip(endpoint.request(request(2)).pipe(withDeadline(100)))
        const elapsed = Date.now() - started
        assert.strictEqual(error._tag, "Deadline")
        assert.isBelow(elapsed, 100 + 1200, "the deadline does not wait for the kill grace")
        // The next request is served by a fresh child while the old one is still being stopped.
        assert.deepStrictEqual(yield* endpoint.request(request(3)), okResponse(3))
        const pids = yield* startedPids(log)
        assert.strictEqual(pids.length, 2)
        yield* Scope.close(scope, Exit.void).pipe(withDeadline(5000))
        assert.deepStrictEqual(pids.filter(isAlive), [], "closing the endpoint waits for the background kill")
      }).pipe(Effect.provide(NodeContext.layer)),
    20_000
  )

  it.scopedLive("closing the scope kills and reaps the child, even one ignoring SIGTERM; later calls fail", () =>
    Effect.gen(function*() {
      const { endpoint, log, scope } = yield* connectClosable("persistent", ["ignore-sigterm", "--sequence", "ok"], {
        killGrace: "200 millis"
      })
      yield* endpoint.request(request(1))
      const [pid] = yield* startedPids(log)
      assert.isTrue(isAlive(pid!))
      yield* Scope.close(scope, Exit.void).pipe(withDeadline(3000))
      assert.isFalse(isAlive(pid!))
      assert.strictEqual(yield* reasonOf(endpoint.request(request(2))), "closed")
      assert.strictEqual(yield* reasonOf(endpoint.notify(notification())), "closed")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("closing the scope while a request is pending fails it and leaves no child", () =>
    Effect.gen(function*() {
      const { endpoint, log, scope } = yield* connectClosable("persistent", ["hang"], fast)
      const pending = yield* Effect.fork(endpoint.request(request(1)))
      const started = yield* waitForLog(log, (e) => e.event === "message")
      yield* Scope.close(scope, Exit.void)
      const exit = yield* Fiber.await(pending)
      assert.isTrue(Exit.isFailure(exit))
      assert.isFalse(isAlive(started.pid))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("closing the scope right after notifications delivers them: stdin is flushed and ended first", () =>
    Effect.gen(function*() {
      const { endpoint, log, scope } = yield* connectClosable("persistent", ["ok"], {
        ...fast,
        exitGrace: "10 seconds"
      })
      yield* endpoint.notify(notification({ n: 1 }))
      yield* endpoint.notify(notification({ n: 2 }))
      yield* Scope.close(scope, Exit.void).pipe(withDeadline(5000))
      const entries = yield* readLog(log)
      assert.deepStrictEqual(
        entries.filter((e) => e.event === "message").map((e) => (e.message as Json.JsonObject).params),
        [{ n: 1 }, { n: 2 }]
      )
      assert.isTrue(
        (yield* startedPids(log)).every((pid) => !isAlive(pid)),
        "the child exited on its own and was reaped"
      )
      assert.strictEqual(yield* reasonOf(endpoint.notify(notification())), "closed")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("closing the scope stops a child that does not exit at the end of its stdin after exitGrace", () =>
    Effect.gen(function*() {
      const { endpoint, log, scope } = yield* connectClosable("persistent", ["ok", "--linger"], {
        killGrace: "200 millis",
        exitGrace: "500 millis"
      })
      yield* endpoint.notify(notification({ n: 1 }))
      yield* endpoint.request(request(1))
      const [pid] = yield* startedPids(log)
      const started = Date.now()
      yield* Scope.close(scope, Exit.void).pipe(withDeadline(5000))
      const elapsed = Date.now() - started
      assert.isAtLeast(elapsed, 450, "the child was given exitGrace")
      assert.isBelow(elapsed, 3000, "not the observation grace: the answer shows the observation was read")
      assert.isFalse(isAlive(pid!))
      const messages = (yield* readLog(log)).filter((e) => e.event === "message")
      assert.deepStrictEqual(messages.map((e) => (e.message as Json.JsonObject).method), [
        "hooks/observe",
        "hooks/intercept"
      ])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a child that exits mid-request fails it with exited; the next request starts a new child", () =>
    Effect.gen(function*() {
      const { endpoint, log } = yield* connect("persistent", ["--sequence", "exit-mid"])
      const error = yield* Effect.flip(endpoint.request(request(1)))
      assert.strictEqual(error.reason, "exited")
      assert.match(error.detail, /exit code 3/)
      assert.deepStrictEqual(yield* endpoint.request(request(2)), okResponse(2))
      const pids = yield* startedPids(log)
      assert.strictEqual(pids.length, 2)
      assert.isFalse(isAlive(pids[0]!))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a non-JSON line fails the pending request with malformed; the child is kept", () =>
    Effect.gen(function*() {
      const { endpoint, log } = yield* connect("persistent", ["--sequence", "garbage"])
      assert.strictEqual(yield* reasonOf(endpoint.request(request(1))), "malformed")
      assert.deepStrictEqual(yield* endpoint.request(request(2)), okResponse(2))
      assert.strictEqual((yield* startedPids(log)).length, 1)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a child that keeps emitting garbage is killed and replaced", () =>
    Effect.gen(function*() {
      const { endpoint, log } = yield* connect("persistent", ["--sequence", "garbage,garbage,garbage"])
      for (const id of [1, 2, 3]) assert.strictEqual(yield* reasonOf(endpoint.request(request(id))), "malformed")
      assert.deepStrictEqual(yield* endpoint.request(request(4)), okResponse(4))
      const pids = yield* startedPids(log)
      assert.strictEqual(pids.length, 2)
      // Killed, it exits once the machine schedules it: waited for, not expected at once.
      yield* waitUntil("the garbage-emitting child to be killed", () => !isAlive(pids[0]!))
      assert.isTrue(isAlive(pids[1]!))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("invalid UTF-8 and multi-line JSON are malformed", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("persistent", ["--sequence", "invalid-utf8,multiline"])
      assert.strictEqual(yield* reasonOf(endpoint.request(request(1))), "malformed")
      assert.strictEqual(yield* reasonOf(endpoint.request(request(2))), "malformed")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a UTF-8 character split across chunks is decoded intact", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("persistent", ["split-utf8"])
      const response = (yield* endpoint.request(request(1))) as { result: { text: string } }
      assert.strictEqual(response.result.text, "é€😀")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("frames with another id, duplicates, notifications and unsolicited frames are ignored", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("persistent", ["--sequence", "wrong-id,duplicate,unsolicited,ok"])
      for (const id of [1, 2, 3, 4]) assert.deepStrictEqual(yield* endpoint.request(request(id)), okResponse(id))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("an oversized line fails with oversized; the next request works", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("persistent", ["--sequence", "oversized", "--size", "1048576"], {
        ...fast,
        maxLineBytes: 65536
      })
      assert.strictEqual(yield* reasonOf(endpoint.request(request(1))), "oversized")
      assert.deepStrictEqual(yield* endpoint.request(request(2)), okResponse(2))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a reply after the deadline is never delivered; the next request gets its own answer", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("persistent", ["--sequence", "late=400"])
      const error = yield* Effect.flip(endpoint.request(request(1)).pipe(withDeadline(100)))
      assert.strictEqual(error._tag, "Deadline")
      assert.deepStrictEqual(yield* endpoint.request(request(2)), okResponse(2))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("stderr is drained (1 MiB of it does not block the child)", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("persistent", ["stderr-flood"])
      assert.deepStrictEqual(yield* endpoint.request(request(1)).pipe(withDeadline(5000)), okResponse(1))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("the child gets a minimal environment and the configured cwd", () =>
    Effect.gen(function*() {
      process.env.AHP_NODE_TEST_SECRET = "must-not-leak"
      const transport = { ...stdio("persistent", "introspect"), cwd: "/" }
      const endpoint = yield* StdioTransport.connect(transport, { env: { EXTRA_FOR_BACKEND: "1" } })
      const response = (yield* endpoint.request(request(1))) as { result: { env: Array<string>; cwd: string } }
      assert.strictEqual(response.result.cwd, "/")
      assert.notInclude(response.result.env, "AHP_NODE_TEST_SECRET")
      assert.include(response.result.env, "PATH")
      assert.include(response.result.env, "EXTRA_FOR_BACKEND")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a command that cannot be started fails with spawn", () =>
    Effect.gen(function*() {
      const endpoint = yield* StdioTransport.connect({
        type: "stdio",
        command: "/nonexistent/ahp-backend",
        lifecycle: "persistent"
      })
      assert.strictEqual(yield* reasonOf(endpoint.request(request(1))), "spawn")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a command Node refuses outright (a NUL byte, a missing cwd) fails with spawn, both lifecycles", () =>
    Effect.gen(function*() {
      for (const lifecycle of ["persistent", "per_event"] as const) {
        const nul = yield* StdioTransport.connect({ type: "stdio", command: "node\u0000x", lifecycle })
        assert.strictEqual(yield* reasonOf(nul.request(request(1))), "spawn")
        const cwd = yield* StdioTransport.connect({ ...stdio(lifecycle, "ok"), cwd: "/nonexistent/ahp-cwd" })
        assert.strictEqual(yield* reasonOf(cwd.request(request(1))), "spawn")
      }
    }))
})

describe("StdioTransport per_event", () => {
  it.scopedLive("runs one child per message, and every child is reaped before the call returns", () =>
    Effect.gen(function*() {
      const { endpoint, log } = yield* connect("per_event", ["ok"])
      assert.deepStrictEqual(yield* endpoint.request(request(1)), okResponse(1))
      const afterFirst = yield* startedPids(log)
      assert.isFalse(isAlive(afterFirst[0]!))
      assert.deepStrictEqual(yield* endpoint.request(request(2)), okResponse(2))
      yield* endpoint.notify(notification())
      const pids = yield* startedPids(log)
      assert.strictEqual(new Set(pids).size, 3)
      assert.isTrue(pids.every((pid) => !isAlive(pid)))
      const messages = (yield* readLog(log)).filter((e) => e.event === "message")
      assert.strictEqual(messages.length, 3, "exactly one message per child")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a child that exits right after replying succeeds (the response decides)", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("per_event", ["exit-after-reply"])
      assert.deepStrictEqual(yield* endpoint.request(request(1)), okResponse(1))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a child that exits without replying fails with exited", () =>
    Effect.gen(function*() {
      const { endpoint } = yield* connect("per_event", ["exit-mid"])
      assert.strictEqual(yield* reasonOf(endpoint.request(request(1))), "exited")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("malformed, invalid UTF-8 and oversized replies fail; a final line without newline is accepted", () =>
    Effect.gen(function*() {
      const reason = (behaviour: string) =>
        connect("per_event", [behaviour, "--size", "200000"], { ...fast, maxLineBytes: 65536 }).pipe(
          Effect.flatMap(({ endpoint }) => reasonOf(endpoint.request(request(1))))
        )
      assert.strictEqual(yield* reason("garbage"), "malformed")
      assert.strictEqual(yield* reason("invalid-utf8"), "malformed")
      assert.strictEqual(yield* reason("result-and-error"), "malformed")
      assert.strictEqual(yield* reason("oversized"), "oversized")
      const { endpoint } = yield* connect("per_event", ["no-newline"])
      assert.deepStrictEqual(yield* endpoint.request(request(1)), okResponse(1))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("wrong ids and unsolicited frames are skipped until the matching response", () =>
    Effect.gen(function*() {
      const first = yield* connect("per_event", ["wrong-id"])
      assert.deepStrictEqual(yield* first.endpoint.request(request(1)), okResponse(1))
      const second = yield* connect("per_event", ["unsolicited"])
      assert.deepStrictEqual(yield* second.endpoint.request(request(2)), okResponse(2))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive(
    "interrupting a hung request returns at once; its child is stopped in the background, which closing awaits",
    () =>
      Effect.gen(function*() {
        const { endpoint, log, scope } = yield* connectClosable("per_event", ["ignore-sigterm"], {
          killGrace: "2500 millis"
        })
        const fiber = yield* Effect.fork(endpoint.request(request(1)))
        const { pid } = yield* waitForLog(log, (e) => e.event === "message")
        assert.isTrue(isAlive(pid))
        const started = Date.now()
        yield* Fiber.interrupt(fiber)
        assert.isBelow(Date.now() - started, 1200, "the interruption does not wait for the kill grace")
        yield* Scope.close(scope, Exit.void).pipe(withDeadline(5000))
        assert.isFalse(isAlive(pid))
      }).pipe(Effect.provide(NodeContext.layer)),
    20_000
  )

  it.scopedLive("closing the scope kills the children of calls in flight; they fail with closed", () =>
    Effect.gen(function*() {
      const { endpoint, log, scope } = yield* connectClosable("per_event", ["ignore-sigterm"], {
        killGrace: "200 millis"
      })
      const pending = yield* Effect.fork(endpoint.request(request(1)))
      const { pid } = yield* waitForLog(log, (e) => e.event === "message")
      yield* Scope.close(scope, Exit.void).pipe(withDeadline(3000))
      assert.isFalse(isAlive(pid))
      assert.strictEqual(yield* reasonOf(Fiber.join(pending)), "closed")
      assert.strictEqual(yield* reasonOf(endpoint.request(request(2))), "closed")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive(
    "a notification to a child that lingers past the notification grace is not delivered",
    () =>
      Effect.gen(function*() {
        const { endpoint, log } = yield* connect("per_event", ["ok", "--linger"], {
          killGrace: "200 millis",
          notificationGrace: "1 second"
        })
        const started = Date.now()
        const error = yield* Effect.flip(endpoint.notify(notification()).pipe(withDeadline(5000)))
        assert.isAtLeast(Date.now() - started, 1000)
        assert.strictEqual(error._tag === "TransportError" ? error.reason : error._tag, "exited")
        assert.match(String(error.message), /did not exit within 1000 ms/)
        const [pid] = yield* startedPids(log)
        yield* waitUntil("the lingering child to be stopped", () => !isAlive(pid!))
        const messages = (yield* readLog(log)).filter((e) => e.event === "message")
        assert.strictEqual(messages.length, 1)
      }).pipe(Effect.provide(NodeContext.layer)),
    20_000
  )
})
