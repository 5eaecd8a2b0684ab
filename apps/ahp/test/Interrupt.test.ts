/**
 * `ahp dispatch` interrupted by a signal while an observation is being delivered: the
 * call returns at once with `interrupted: true` (the spec: interruption does not wait for
 * ordinary observer processing) keeping the decision settled before it, the process exits
 * 130 and leaves no backend behind.
 */
import { assert, describe, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import {
  eventually,
  intercept,
  isAlive,
  logEntries,
  observe,
  output,
  registration,
  scriptedHttp,
  scriptedStdio,
  startCli,
  tempDir,
  toolBefore,
  writeFile
} from "./support.js"

describe("ahp dispatch interrupted during observation", () => {
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    it.scopedLive(`${signal} while an observer is being delivered: interrupted at once, exit 130, no child left`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const observer = yield* scriptedHttp(dir, "observer", "hang")
        const log = `${dir}/allow.log`
        const running = yield* startCli([
          "dispatch",
          "--registration",
          writeFile(
            dir,
            "registration.json",
            registration(
              {
                id: "com.example.allow",
                transport: scriptedStdio(`effects=[{"type":"allow"}]`, log),
                subscriptions: [intercept(["tool.before"])]
              },
              {
                id: "com.example.audit",
                transport: { type: "http", url: observer.url },
                subscriptions: [observe(["tool.before"])]
              }
            )
          ),
          "--event",
          writeFile(dir, "event.json", toolBefore("ls")),
          "--observation-timeout",
          "120000"
        ])
        const pid = yield* eventually(() =>
          logEntries(log).find((e) => e.event === "message")?.pid as number | undefined
        )
        yield* eventually(() => logEntries(observer.log).some((e) => e.event === "request") || undefined)
        running.child.kill(signal)
        // Waiting for the observer would take the 120 s observation timeout.
        const run = yield* running.done.pipe(Effect.timeoutFail({
          duration: Duration.seconds(20),
          onTimeout: () => new Error(`no exit 20 s after ${signal}: ${running.stdout()}`)
        }))
        assert.strictEqual(run.code, 130, run.stderr)
        const out = output(run)
        assert.isTrue(out.interrupted)
        // The decision was settled before the observation: the interruption keeps it.
        assert.strictEqual(out.decision, "allow")
        assert.deepStrictEqual(out.effects, [{ type: "allow" }])
        assert.deepStrictEqual(out.observations.map((o: any) => [o.backend, o.outcome]), [[
          "com.example.audit",
          "interrupted"
        ]])
        assert.isFalse(isAlive(pid))
        yield* eventually(() => logEntries(observer.log).some((e) => e.event === "closed") || undefined)
      }))
  }
})
