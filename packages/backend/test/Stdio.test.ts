import { Backend, Server, Stdio } from "@effect-ahp/backend"
import { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Chunk, Effect, Layer, Logger, LogLevel, Stream } from "effect"
import { PassThrough } from "node:stream"
import { scaled } from "../../../test/support/load.js"
import { guard, Policy } from "./TestBackend.js"
import * as M from "./TestMessages.js"
import { spawnBackend } from "./TestProcess.js"

const encoder = new TextEncoder()
const line = (message: Json.JsonObject) => Json.stringify(message) + "\n"

const parseLine = (text: string): Json.JsonObject => {
  const parsed = Json.parse(text)
  assert.isTrue(parsed._tag === "Right" && Json.isObject(parsed.right), `not a JSON object line: ${text}`)
  return (parsed as { right: Json.JsonObject }).right
}

const errorCode = (response: Json.JsonObject) => (response.error as { code: number } | undefined)?.code

const parseError = { jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } }

const denyRm = {
  jsonrpc: "2.0",
  id: "evt_rm",
  result: { protocolVersion: "draft", effects: [{ type: "deny", reason: "Bash: rm -rf is not allowed" }] }
}

/** Feeds the chunks through the stdio protocol of a backend and returns the output lines. */
const respond = (backend: Layer.Layer<Backend.Handlers>, chunks: ReadonlyArray<Uint8Array>, options?: Stdio.Options) =>
  Stream.fromIterable(chunks).pipe(
    Stdio.respond(options),
    Stream.runCollect,
    Effect.map((out) => new TextDecoder().decode(Buffer.concat([...Chunk.toReadonlyArray(out)]))),
    Effect.provide(Server.layerBackend(backend)),
    Logger.withMinimumLogLevel(LogLevel.None)
  )

describe("Stdio.respond", () => {
  const backend = Backend.make(guard.pipe(Layer.provide(Policy.layer(["rm -rf"]))))

  const run = (chunks: ReadonlyArray<Uint8Array>, options?: Stdio.Options) => respond(backend, chunks, options)

  it.effect("splits lines on bytes, across chunk boundaries and inside UTF-8 sequences", () =>
    Effect.gen(function*() {
      const bytes = encoder.encode(
        line(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /tmp/é" }))) +
          line(M.intercept(M.toolBeforeEvent("evt_ls", { command: "ls é" })))
      )
      const inUtf8 = bytes.indexOf(0xc3) + 1
      const newline = bytes.indexOf(0x0a)
      assert.isTrue(3 < inUtf8 && inUtf8 + 1 < newline)
      const chunks = [3, inUtf8, inUtf8 + 1, newline, newline + 1].reduce<{ parts: Array<Uint8Array>; from: number }>(
        (acc, to) => ({ parts: [...acc.parts, bytes.subarray(acc.from, to)], from: to }),
        { parts: [], from: 0 }
      )
      const text = yield* run([...chunks.parts, bytes.subarray(chunks.from)])
      const lines = text.split("\n")
      assert.strictEqual(lines.length, 3)
      assert.strictEqual(lines[2], "")
      assert.deepStrictEqual(parseLine(lines[0]!).id, "evt_rm")
      assert.deepStrictEqual(parseLine(lines[1]!).id, "evt_ls")
    }))

  it.effect("answers malformed lines with -32700, skips blank lines and handles a last line without newline", () =>
    Effect.gen(function*() {
      const text = yield* run([
        encoder.encode("{not json\n\n  \r\n"),
        new Uint8Array([0x22, 0xc3, 0x28, 0x22, 0x0a]),
        encoder.encode(Json.stringify(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /" }))) + "\r")
      ])
      const responses = text.trimEnd().split("\n").map(parseLine)
      assert.deepStrictEqual(responses.map(errorCode), [-32700, -32700, undefined])
      assert.deepStrictEqual(responses[0], parseError)
      assert.deepStrictEqual(responses[2], denyRm)
    }))

  it.effect("answers a line longer than maxLineBytes with -32600 and keeps serving", () =>
    Effect.gen(function*() {
      const long = encoder.encode(`"${"x".repeat(2000)}"`)
      const request = encoder.encode(line(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf" }))))
      assert.isBelow(request.length, 1024)
      const text = yield* run([long.subarray(0, 1000), long.subarray(1000), encoder.encode("\n"), request], {
        maxLineBytes: 1024
      })
      const responses = text.trimEnd().split("\n").map(parseLine)
      assert.deepStrictEqual(responses.map(errorCode), [-32600, undefined])
      assert.isNull(responses[0]!.id)
      assert.strictEqual(responses[1]!.id, "evt_rm")
    }))
})

/** A line holding a request whose tool input nests `depth` arrays. */
const deepLine = (id: string, depth: number) =>
  line(M.intercept(M.toolBeforeEvent(id, { command: "ls", nested: [] }))).replace(
    "\"nested\":[]",
    `"nested":${"[".repeat(depth)}${"]".repeat(depth)}`
  )

describe("Stdio.respond: hostile input", () => {
  const brokenRegistry = Layer.succeed(
    Backend.Handlers,
    Backend.Handlers.of({
      register: () => Effect.void,
      intercepts: (eventType) => {
        if (eventType === "tool.before") throw new Error("registry defect")
        return []
      },
      observers: () => []
    })
  )

  const run = (backend: Layer.Layer<Backend.Handlers>, text: string) => respond(backend, [encoder.encode(text)])

  it.effect("answers a line nested deeper than 512 levels with -32600 and keeps serving", () =>
    Effect.gen(function*() {
      const backend = Backend.make(guard.pipe(Layer.provide(Policy.layer(["rm -rf"]))))
      const text = yield* run(
        backend,
        deepLine("evt_deep", 10_000) + line(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /" })))
      )
      const responses = text.trimEnd().split("\n").map(parseLine)
      assert.deepStrictEqual(responses.map(errorCode), [-32600, undefined])
      assert.isNull(responses[0]!.id)
      assert.deepStrictEqual(responses[1], denyRm)
    }))

  it.effect("answers a defect in handling with -32603 and keeps serving", () =>
    Effect.gen(function*() {
      const text = yield* run(
        brokenRegistry,
        line(M.intercept(M.toolBeforeEvent("evt_1"))) + line(M.intercept(M.sessionStartEvent("evt_2")))
      )
      const responses = text.trimEnd().split("\n").map(parseLine)
      assert.deepStrictEqual(responses.map((r) => [r.id, errorCode(r)]), [["evt_1", -32603], ["evt_2", -32002]])
    }))
})

describe("Stdio.serve on given streams", () => {
  it.live("reads requests from `input` until it ends and writes each response to `output`, which it leaves open", () =>
    Effect.gen(function*() {
      const input = new PassThrough()
      const output = new PassThrough()
      let written = ""
      output.setEncoding("utf8").on("data", (text: string) => (written += text))
      input.end(
        line(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /" }))) +
          line(M.intercept(M.toolBeforeEvent("evt_ls", { command: "ls" })))
      )
      yield* Stdio.serve(Backend.make(guard.pipe(Layer.provide(Policy.layer(["rm -rf"])))), {
        input: () => input,
        output: () => output
      }).pipe(Logger.withMinimumLogLevel(LogLevel.None))
      const lines = written.split("\n")
      assert.deepStrictEqual(parseLine(lines[0]!), denyRm)
      assert.strictEqual(parseLine(lines[1]!).id, "evt_ls")
      assert.strictEqual(lines[2], "")
      assert.isFalse(output.writableEnded)
    }))
})

describe("Stdio.serve in a child process", () => {
  it.scopedLive(
    "answers a request nested 10 000 levels deep with -32600 and keeps serving",
    () =>
      Effect.gen(function*() {
        const backend = yield* spawnBackend
        yield* backend.write(deepLine("evt_deep", 10_000))
        const refused = parseLine(yield* backend.nextLine)
        assert.deepStrictEqual([refused.id, errorCode(refused)], [null, -32600])
        yield* backend.write(line(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /" }))))
        assert.deepStrictEqual(parseLine(yield* backend.nextLine), denyRm)
        yield* backend.end
        assert.strictEqual(yield* backend.exitCode, 0)
      }),
    { timeout: scaled(60_000) }
  )

  it.scopedLive("serves a persistent backend line by line until EOF", () =>
    Effect.gen(function*() {
      const backend = yield* spawnBackend
      yield* backend.write(line(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /" }))))
      assert.deepStrictEqual(parseLine(yield* backend.nextLine), denyRm)

      yield* backend.write("{\"jsonrpc\": \"2.0\", oops\n")
      assert.deepStrictEqual(parseLine(yield* backend.nextLine), parseError)

      yield* backend.write(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d, 0x0a]))
      assert.strictEqual(errorCode(parseLine(yield* backend.nextLine)), -32700)

      yield* backend.write(line(M.observe(M.toolAfterEvent("evt_obs"))))
      yield* backend.write(line(M.observe(M.toolAfterEvent("evt_old"), "2025-01-01")))
      yield* backend.write("\n")
      yield* backend.write(line(M.intercept(M.toolBeforeEvent("evt_ls", { command: "ls" }))))
      assert.deepStrictEqual(parseLine(yield* backend.nextLine), {
        jsonrpc: "2.0",
        id: "evt_ls",
        result: { protocolVersion: "draft", effects: [] }
      })

      yield* backend.write(line(M.intercept(M.toolBeforeEvent("evt_fail", { fail: "error" }))))
      const failed = parseLine(yield* backend.nextLine)
      assert.deepStrictEqual(failed.error, { code: -32004, message: "Backend internal error" })
      assert.notInclude(Json.stringify(failed), "sk-secret")

      const capabilities = { jsonrpc: "2.0", id: 9, method: "hooks/capabilities", params: { protocolVersion: "draft" } }
      yield* backend.write(line(capabilities))
      assert.strictEqual(errorCode(parseLine(yield* backend.nextLine)), -32601)

      yield* backend.end
      assert.strictEqual(yield* backend.exitCode, 0)
      assert.deepStrictEqual(yield* backend.pendingLines, [])
      const stderr = yield* backend.stderr
      assert.include(stderr, "observed tool.after evt_obs")
      assert.notInclude(stderr, "evt_old")
      assert.include(stderr, "intercepted")
    }), { timeout: scaled(60_000) })

  it.scopedLive("serves a per_event backend: one request, EOF, one response, exit 0", () =>
    Effect.gen(function*() {
      const backend = yield* spawnBackend
      yield* backend.write(line(M.intercept(M.toolBeforeEvent("evt_rm", { command: "rm -rf /", delayMs: 300 }))))
      yield* backend.end
      assert.strictEqual(yield* backend.exitCode, 0)
      assert.deepStrictEqual((yield* backend.pendingLines).map(parseLine), [denyRm])
    }), { timeout: scaled(60_000) })

  it.scopedLive("never answers a per_event notification, and still processes it", () =>
    Effect.gen(function*() {
      const backend = yield* spawnBackend
      yield* backend.write(line(M.observe(M.toolBeforeEvent("evt_note"))))
      yield* backend.end
      assert.strictEqual(yield* backend.exitCode, 0)
      assert.deepStrictEqual(yield* backend.pendingLines, [])
      assert.include(yield* backend.stderr, "observed tool.before evt_note")
    }), { timeout: scaled(60_000) })
})
