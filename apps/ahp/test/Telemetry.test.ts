/**
 * The OpenTelemetry export against a local HTTP server playing the OTLP collector: the live
 * spans of each call arrive with the decision and failure codes as attributes, under the
 * event's trace context, and the audit sink's log record per audit record; `ahp dispatch` exports them when
 * `OTEL_EXPORTER_OTLP_ENDPOINT` is set. Nothing set means nothing loaded.
 */
import { Audit, Hooks, Tracing } from "@effect-ahp/harness"
import * as Telemetry from "@effect-ahp/tools/Telemetry"
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import * as Http from "node:http"
import { guardAndMissing, guardId, guardTransports } from "./inProcess.js"
import { intercept, registration, runCli, tempDir, toolBefore, writeFile } from "./support.js"

const traceId = "0af7651916cd43dd8448eb211c80319c"
const traceparent = `00-${traceId}-b7ad6b7169203331-01`

interface Received {
  readonly url: string
  readonly body: any
}

/** An OTLP/HTTP JSON collector on 127.0.0.1, closed with the scope. */
const collector = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly received: Array<Received>; readonly server: Http.Server }>((resume) => {
    const received: Array<Received> = []
    const server = Http.createServer((request, response) => {
      let text = ""
      request.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).on("end", () => {
        received.push({ url: request.url ?? "", body: JSON.parse(text) })
        response.writeHead(200, { "content-type": "application/json" }).end("{}")
      })
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as { port: number }
      resume(Effect.succeed({ url: `http://127.0.0.1:${address.port}`, received, server }))
    })
  }),
  ({ server }) => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
)

const spansOf = (received: ReadonlyArray<Received>): Array<any> =>
  received.filter((r) => r.url === "/v1/traces").flatMap((r) =>
    r.body.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans))
  )

const logsOf = (received: ReadonlyArray<Received>): Array<any> =>
  received.filter((r) => r.url === "/v1/logs").flatMap((r) =>
    r.body.resourceLogs.flatMap((rl: any) => rl.scopeLogs.flatMap((sl: any) => sl.logRecords))
  )

const valueOf = (v: any): unknown =>
  v.stringValue ?? v.boolValue ?? (v.intValue !== undefined ? Number(v.intValue) : undefined) ??
    (v.arrayValue !== undefined ? (v.arrayValue.values ?? []).map(valueOf) : undefined)

const attributes = (span: any): Record<string, unknown> =>
  Object.fromEntries(span.attributes.map((a: any) => [a.key, valueOf(a.value)]))

const reg = guardAndMissing("fail-closed")

describe("OpenTelemetry", () => {
  it("is configured only by the OTEL_* variables", () => {
    assert.isFalse(Tracing.exportRequested({}))
    assert.isTrue(Tracing.exportRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318" }))
    assert.isTrue(Tracing.exportRequested({ OTEL_TRACES_EXPORTER: "otlp" }))
    assert.isFalse(Tracing.exportRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_SDK_DISABLED: "true" }))
    assert.deepStrictEqual(
      Telemetry.settings({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/",
        OTEL_EXPORTER_OTLP_HEADERS: "a=b%20c, x = y"
      }),
      {
        traces: Option.some("http://c:4318/v1/traces"),
        logs: Option.some("http://c:4318/v1/logs"),
        headers: { a: "b c", x: "y" },
        protocol: "http/protobuf",
        serviceName: "ahp",
        shutdownTimeout: Duration.millis(1000)
      }
    )
  })

  it.scopedLive("each call's live span carries the decision and failure codes; the audit sink logs a record", () =>
    Effect.gen(function*() {
      const otlp = yield* collector
      yield* Effect.scoped(Effect.gen(function*() {
        const telemetry = yield* Telemetry.make({
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json"
        }, {})
        const hooks = yield* Hooks.makeUnknown(reg).pipe(
          Effect.provideService(Audit.Audit, telemetry.audit),
          Effect.provide(guardTransports)
        )
        const extensions = { "org.w3c.trace_context": { traceparent } }
        assert.isDefined(telemetry.tracer)
        yield* Effect.withTracer(
          Effect.zipRight(
            hooks.dispatch("tool.before", toolBefore("rm -rf /", { extensions }) as any),
            hooks.dispatch("tool.before", toolBefore("ls", { extensions }) as any)
          ),
          telemetry.tracer!
        )
      }))
      const calls = spansOf(otlp.received).filter((s) => s.name === "ahp.call")
      assert.strictEqual(calls.length, 2)
      const [denied, failed] = calls.map(attributes)
      assert.strictEqual(denied!["ahp.decision"], "deny")
      assert.strictEqual(denied!["ahp.decision.synthetic"], false)
      assert.strictEqual(denied!["ahp.stopped_at.backend"], guardId)
      assert.deepStrictEqual(denied!["ahp.failure.codes"], [])
      assert.strictEqual(failed!["ahp.decision"], "deny")
      assert.strictEqual(failed!["ahp.decision.synthetic"], true)
      assert.deepStrictEqual(failed!["ahp.failure.codes"], ["unsupported"])
      assert.strictEqual(failed!["ahp.stopped_at.backend"], "com.example.missing")
      assert.isTrue(
        calls.every((s) => s.traceId === traceId && s.parentSpanId === "b7ad6b7169203331"),
        "under the event's trace context"
      )
      const interceptors = spansOf(otlp.received).filter((s) => s.name === "ahp.interceptor")
      assert.deepStrictEqual(
        interceptors.map((s) => [attributes(s)["ahp.backend"], attributes(s)["ahp.outcome"]]).sort(),
        [
          [guardId, "accepted"],
          [guardId, "accepted"],
          ["com.example.missing", "failed"]
        ].sort()
      )
      assert.isTrue(
        interceptors.every((s) => calls.some((c) => c.spanId === s.parentSpanId)),
        "each interceptor's span is a child of its call's"
      )
      const logs = logsOf(otlp.received)
      assert.strictEqual(logs.length, 2)
      const record = JSON.parse(logs[1].body.stringValue)
      assert.strictEqual(record.settlement.decision, "deny")
      assert.isUndefined(record.content, "no content unless asked")
      assert.strictEqual(logs[1].traceId, traceId)
    }))

  it.scopedLive("ahp dispatch exports when OTEL_EXPORTER_OTLP_ENDPOINT is set", () =>
    Effect.gen(function*() {
      const otlp = yield* collector
      const dir = yield* tempDir
      const files = {
        registration: writeFile(
          dir,
          "registration.json",
          registration({
            id: "com.example.missing",
            transport: { type: "http", url: "http://127.0.0.1:9/" },
            subscriptions: [intercept(["tool.before"], { id: "m", failurePolicy: "fail-closed" })]
          })
        ),
        event: writeFile(dir, "event.json", toolBefore("ls"))
      }
      const run = yield* runCli(["dispatch", "--registration", files.registration, "--event", files.event], {
        env: {
          OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
          OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
          OTEL_SERVICE_NAME: "ahp-test"
        }
      })
      assert.strictEqual(run.code, 0, run.stderr)
      const spans = spansOf(otlp.received)
      const call = spans.find((s) => s.name === "ahp.call")
      assert.isDefined(call, JSON.stringify(otlp.received))
      assert.strictEqual(attributes(call)["ahp.decision"], "deny")
      assert.deepStrictEqual(attributes(call)["ahp.failure.codes"], ["connection"])
      assert.isTrue(
        spans.some((s) => s.name === "ahp.interceptor" && s.parentSpanId === call.spanId),
        "the route's live span is the call's child"
      )
      const resource = otlp.received.find((r) => r.url === "/v1/traces")!.body.resourceSpans[0].resource
      assert.deepInclude(resource.attributes, { key: "service.name", value: { stringValue: "ahp-test" } })
      assert.strictEqual(logsOf(otlp.received).length, 1)
    }))
})
