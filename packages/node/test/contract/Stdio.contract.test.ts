/**
 * The stdio transport's contract, both lifecycles: tables of cases — answers,
 * JSON-RPC errors, frames with other ids, duplicates, unsolicited frames, lines that are not
 * JSON, invalid UTF-8, multi-line JSON, oversized lines, a child exiting mid-request, a
 * command that cannot start — then credentials (the environment a child receives, a JSON-RPC
 * error quoting a passed value), interruption, reaping and closing, run against
 * `StdioTransport` and against the reference on `@effect/platform`'s `CommandExecutor`. Each
 * case states its outcomes and the two transports must agree on them.
 */
import type * as TransportApi from "@effect-ahp/harness/Transport"
import { StdioTransport } from "@effect-ahp/node"
import { Registration } from "@effect-ahp/protocol"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Effect, Exit, FastCheck as fc, Fiber, Scope } from "effect"
import {
  isAlive,
  notification,
  okResponse,
  readLog,
  request,
  startedPids,
  stdio,
  tempFile,
  waitForLog,
  waitUntil
} from "../utils.js"
import { type Outcome, outcomeOf } from "./outcome.js"
import * as StdioReference from "./StdioReference.js"

const maxLineBytes = 64 * 1024
const killGrace = "300 millis"

type Needs = NodeContext.NodeContext | Scope.Scope

/** The two transports under contract, each connecting a stdio transport in the current scope. */
const transports: Record<
  "fast" | "reference",
  (transport: Registration.StdioTransport) => Effect.Effect<TransportApi.Endpoint, never, Needs>
> = {
  fast: (transport) => StdioTransport.connect(transport, { killGrace, exitGrace: "1500 millis", maxLineBytes }),
  reference: (transport) =>
    StdioReference.connect(transport, {
      killGrace,
      maxLineBytes,
      env: StdioTransport.childEnvironment({}, transport[Registration.environmentKey])
    })
}

/** The scripted backend, logging and counting requests across its children, so `--sequence` spans restarts. */
const scriptedAs = (lifecycle: Registration.StdioTransport["lifecycle"], args: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const log = yield* tempFile("stdio.log")
    const counter = yield* tempFile("counter")
    return { transport: stdio(lifecycle, ...args, "--log", log, "--counter", counter), log }
  })

const scripted = (...args: Array<string>) => scriptedAs("persistent", args)

interface Case {
  readonly name: string
  readonly args: ReadonlyArray<string>
  /** The outcomes of requests 1, 2, … in turn. */
  readonly expected: ReadonlyArray<Outcome>
  /** How many children the backend started for them. */
  readonly children: number
  /** Whether the first child is gone before the second request (an exit the transport has seen). */
  readonly awaitExit?: boolean
}

const ok = (id: number): Outcome => ({ ok: okResponse(id) })

const cases: ReadonlyArray<Case> = [
  { name: "answers from one child", args: ["ok"], expected: [ok(1), ok(2), ok(3)], children: 1 },
  {
    name: "a JSON-RPC error answer",
    args: ["error=-32601"],
    expected: [{ ok: { jsonrpc: "2.0", id: 1, error: { code: -32601, message: "scripted error" } } }],
    children: 1
  },
  { name: "a frame with another id first", args: ["wrong-id"], expected: [ok(1), ok(2)], children: 1 },
  { name: "a duplicate answer", args: ["--sequence", "duplicate"], expected: [ok(1), ok(2)], children: 1 },
  { name: "unsolicited frames first", args: ["unsolicited"], expected: [ok(1), ok(2)], children: 1 },
  {
    name: "a line that is not JSON (the child kept)",
    args: ["--sequence", "garbage"],
    expected: [{ reason: "malformed" }, ok(2)],
    children: 1
  },
  { name: "invalid UTF-8", args: ["--sequence", "invalid-utf8"], expected: [{ reason: "malformed" }], children: 1 },
  { name: "multi-line JSON", args: ["--sequence", "multiline"], expected: [{ reason: "malformed" }], children: 1 },
  {
    name: "a UTF-8 character split across writes",
    args: ["--sequence", "split-utf8"],
    expected: [{ ok: undefined }],
    children: 1
  },
  {
    name: "an oversized line, then a fresh answer",
    args: ["--sequence", "oversized", "--size", String(maxLineBytes * 4)],
    expected: [{ reason: "oversized" }, ok(2)],
    children: 1
  },
  {
    name: "an exit mid-request, then a new child",
    args: ["--sequence", "exit-mid"],
    expected: [{ reason: "exited" }, ok(2)],
    children: 2
  },
  {
    name: "an answer, then an exit noticed before the next request",
    args: ["--sequence", "exit-after-reply"],
    expected: [ok(1), ok(2)],
    children: 2,
    awaitExit: true
  }
]

describe("the stdio transport contract (persistent)", () => {
  for (const c of cases) {
    it.scopedLive(c.name, () =>
      Effect.gen(function*() {
        const seen: Record<string, ReadonlyArray<Outcome>> = {}
        for (const [name, connect] of Object.entries(transports)) {
          const { log, transport } = yield* scripted(...c.args)
          const endpoint = yield* connect(transport)
          const outcomes: Array<Outcome> = []
          for (let id = 1; id <= c.expected.length; id++) {
            outcomes.push(yield* outcomeOf(endpoint.request(request(id))))
            if (id === 1 && c.awaitExit === true) {
              const [pid] = yield* startedPids(log)
              yield* waitUntil(`${name}: the first child to exit`, () => !isAlive(pid!))
            }
          }
          seen[name] = outcomes
          assert.strictEqual((yield* startedPids(log)).length, c.children, `${name}: children started`)
        }
        const fast = seen["fast"]!
        // the split-UTF-8 answer carries text; compare that it succeeded, and then equality with the reference
        c.expected.forEach((expected, i) =>
          "ok" in expected && expected.ok === undefined
            ? assert.property(fast[i], "ok", `fast, request ${i + 1}`)
            : assert.deepStrictEqual(fast[i], expected, `fast, request ${i + 1}`)
        )
        assert.deepStrictEqual(seen["reference"], fast, "reference")
      }).pipe(Effect.provide(NodeContext.layer)))
  }

  it.scopedLive("notifications are delivered in order, before the next request's answer", () =>
    Effect.gen(function*() {
      for (const [name, connect] of Object.entries(transports)) {
        const { log, transport } = yield* scripted("ok")
        const endpoint = yield* connect(transport)
        yield* endpoint.notify(notification({ n: 1 }))
        yield* endpoint.notify(notification({ n: 2 }))
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(3))), ok(3), name)
        const messages = (yield* readLog(log)).flatMap((e) => e.event === "message" && e.message ? [e.message] : [])
        assert.deepStrictEqual(messages.map((m) => m["params"] ?? m["id"]), [{ n: 1 }, { n: 2 }, {}], name)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a child receives PATH, HOME and what the registration passes, nothing else of this process's environment", () =>
    Effect.gen(function*() {
      process.env["AHP_CONTRACT_INHERITED"] = "inherited value"
      process.env["AHP_CONTRACT_NOT_PASSED"] = "a secret of the harness"
      yield* Effect.addFinalizer(() =>
        Effect.sync(() => {
          delete process.env["AHP_CONTRACT_INHERITED"]
          delete process.env["AHP_CONTRACT_NOT_PASSED"]
        })
      )
      const expected = ["AHP_CONTRACT_INHERITED", "AHP_CONTRACT_SET", "HOME", "PATH"].filter((name) =>
        name.startsWith("AHP") || process.env[name] !== undefined
      )
      for (const [name, connect] of Object.entries(transports)) {
        const { transport } = yield* scripted("introspect")
        const endpoint = yield* connect({
          ...transport,
          [Registration.environmentKey]: { inherit: ["AHP_CONTRACT_INHERITED"], set: { AHP_CONTRACT_SET: "set value" } }
        })
        const outcome = yield* outcomeOf(endpoint.request(request(1)))
        assert.property(outcome, "ok", name)
        const answer = (outcome as { readonly ok: { readonly result: { readonly env: ReadonlyArray<string> } } }).ok
        assert.deepStrictEqual(answer.result.env, expected, name)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a JSON-RPC error answer quoting a value the registration passed comes out masked", () =>
    Effect.gen(function*() {
      const secret = "contract-secret-passed-to-the-child"
      for (const [name, connect] of Object.entries(transports)) {
        const { transport } = yield* scripted("error-echo-env=AHP_CONTRACT_TOKEN")
        const endpoint = yield* connect({
          ...transport,
          [Registration.environmentKey]: { set: { AHP_CONTRACT_TOKEN: secret } }
        })
        const said = "refused [redacted]"
        assert.deepStrictEqual(
          yield* outcomeOf(endpoint.request(request(1))),
          { ok: { jsonrpc: "2.0", id: 1, error: { code: -32001, message: said, data: { said } } } },
          name
        )
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("a command that cannot be started fails with spawn", () =>
    Effect.gen(function*() {
      for (const [name, connect] of Object.entries(transports)) {
        const endpoint = yield* connect({ type: "stdio", command: "/nonexistent/ahp-backend", lifecycle: "persistent" })
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(1))), { reason: "spawn" }, name)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("an interrupted request retires its child, which is reaped; the next request gets a new child", () =>
    Effect.gen(function*() {
      for (const [name, connect] of Object.entries(transports)) {
        // the child answered once, so it is past its start-up
        const { log, transport } = yield* scripted("--sequence", "ok,hang")
        const endpoint = yield* connect(transport)
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(1))), ok(1), name)
        const pending = yield* Effect.fork(endpoint.request(request(2)))
        yield* waitForLog(log, (e) => e.event === "message" && e.message?.["id"] === 2)
        const [pid] = yield* startedPids(log)
        assert.isTrue(Exit.isInterrupted(yield* Fiber.interrupt(pending)), name)
        yield* waitUntil(`${name}: the retired child to be reaped`, () => !isAlive(pid!))
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(3))), ok(3), name)
        assert.strictEqual((yield* startedPids(log)).length, 2, name)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("closing the scope fails a pending request with closed, kills a SIGTERM-ignoring child, and later calls fail with closed", () =>
    Effect.gen(function*() {
      for (const [name, connect] of Object.entries(transports)) {
        const { log, transport } = yield* scripted("--sequence", "ok,ignore-sigterm")
        const scope = yield* Scope.make()
        const endpoint = yield* Scope.extend(connect(transport), scope)
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(1))), ok(1), name)
        const done = yield* Deferred.make<Outcome>()
        yield* Effect.fork(Effect.flatMap(outcomeOf(endpoint.request(request(2))), (o) => Deferred.succeed(done, o)))
        yield* waitForLog(log, (e) => e.event === "message" && e.message?.["id"] === 2)
        const [pid] = yield* startedPids(log)
        yield* Scope.close(scope, Exit.void)
        assert.deepStrictEqual(yield* Deferred.await(done), { reason: "closed" }, name)
        yield* waitUntil(`${name}: the child to be killed`, () => !isAlive(pid!))
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(3))), { reason: "closed" }, name)
        assert.deepStrictEqual(yield* outcomeOf(endpoint.notify(notification())), { reason: "closed" }, name)
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.live.prop(
    "under a random fault script both give the same outcomes, start the same children, and leave none behind",
    [fc.array(
      fc.constantFrom("ok", "error=-32603", "wrong-id", "duplicate", "unsolicited", "garbage", "exit-mid", "oversized"),
      {
        minLength: 1,
        maxLength: 7
      }
    )],
    ([script]) =>
      Effect.scoped(Effect.gen(function*() {
        const seen: Record<string, { outcomes: ReadonlyArray<Outcome>; children: number }> = {}
        for (const [name, connect] of Object.entries(transports)) {
          const { log, transport } = yield* scripted("--sequence", script.join(","), "--size", String(maxLineBytes * 2))
          const scope = yield* Scope.make()
          const endpoint = yield* Scope.extend(connect(transport), scope)
          const outcomes: Array<Outcome> = []
          for (let id = 1; id <= script.length; id++) outcomes.push(yield* outcomeOf(endpoint.request(request(id))))
          yield* Scope.close(scope, Exit.void)
          const pids = yield* startedPids(log)
          yield* waitUntil(`${name}: every child to end`, () => pids.every((pid) => !isAlive(pid)))
          seen[name] = { outcomes, children: pids.length }
        }
        assert.deepStrictEqual(seen["reference"], seen["fast"], JSON.stringify(script))
      })).pipe(Effect.provide(NodeContext.layer)),
    { fastCheck: { numRuns: 15 } }
  )
})

const perEventCases: ReadonlyArray<readonly [string, ReadonlyArray<string>, Outcome]> = [
  ["an answer", ["ok"], ok(1)],
  ["an answer, then an exit", ["exit-after-reply"], ok(1)],
  ["an exit without an answer", ["exit-mid"], { reason: "exited" }],
  ["a line that is not JSON", ["garbage"], { reason: "malformed" }],
  ["invalid UTF-8", ["invalid-utf8"], { reason: "malformed" }],
  ["result and error", ["result-and-error"], { reason: "malformed" }],
  ["an oversized line", ["oversized", "--size", String(maxLineBytes * 4)], { reason: "oversized" }],
  ["a last line without its newline", ["no-newline"], ok(1)],
  ["a frame with another id first", ["wrong-id"], ok(1)],
  ["unsolicited frames first", ["unsolicited"], ok(1)]
]

describe("the stdio transport contract (per_event)", () => {
  for (const [title, args, expected] of perEventCases) {
    it.scopedLive(title, () =>
      Effect.gen(function*() {
        for (const [name, connect] of Object.entries(transports)) {
          const { log, transport } = yield* scriptedAs("per_event", args)
          const endpoint = yield* connect(transport)
          assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(1))), expected, name)
          const pids = yield* startedPids(log)
          assert.strictEqual(pids.length, 1, name)
          // a child that answered is reaped before the call returns; one that failed it may be
          // stopped in the background (the caller does not wait the kill grace)
          if ("ok" in expected) {
            assert.isFalse(isAlive(pids[0]!), `${name}: the child is reaped before the call returns`)
          } else yield* waitUntil(`${name}: the child to be stopped`, () => !isAlive(pids[0]!))
        }
      }).pipe(Effect.provide(NodeContext.layer)))
  }

  it.scopedLive("a child per message, a notification delivered to its own", () =>
    Effect.gen(function*() {
      for (const [name, connect] of Object.entries(transports)) {
        const { log, transport } = yield* scriptedAs("per_event", ["ok"])
        const endpoint = yield* connect(transport)
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(1))), ok(1), name)
        assert.deepStrictEqual(yield* outcomeOf(endpoint.notify(notification({ n: 1 }))), { ok: undefined }, name)
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(2))), ok(2), name)
        const pids = yield* startedPids(log)
        assert.strictEqual(new Set(pids).size, 3, name)
        assert.isTrue(pids.every((pid) => !isAlive(pid)), name)
        const messages = (yield* readLog(log)).filter((e) => e.event === "message")
        assert.deepStrictEqual(
          messages.map((e) => e.message?.["params"] ?? e.message?.["id"]),
          [{}, { n: 1 }, {}],
          name
        )
      }
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scopedLive("closing the scope kills a SIGTERM-ignoring child of a call in flight; it and later calls fail with closed", () =>
    Effect.gen(function*() {
      for (const [name, connect] of Object.entries(transports)) {
        const { log, transport } = yield* scriptedAs("per_event", ["ignore-sigterm"])
        const scope = yield* Scope.make()
        const endpoint = yield* Scope.extend(connect(transport), scope)
        const pending = yield* Effect.fork(outcomeOf(endpoint.request(request(1))))
        const { pid } = yield* waitForLog(log, (e) => e.event === "message")
        yield* Scope.close(scope, Exit.void)
        yield* waitUntil(`${name}: the child to be killed`, () => !isAlive(pid))
        assert.deepStrictEqual(yield* Fiber.join(pending), { reason: "closed" }, name)
        assert.deepStrictEqual(yield* outcomeOf(endpoint.request(request(2))), { reason: "closed" }, name)
      }
    }).pipe(Effect.provide(NodeContext.layer)))
})
