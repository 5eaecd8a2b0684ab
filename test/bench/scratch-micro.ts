import { Boundary, Grant, Projection, Settlement, Staging, Hooks } from "@effect-ahp/harness"
import { Json, Issue, Event } from "@effect-ahp/protocol"
import { Effect, Schema, Either, Duration, Ref } from "effect"
import { completeEvent } from "./inProcess.js"
import * as fixtures from "./fixtures.js"
const size = Number(process.argv[2] ?? 1024)
const event = completeEvent(size)
const bench = (name: string, f: () => unknown, n = 20000) => {
  for (let i = 0; i < n / 10; i++) f()
  const t = performance.now()
  for (let i = 0; i < n; i++) f()
  console.log(name.padEnd(30), ((performance.now() - t) * 1000 / n).toFixed(2), "µs")
}
const boundary = Boundary.of("tool.before")
const sub = { content: { default: "body" }, includeNative: false } as any
const caps = Grant.full().events["tool.before"]!.intercept!
const decode = Issue.decoder(Event.schemaFor("tool.before") as any)
bench("event decode", () => decode(event))
bench("project", () => Projection.project(boundary, event, sub))
const view = Projection.project(boundary, event, sub)
bench("forStep", () => Grant.forStep(caps, view, { remaining: 3, count: 0 }))
const text = Json.stringify(event)
bench("JSON.stringify", () => JSON.stringify(event))
bench("Json.stringify", () => Json.stringify(event))
bench("JSON.parse", () => JSON.parse(text))
bench("Json.parse", () => Json.parse(text))
bench("regex", () => /\d{16,}|[eE][+-]?\d{3,}/.test(text))
const resp0 = fixtures.noEffect()({ id: "evt_bench" })
const resp1 = fixtures.modifyMerge(0)({ id: "evt_bench" })
const ctx = { requestId: "evt_bench", boundary, capabilities: caps, view, selection: sub.content, event, elicitationSchema: undefined }
bench("stage no effect", () => Staging.stage(resp0, ctx))
bench("stage merge", () => Staging.stage(resp1, ctx))
const staged = Staging.stage(resp1, ctx) as any
bench("accept", () => Settlement.accept(Settlement.initial(), staged.right, { backend: "a", subscription: "0", requestId: "x" }))
bench("Effect.runSync(void)", () => Effect.runSync(Effect.void))
bench("runSync timeoutFail", () => Effect.runSync(Effect.timeoutFail(Effect.void, { duration: Duration.millis(1000), onTimeout: () => "x" })))
bench("runSync withSpan", () => Effect.runSync(Effect.withSpan(Effect.void, "x", { attributes: { a: "b" } })))
bench("runSync gen 5 yields", () => Effect.runSync(Effect.gen(function*() { const r = yield* Ref.make(1); yield* Ref.get(r); yield* Ref.set(r, 2); yield* Ref.get(r); yield* Effect.either(Effect.void) })))
