/**
 * When the host started the hook call, read from `/proc` in real processes: a shell that
 * forked the hook and waits for it counts when it started within the bound, an older one
 * does not; never later than Node's own start.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { execFile } from "node:child_process"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import * as Invocation from "../src/internal/invocation.js"

const source = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "src", "internal", "invocation.ts")

/**
 * Runs `sh -c "sleep 0.4; node …"` (the shell forks Node and waits) and returns Node's start
 * and the call's start it reads with `withinMs`.
 */
const underShell = (withinMs: number) =>
  Effect.async<{ readonly node: number; readonly call: number }, Error>((resume) => {
    const script = `import(${JSON.stringify(source)}).then((m) => console.log(JSON.stringify({ ` +
      `node: performance.timeOrigin, call: m.started(performance.timeOrigin, ${withinMs}) })))`
    const node = [process.execPath, "--import", "tsx", "-e", script].map((w) => `'${w.replace(/'/g, "'\\''")}'`)
    execFile("sh", ["-c", `sleep 0.4; ${node.join(" ")}`], (error, stdout) => {
      if (error !== null) resume(Effect.fail(error))
      else resume(Effect.succeed(JSON.parse(stdout)))
    })
  })

describe.skipIf(process.platform !== "linux")("Invocation.started", () => {
  it("never later than Node's start, never before this process began", () => {
    const now = Date.now()
    const started = Invocation.started(now, 60_000)
    assert.isAtMost(started, now)
    assert.isAtLeast(started, now - process.uptime() * 1000 - 60_000)
  })

  it.live("a shell that forked the hook within the bound counts, an older one does not", () =>
    Effect.gen(function*() {
      const counted = yield* underShell(600_000)
      assert.isAtMost(counted.call, counted.node - 400, "the shell's start, before its 0.4 s sleep")
      const older = yield* underShell(100)
      assert.isAbove(older.call, older.node - 400, "the shell started longer ago than the bound")
      assert.isAtMost(older.call, older.node)
    }))
})
