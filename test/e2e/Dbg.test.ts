import { it } from "@effect/vitest"
import { Effect } from "effect"
import { intercept, nodeTransports, openHooks, registration, scriptedHttp, tempDir, toolBefore } from "../support/e2e.js"

it.scopedLive("dbg", () => Effect.gen(function*() {
  let t = Date.now()
  const lap = (s: string) => Effect.sync(() => { console.log(s, Date.now() - t); t = Date.now() })
  const dir = yield* tempDir
  const a = yield* scriptedHttp(dir, "a", "ok")
  yield* lap("server a")
  const b = yield* scriptedHttp(dir, "b", "ok")
  yield* lap("server b")
  const reg = registration([{ id: "com.example.a", transport: { type: "http", url: a.url }, subscriptions: [intercept("fail-open", 5000)] },
  { id: "com.example.b", transport: { type: "http", url: b.url }, subscriptions: [intercept("fail-open", 5000)] }])
  const { close, hooks } = yield* openHooks(reg, nodeTransports({}))
  yield* lap("open")
  yield* hooks.dispatch("tool.before", toolBefore("evt_1"))
  yield* lap("d1")
  yield* hooks.dispatch("tool.before", toolBefore("evt_2"))
  yield* lap("d2")
  yield* close
  yield* lap("close")
}).pipe(Effect.ensuring(Effect.sync(() => console.log("scope end")))))
