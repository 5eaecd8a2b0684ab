/**
 * `ahp dispatch --audit` under trace context from the environment, run for real: each
 * backend sees the trace context (the event's extension, the HTTP `traceparent` header, a
 * per-event child's environment) and the audit file holds one record checked against the
 * calls made, with no content or secret unless `--audit-content`.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import {
  intercept,
  logEntries,
  output,
  registration,
  runCli,
  scriptedHttp,
  scriptedStdio,
  tempDir,
  toolBefore,
  writeFile
} from "./support.js"

const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"

/** A per-event stdio backend logging its TRACEPARENT and the event's extensions, answering no effects. */
const envBackend = `
import * as fs from "node:fs"
const log = process.argv[2]
let text = ""
process.stdin.setEncoding("utf8").on("data", (d) => (text += d)).on("end", () => {
  const message = JSON.parse(text.split("\\n")[0])
  fs.appendFileSync(log, JSON.stringify({ env: process.env.TRACEPARENT ?? null, state: process.env.TRACESTATE ?? null, extensions: message.params.event.extensions ?? null }) + "\\n")
  process.stdout.write(JSON.stringify({ jsonrpc: "2.0", id: message.id, result: { protocolVersion: "draft", effects: [] } }) + "\\n")
})
`

describe("ahp dispatch --audit", () => {
  it.scopedLive("records each call against the calls made and carries the trace context to every backend", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const http = yield* scriptedHttp(dir, "http", "ok")
      const envLog = path.join(dir, "env.log")
      const script = writeFile(dir, "env-backend.mjs", "")
      fs.writeFileSync(script, envBackend)
      const reg = registration(
        {
          id: "com.example.http",
          transport: { type: "http", url: http.url },
          subscriptions: [intercept(["tool.before"], { id: "h" })]
        },
        {
          id: "com.example.env",
          transport: { type: "stdio", command: process.execPath, args: [script, envLog], lifecycle: "per_event" },
          subscriptions: [intercept(["tool.before"], { id: "e" })]
        },
        {
          id: "com.example.crash",
          transport: scriptedStdio("exit-mid", path.join(dir, "crash.log"), "per_event"),
          subscriptions: [intercept(["tool.before"], { id: "c", failurePolicy: "fail-closed" })]
        }
      )
      const files = {
        registration: writeFile(dir, "registration.json", reg),
        event: writeFile(dir, "event.json", toolBefore("cat secret-file-name"))
      }
      const audit = path.join(dir, "audit.jsonl")
      const dispatch = (...extra: ReadonlyArray<string>) =>
        runCli(["dispatch", "--registration", files.registration, "--event", files.event, "--audit", audit, ...extra], {
          env: { TRACEPARENT: traceparent, TRACESTATE: "vendor=1" }
        })
      const run = yield* dispatch()
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(output(run).decision, "deny")

      const [header] = logEntries(http.log).filter((e) => e.traceparent !== undefined)
      assert.strictEqual(header.traceparent, traceparent, "the HTTP header")
      const [child] = logEntries(envLog)
      assert.strictEqual(child.env, traceparent, "the child's environment")
      assert.strictEqual(child.state, "vendor=1")
      assert.deepStrictEqual(child.extensions, {
        "org.w3c.trace_context": { traceparent, tracestate: "vendor=1" }
      }, "the event's extension")

      const records = fs.readFileSync(audit, "utf8").trim().split("\n").map((line) => JSON.parse(line))
      assert.strictEqual(records.length, 1)
      const [record] = records
      assert.deepStrictEqual(record.event.traceContext, { traceparent, tracestate: "vendor=1" })
      assert.deepStrictEqual(
        record.interceptors.map((
          i: any
        ) => [i.backend, i.transport, i.outcome, i.code ?? null, i.failurePolicy, i.syntheticDenial]),
        [
          ["com.example.http", "http", "no-effect", null, "fail-open", false],
          ["com.example.env", "stdio", "no-effect", null, "fail-open", false],
          ["com.example.crash", "stdio", "failed", "exited", "fail-closed", true]
        ]
      )
      assert.deepStrictEqual(record.settlement.decision, "deny")
      assert.isTrue(record.settlement.syntheticDenial, "a fail-closed denial, not a backend's deny")
      assert.deepStrictEqual(record.settlement.stoppedAt, { backend: "com.example.crash", subscription: "c" })
      assert.notInclude(JSON.stringify(record), "secret-file-name", "no content unless asked")
      assert.notProperty(record, "content")

      const again = yield* dispatch("--audit-content")
      assert.strictEqual(again.code, 0, again.stderr)
      const lines = fs.readFileSync(audit, "utf8").trim().split("\n")
      assert.strictEqual(lines.length, 2, "records are appended")
      assert.strictEqual(JSON.parse(lines[1]!).content.event.tool.input.command, "cat secret-file-name")
    }))
})
