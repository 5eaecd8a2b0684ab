/**
 * A stdio backend's child process (`internal/child.ts`): its exit report is made from what
 * happened, also when the process running the harness was starved of CPU past the report's
 * wait. Node runs expired timers before it polls for I/O, so a bare timer would end the wait
 * before the exit and the stderr the child had already written were read.
 */
import { assert, describe, it } from "@effect/vitest"
import { Deferred, Duration, Effect, Exit, Fiber } from "effect"
import * as fs from "node:fs"
import * as Child from "../src/internal/child.js"

const procfs = fs.existsSync("/proc/self/stat")

/** Whether `pid` has exited and waits to be reaped (Linux: its state in /proc is `Z`). */
const isZombie = (pid: number): boolean => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")
  } catch {
    return false
  }
}

/** Blocks this thread, as a starved process would be, until `done` holds (at most 10 s). */
const starveUntil = (done: () => boolean): void => {
  const until = performance.now() + 10_000
  while (!done() && performance.now() < until) {
    // busy: no timer, no I/O and no exit is handled meanwhile
  }
}

/** Prints its pid, closes stdout, and 100 ms later writes its last words to stderr and exits with 3. */
const lastWords = `
process.stdout.write(process.pid + "\\n", () => {
  require("node:fs").closeSync(1)
  setTimeout(() => process.stderr.write("last words", () => process.exit(3)), 100)
})`

describe("a child's exit report", () => {
  it.scopedLive.skipIf(!procfs)(
    "made after the harness was starved past its wait, has the exit and the child's last words",
    () =>
      Effect.gen(function*() {
        const ended = yield* Deferred.make<void>()
        let stdout = ""
        const spawned = yield* Child.spawn({
          transport: { type: "stdio", command: process.execPath, args: ["-e", lastWords], lifecycle: "persistent" },
          directory: undefined,
          env: { PATH: process.env.PATH ?? "" },
          killGrace: Duration.millis(300),
          secrets: () => [],
          guardian: undefined
        }, {
          onData: (bytes) => void (stdout += Buffer.from(bytes).toString("utf8")),
          onEnd: () => Deferred.unsafeDone(ended, Exit.void)
        })
        yield* Deferred.await(ended)
        const pid = Number(stdout.trim())
        assert.isAbove(pid, 0, stdout)
        const wait = 20
        const report = yield* Effect.fork(spawned.describeEnd(Duration.millis(wait)))
        // the report's wait has begun; now the child exits while nothing here runs
        yield* Effect.sleep(Duration.millis(5))
        const starved = performance.now()
        starveUntil(() => isZombie(pid) && performance.now() - starved > 3 * wait)
        assert.isTrue(isZombie(pid), "the child exited while this thread was blocked")
        const text = yield* Fiber.join(report)
        assert.include(text, "exit code 3")
        assert.include(text, "last words")
      })
  )
})
