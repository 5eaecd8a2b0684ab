/**
 * The stdio transport's guardian: a harness process (`guardedHarness.ts`) that is killed
 * with SIGKILL in the middle of a call leaves no backend process behind when it connected
 * with `guardian: true` — not a child that exits at the end of its stdin while its
 * grandchild ignores SIGTERM, not one that closed its stdin and ignores SIGTERM itself —
 * and the guardian ends too. Without the guardian, the same kill leaves the grandchild
 * running (what the guardian is for).
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import { fileURLToPath } from "node:url"
import { waitUntilEffect } from "../../../test/support/e2e.js"
import { scaled } from "../../../test/support/load.js"
import { processesWith } from "../../../test/support/processes.mjs"
import * as Guardian from "../src/internal/guardian.js"
import { isAlive, readLog, tempFile, waitUntil } from "./utils.js"

const harness = fileURLToPath(new URL("./guardedHarness.ts", import.meta.url))
const root = fileURLToPath(new URL("../../../", import.meta.url))

/** Per test: a harness under tsx and its backends, on a machine that may be loaded. */
const timeout = scaled(60_000)

/**
 * Starts the harness (its backend logging to a fresh file), waits until `ready` holds for
 * the log and then for the harness to answer a ping (so it has run past the backend's spawn
 * and listed it with the guardian: a per_event backend logs `stdin-closed` at its start,
 * possibly before), kills the harness with SIGKILL, and returns the log and the harness's pid.
 */
const killMidCall = (
  lifecycle: "persistent" | "per_event",
  guardian: "on" | "off",
  options: ReadonlyArray<string>,
  ready: (entries: ReadonlyArray<{ readonly event: string }>) => boolean
) =>
  Effect.gen(function*() {
    const log = yield* tempFile("backend.log")
    const child = spawn(
      process.execPath,
      ["--import", "tsx", harness, lifecycle, guardian, "--", "--log", log, ...options],
      { cwd: root, stdio: ["pipe", "pipe", "inherit"] }
    )
    child.stdin!.on("error", () => {})
    const exited = Effect.async<void>((resume) => {
      if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
      child.once("exit", () => resume(Effect.void))
    })
    const answered = Effect.async<void>((resume) => {
      child.stdout!.once("data", () => resume(Effect.void))
      child.stdin!.write("ping\n")
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL")))
    yield* waitUntilEffect("the backend to be mid-call", Effect.map(readLog(log), ready))
    const pong = yield* Effect.raceFirst(Effect.as(answered, true), Effect.as(exited, false))
    assert.isTrue(pong, `the harness exited before answering the ping: ${JSON.stringify(yield* readLog(log))}`)
    child.kill("SIGKILL")
    yield* exited
    return { log, pid: child.pid! }
  })

const has = (...events: Array<string>) => (entries: ReadonlyArray<{ readonly event: string }>) =>
  events.every((event) => entries.some((e) => e.event === event))

/** The guardian of the harness `pid` (its last argument: the guardian of pid 12 is not that of 123). */
const guardianOf = (pid: number) => {
  const marker = `${Guardian.processName} 300 300 ${pid}`
  return processesWith(marker).filter((p) => p.args.endsWith(marker))
}

/** What is left of a run when a wait gives up: the backend processes and the guardian. */
const leftOf = (log: string, pid: number) => () =>
  JSON.stringify({ backends: processesWith(log), guardian: guardianOf(pid).map((p) => [p.pid, p.stat]) })

/** A harness with the guardian, killed mid-call: every backend process ends, then the guardian. */
interface Guarded {
  readonly name: string
  readonly lifecycle: "persistent" | "per_event"
  readonly options: ReadonlyArray<string>
  /** The log entries that tell the backend is mid-call. */
  readonly ready: ReadonlyArray<string>
  /** The log entries the backend wrote by the time it ended, besides its start. */
  readonly ended: ReadonlyArray<string>
}

const guarded: ReadonlyArray<Guarded> = [
  {
    name: "persistent: the child ends at its stdin's end, its SIGTERM-ignoring grandchild is killed",
    lifecycle: "persistent",
    options: ["--answer", "none", "--grandchild", "quiet"],
    ready: ["message"],
    ended: ["eof"]
  },
  {
    name: "per_event: a child that closed its stdin and ignores SIGTERM is killed",
    lifecycle: "per_event",
    options: ["--close-stdin", "--ignore-sigterm"],
    ready: ["stdin-closed"],
    ended: []
  }
]

describe("the guardian of a harness that is killed mid-call", () => {
  for (const c of guarded) {
    it.scopedLive(c.name, () =>
      Effect.gen(function*() {
        const { log, pid } = yield* killMidCall(c.lifecycle, "on", c.options, has(...c.ready))
        yield* waitUntil("every backend process to end", () => processesWith(log).length === 0, leftOf(log, pid))
        yield* waitUntil("the guardian to end", () => guardianOf(pid).length === 0, leftOf(log, pid))
        const entries = yield* readLog(log)
        // one backend process for the one call, none started after the kill
        assert.strictEqual(entries.filter((e) => e.event === "start").length, 1, JSON.stringify(entries))
        assert.isTrue(has(...c.ended)(entries), JSON.stringify(entries))
      }), timeout)
  }

  it.scopedLive("without the guardian, the same kill leaves the grandchild running", () =>
    Effect.gen(function*() {
      const { log, pid } = yield* killMidCall(
        "persistent",
        "off",
        ["--answer", "none", "--grandchild", "quiet"],
        has("message")
      )
      // the child ends at the end of its stdin; its grandchild stays
      yield* waitUntil("the child to see the end of its stdin", () => processesWith(log).length === 1, leftOf(log, pid))
      const entries = yield* readLog(log)
      const grandchild = entries.find((e) => e.event === "grandchild")!.pid as number
      assert.isTrue(isAlive(grandchild))
      assert.deepStrictEqual(guardianOf(pid), [])
      process.kill(grandchild, "SIGKILL")
      yield* waitUntil("the grandchild to be killed", () => processesWith(log).length === 0, leftOf(log, pid))
    }), timeout)
})
