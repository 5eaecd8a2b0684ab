/**
 * Hostile JSON end to end, through the real harness, the real Node transports and real
 * child processes: answers nested far beyond the limit (stdio persistent and per_event,
 * HTTP) under both failure policies, values at the limit, numbers no double can hold, host
 * events nested too deep or cyclic, a large answer under a deadline, and the CLI.
 */
import { Hooks, Transport } from "@effect-ahp/harness"
import { Event, Json, Registration } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import * as ChildProcess from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import {
  failures,
  intercept,
  nodeTransports,
  openHooks,
  registration,
  serverInProcess,
  tempDir,
  toolBefore,
  tracked
} from "../support/e2e.js"
import { scaled } from "../support/load.js"
import * as RawBackend from "./fixtures/rawBackend.mjs"

const fixture = fileURLToPath(new URL("./fixtures/rawBackend.mjs", import.meta.url))
const root = fileURLToPath(new URL("../..", import.meta.url))

const HOSTILE = "com.example.hostile"
const SECOND = "com.example.second"
/** Slack for a loaded 2-core machine. */
const margin = 2500

type Kind = "persistent" | "per_event" | "http"
type Policy = "fail-open" | "fail-closed"

/** `depth` arrays nested in each other, as text. */
const nestedText = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

/** `depth` arrays nested in each other. */
const nestedValue = (depth: number): Json.JsonValue => {
  let value: Json.JsonValue = []
  for (let i = 1; i < depth; i++) value = [value]
  return value
}

/** A response whose effects are `effects` (JSON text, written as is). */
const answerWith = (effects: string) =>
  `{"jsonrpc":"2.0","id":"__ID__","result":{"protocolVersion":"draft","effects":[${effects}]}}`

const askAnswer = answerWith(`{"type":"ask"}`)

/** What a raw backend received, each line or body as it arrived. */
const received = (log: string): Array<string> =>
  fs.existsSync(log)
    ? fs.readFileSync(log, "utf8").split("\n").filter((l) => l !== "").map((l) =>
      (JSON.parse(l) as { raw: string }).raw
    )
    : []

const methodOf = (raw: string): unknown => (Either.getOrThrow(Json.parse(raw)) as Json.JsonObject).method

/**
 * A raw backend answering every request with `answer`: its transport (an HTTP one runs in
 * this process for the scope, `serverInProcess`) and its log.
 */
const rawBackend = (dir: string, name: string, kind: Kind, answer: string) =>
  Effect.gen(function*() {
    const answerFile = path.join(dir, `${name}.answer.json`)
    const log = path.join(dir, `${name}.log`)
    fs.writeFileSync(answerFile, answer)
    if (kind !== "http") {
      return {
        log,
        transport: {
          type: "stdio",
          command: process.execPath,
          args: [fixture, "stdio", answerFile, log],
          lifecycle: kind
        }
      }
    }
    const origin = yield* serverInProcess(() => RawBackend.startHttp(answerFile, log))
    return { log, transport: { type: "http", url: `${origin}/hooks` } }
  })

/** Two backends in a chain: the one under test, then one answering `ask` (fail-closed). */
const chain = (dir: string, kind: Kind, answer: string, policy: Policy, timeoutMs = 10_000) =>
  Effect.gen(function*() {
    const first = yield* rawBackend(dir, "first", kind, answer)
    const second = yield* rawBackend(dir, "second", kind, askAnswer)
    const reg = registration([
      { id: HOSTILE, transport: first.transport, subscriptions: [intercept(policy, timeoutMs)] },
      { id: SECOND, transport: second.transport, subscriptions: [intercept("fail-closed", 20_000)] }
    ])
    const { close, hooks } = yield* openHooks(
      reg,
      nodeTransports({ stdio: { killGrace: "300 millis", exitGrace: "1 second" } }),
      { observationTimeoutMs: 10_000 }
    )
    return { close, hooks, first: first.log, second: second.log }
  })

const kinds: ReadonlyArray<Kind> = ["persistent", "per_event", "http"]
const policies: ReadonlyArray<Policy> = ["fail-open", "fail-closed"]
const deepAnswers: ReadonlyArray<readonly [string, string]> = [
  [
    "a modify value nested 5 000 deep",
    answerWith(`{"type":"modify","target":"input","operation":"replace","value":{"x":${nestedText(5_000)}}}`)
  ],
  ["a return value nested 5 000 deep", answerWith(`{"type":"return","value":${nestedText(5_000)}}`)],
  [
    "a response nested 20 000 deep",
    `{"jsonrpc":"2.0","id":"__ID__","result":{"protocolVersion":"draft","effects":[],"x":${nestedText(20_000)}}}`
  ]
]

describe("hostile answers nested beyond the limit", () => {
  for (const kind of kinds) {
    for (const [name, answer] of deepAnswers) {
      for (const policy of policies) {
        it.scopedLive(
          `${kind}, ${policy}: ${name} is a malformed route failure, and the next request is intact`,
          () =>
            Effect.gen(function*() {
              const dir = yield* tempDir
              const { close, hooks, second } = yield* chain(dir, kind, answer, policy)
              const { elapsed, live, result } = yield* tracked(hooks.dispatch("tool.before", toolBefore("evt_deep")))
              assert.deepStrictEqual(live, [])
              assert.deepStrictEqual(failures(result.errors).map(({ detail: _, httpStatus: __, ...rest }) => rest), [{
                backend: HOSTILE,
                mode: "intercept",
                phase: "transport",
                code: "malformed",
                policy,
                syntheticDenial: policy === "fail-closed"
              }])
              assert.match(result.errors[0]!.detail, /nested deeper than 512 levels/)
              assert.isBelow(elapsed, 10_000 + margin)
              const toSecond = received(second)
              if (policy === "fail-open") {
                assert.strictEqual(result.decision.permission, "ask", "the second backend decides")
                assert.strictEqual(toSecond.length, 1)
                const request = Either.getOrThrow(Json.parse(toSecond[0]!)) as any
                assert.strictEqual(request.method, "hooks/intercept")
                assert.deepStrictEqual(request.params.event.tool.input, { command: "ls" })
              } else {
                assert.strictEqual(result.decision.permission, "deny")
                assert.isTrue(result.decision.denial?.synthetic)
                assert.notInclude(toSecond.map(methodOf), "hooks/intercept")
              }
              yield* close
            }),
          { timeout: scaled(60_000) }
        )
      }
    }
  }
})

describe("in-process backends", () => {
  const cyclic: Record<string, unknown> = {}
  cyclic.self = cyclic
  const answers: ReadonlyArray<readonly [string, Json.JsonValue]> = [
    ["a modify value nested 5 000 deep", {
      type: "modify",
      target: "input",
      operation: "replace",
      value: { x: nestedValue(5_000) }
    }],
    ["a cyclic return value", { type: "return", value: cyclic as Json.JsonObject }]
  ]
  for (const [name, effect] of answers) {
    for (const policy of policies) {
      it.effect(`${policy}: ${name} is a malformed route failure, never a defect`, () =>
        Effect.gen(function*() {
          const asked: Array<Json.JsonObject> = []
          const reg = registration([
            {
              id: HOSTILE,
              transport: { type: "stdio", command: "unused", lifecycle: "persistent" },
              subscriptions: [intercept(policy, 10_000)]
            },
            {
              id: SECOND,
              transport: { type: "stdio", command: "unused", lifecycle: "persistent" },
              subscriptions: [intercept("fail-closed", 10_000)]
            }
          ])
          const respond = (effects: ReadonlyArray<Json.JsonValue>) => (message: Json.JsonObject) =>
            Effect.succeed<Json.JsonValue>({
              jsonrpc: "2.0",
              id: message.id!,
              result: { protocolVersion: "draft", effects }
            })
          const result = yield* Effect.flatMap(Hooks.Hooks, (hooks) =>
            hooks.dispatch("tool.before", toolBefore("evt_in"))).pipe(
              Effect.provide(Hooks.layerTest(reg, {
                [HOSTILE]: {
                  request: respond([effect]),
                  notify: () =>
                    Effect.void
                },
                [SECOND]: {
                  request: (message) =>
                    Effect.zipRight(Effect.sync(() => asked.push(message)), respond([{ type: "ask" }])(message)),
                  notify: () => Effect.void
                }
              }))
            )
          assert.deepStrictEqual(failures(result.errors).map((f) => [f.backend, f.code, f.syntheticDenial]), [
            [HOSTILE, "malformed", policy === "fail-closed"]
          ])
          assert.match(result.errors[0]!.detail, /nested deeper than 512 levels \(or cyclic\)/)
          assert.strictEqual(result.decision.permission, policy === "fail-open" ? "ask" : "deny")
          assert.strictEqual(asked.length, policy === "fail-open" ? 1 : 0)
        }))
    }
  }
})

describe("requests that cannot be written", () => {
  for (const kind of kinds) {
    it.scopedLive(
      `${kind}: a message nested too deep or cyclic fails as malformed, and nothing is sent`,
      () =>
        Effect.gen(function*() {
          const dir = yield* tempDir
          const backend = yield* rawBackend(dir, "target", kind, askAnswer)
          const transports = yield* Effect.provide(Transport.Transports, nodeTransports({}))
          const reg = registration([{
            id: HOSTILE,
            transport: backend.transport,
            subscriptions: [intercept("fail-closed", 10_000)]
          }])
          const registered = Either.getOrThrow(Schema.decodeUnknownEither(Registration.Registration)(reg)).hooks[0]!
          const endpoint = yield* transports.connect(registered)
          const cyclic: Record<string, unknown> = {}
          cyclic.self = cyclic
          for (const event of [nestedValue(600), nestedValue(10_000), cyclic as Json.JsonObject]) {
            const message = {
              jsonrpc: "2.0",
              id: "evt_w",
              method: "hooks/intercept",
              params: { protocolVersion: "draft", event }
            }
            for (const exchange of [endpoint.request(message), endpoint.notify(message)]) {
              const outcome = yield* Effect.either(exchange)
              assert.isTrue(Either.isLeft(outcome) && outcome.left.reason === "malformed")
              if (Either.isLeft(outcome)) {
                assert.match(outcome.left.detail, /cannot be written as JSON: JSON nested deeper than 512 levels/)
              }
            }
          }
          assert.deepStrictEqual(received(backend.log), [], "nothing was sent")
        }),
      { timeout: scaled(60_000) }
    )
  }
})

describe("values at the limit", () => {
  it.scopedLive(
    "a modify value filling the response to 512 levels is accepted, and the next request (512 levels) is written",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        // {result:{effects:[{value:{deep:[…507…]}}]}}: 4 levels of envelope and 508 of value.
        const answer = answerWith(
          `{"type":"modify","target":"input","operation":"replace","value":{"deep":${nestedText(507)}}}`
        )
        const { close, hooks, second } = yield* chain(dir, "persistent", answer, "fail-closed")
        const result = yield* hooks.dispatch("tool.before", toolBefore("evt_limit"))
        assert.deepStrictEqual(failures(result.errors), [])
        assert.strictEqual(result.decision.permission, "ask")
        const [request] = received(second)
        const parsed = Json.parse(request!)
        assert.isTrue(Either.isRight(parsed), "the next request is within the limit")
        assert.isTrue(Json.exceedsDepth(Either.getOrThrow(parsed), 511))
        yield* close
      }),
    { timeout: scaled(60_000) }
  )
})

describe("host events", () => {
  const deepInput = (depth: number): Json.JsonObject => ({ command: "ls", deep: nestedValue(depth) })

  it.scopedLive(
    "an event nested too deep or cyclic is InvalidEvent; nothing is sent; one at the limit is delivered",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const { close, hooks, second } = yield* chain(dir, "persistent", askAnswer, "fail-closed")
        const cyclic: Record<string, unknown> = { command: "ls" }
        cyclic.self = cyclic
        // tool.input is the event's third level: an input 509 levels deep makes the event 511 deep.
        const inputs: ReadonlyArray<Json.JsonObject> = [
          deepInput(10_000),
          cyclic as Json.JsonObject,
          deepInput(Event.maxDepth - 2)
        ]
        for (const input of inputs) {
          const event = { ...toolBefore("evt_host"), tool: { name: "Bash", kind: "shell", input, origin: "native" } }
          const outcome = yield* Effect.either(hooks.dispatchUnknown("tool.before", event as Json.JsonObject))
          assert.isTrue(Either.isLeft(outcome) && outcome.left._tag === "InvalidEvent")
          if (Either.isLeft(outcome) && outcome.left._tag === "InvalidEvent") {
            assert.deepStrictEqual(outcome.left.issues, [{
              path: "",
              message: `nests deeper than ${Event.maxDepth} levels`
            }])
          }
        }
        assert.deepStrictEqual(received(second), [], "nothing was sent")
        // An input 508 levels deep: an event of exactly Event.maxDepth (510) levels.
        const atLimit = {
          ...toolBefore("evt_edge"),
          tool: { name: "Bash", kind: "shell", input: deepInput(Event.maxDepth - 3), origin: "native" }
        }
        const result = yield* hooks.dispatchUnknown("tool.before", atLimit as Json.JsonObject)
        assert.deepStrictEqual(failures(result.errors), [])
        assert.strictEqual(result.decision.permission, "ask")
        assert.isTrue(Either.isRight(Json.parse(received(second)[0]!)))
        yield* close
      }),
    { timeout: scaled(60_000) }
  )
})

describe("lossless numbers end to end", () => {
  const literals = {
    big: "1180591620717411303424",
    tiny: "1e-400",
    frac: "0.1000000000000000000000000000000001",
    huge: "1e400",
    odd: "9007199254740993"
  }
  for (const kind of kinds) {
    it.scopedLive(
      `${kind}: host input and edits reach the next backend and the result verbatim`,
      () =>
        Effect.gen(function*() {
          const dir = yield* tempDir
          const answer = answerWith(
            `{"type":"modify","target":"input","operation":"merge","value":{"huge":${literals.huge},"odd":${literals.odd}}}`
          )
          const { close, hooks, first, second } = yield* chain(dir, kind, answer, "fail-closed")
          const input = Either.getOrThrow(
            Json.parse(`{"command":"ls","big":${literals.big},"tiny":${literals.tiny},"frac":${literals.frac}}`)
          ) as Json.JsonObject
          const event = { ...toolBefore("evt_exact"), tool: { name: "Bash", kind: "shell", input, origin: "native" } }
          const result = yield* hooks.dispatchUnknown("tool.before", event as Json.JsonObject)
          assert.deepStrictEqual(failures(result.errors), [])
          const expectedInput =
            `{"command":"ls","big":${literals.big},"tiny":${literals.tiny},"frac":${literals.frac},"huge":${literals.huge},"odd":${literals.odd}}`
          assert.include(
            received(first)[0]!,
            `"input":{"command":"ls","big":${literals.big},"tiny":${literals.tiny},"frac":${literals.frac}}`
          )
          assert.include(received(second)[0]!, `"input":${expectedInput}`)
          assert.strictEqual(Json.stringify((result.event as any).tool.input), expectedInput)
          yield* close
        }),
      { timeout: scaled(60_000) }
    )
  }
})

describe("time linear in the answer", () => {
  it.scopedLive(
    "a 100 KB answer with 1e400 next to 8 000 members is accepted well within its deadline",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const members = Array.from({ length: 8_000 }, (_, i) => `"k${i}":${i}`).join(",")
        const answer = answerWith(
          `{"type":"modify","target":"input","operation":"merge","value":{"big":1e400,${members}}}`
        )
        const timeoutMs = 2_000
        const { close, hooks } = yield* chain(dir, "persistent", answer, "fail-closed", timeoutMs)
        // The first call also starts the child.
        yield* hooks.dispatch("tool.before", toolBefore("evt_warm"))
        const { elapsed, result } = yield* tracked(hooks.dispatch("tool.before", toolBefore("evt_big")))
        assert.deepStrictEqual(failures(result.errors), [])
        assert.strictEqual(Json.stringify(((result.event as any).tool.input as Json.JsonObject).big), "1e400")
        assert.isBelow(elapsed, timeoutMs)
        yield* close
      }),
    { timeout: scaled(120_000) }
  )
})

describe("the CLI", () => {
  const cli = (args: ReadonlyArray<string>) =>
    Effect.async<{ readonly code: number | null; readonly stdout: string }>((resume) => {
      const child = ChildProcess.spawn(process.execPath, [path.join(root, "apps", "ahp", "bin", "ahp.mjs"), ...args], {
        cwd: root,
        stdio: ["ignore", "pipe", "inherit"]
      })
      let stdout = ""
      child.stdout.setEncoding("utf8")
      child.stdout.on("data", (text: string) => void (stdout += text))
      child.on("close", (code) => resume(Effect.succeed({ code, stdout })))
    })

  it.scopedLive(
    "prints numbers exactly, and refuses an event file nested too deep with a clear input error",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const answer = answerWith(`{"type":"modify","target":"input","operation":"merge","value":{"huge":1e400}}`)
        const backend = yield* rawBackend(dir, "cli", "per_event", answer)
        const reg = path.join(dir, "registration.json")
        fs.writeFileSync(
          reg,
          JSON.stringify(
            registration([{
              id: HOSTILE,
              transport: backend.transport,
              subscriptions: [intercept("fail-closed", 20_000)]
            }])
          )
        )
        const event = path.join(dir, "event.json")
        fs.writeFileSync(
          event,
          `{"type":"tool.before","session":{"id":"s"},"tool":{"name":"Bash","input":{"command":"ls","tiny":1e-400,"frac":0.1000000000000000000000000000000001,"big":1180591620717411303424},"origin":"native"},"call":{"id":"c"},"path":"native"}`
        )
        const run = yield* cli(["dispatch", "--registration", reg, "--event", event])
        assert.strictEqual(run.code, 0, run.stdout)
        assert.include(
          run.stdout,
          `"input":{"command":"ls","tiny":1e-400,"frac":0.1000000000000000000000000000000001,"big":1180591620717411303424,"huge":1e400}`
        )

        const deep = path.join(dir, "deep.json")
        fs.writeFileSync(deep, `{"type":"tool.before","x":${nestedText(10_000)}}`)
        const refused = yield* cli(["dispatch", "--registration", reg, "--event", deep])
        assert.strictEqual(refused.code, 2)
        const output = Either.getOrThrow(Json.parse(refused.stdout)) as Json.JsonObject
        assert.strictEqual(output.error, "input")
        assert.match(String(output.message), /nested deeper than 512 levels at line 1 column \d+/)
      }),
    { timeout: scaled(120_000) }
  )
})
