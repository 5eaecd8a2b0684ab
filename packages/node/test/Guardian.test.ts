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
import { processesWith } from "../../../test/support/processes.mjs"
import * as Guardian from "../src/internal/guardian.js"
import { isAlive, readLog, tempFile, waitUntil } from "./utils.js"

const harness = fileURLToPath(new URL("./guardedHarness.ts", import.meta.url))
const root = fileURLToPath(new URL("../../../", import.meta.url))

/** Per test: a harness under tsx and its backends, on a machine that may be loaded. */
const timeout = 60_000

/**
 * Starts the harness (its backend logging to a fresh file), waits until `ready` holds for
 * the log, kills the harness with SIGKILL, and returns the log and the harness's pid.
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
      { cwd: root, stdio: ["ignore", "ignore", "inherit"] }
    )
    const exited = Effect.async<void>((resume) => {
      if (child.exitCode !== null || child.signalCode !== null) return resume(Effect.void)
      child.once("exit", () => resume(Effect.void))
    })
    yield* Effect.addFinalizer(() => Effect.sync(() => child.exitCode === null && child.kill("SIGKILL")))
    yield* waitUntilEffect("the backend to be mid-call", Effect.map(readLog(log), ready))
    child.kill("SIGKILL")
    yield* exited
    return { log, pid: child.pid! }
  })

const has = (...events: Array<string>) => (entries: ReadonlyArray<{ readonly event: string }>) =>
  events.every((event) => entries.some((e) => e.event === event))

const guardianOf = (pid: number) => processesWith(`${Guardian.processName} 300 300 ${pid}`)

describe("the guardian of a harness that is killed mid-call", () => {
  it.scopedLive(
    "persistent: the child ends at its stdin's end, its SIGTERM-ignoring grandchild is killed",
    () =>
      Effect.gen(function*() {
        const { log, pid } = yield* killMidCall(
          "persistent",
          "on",
          ["--answer", "none", "--grandchild", "quiet"],
          has("message")
        )
        yield* waitUntil("every backend process to end", () => processesWith(log).length === 0)
        yield* waitUntil("the guardian to end", () => guardianOf(pid).length === 0)
        assert.isTrue(has("eof")(yield* readLog(log)), "the child saw the end of its stdin")
      }),
    timeout
  )

  it.scopedLive("per_event: a child that closed its stdin and ignores SIGTERM is killed", () =>
    Effect.gen(function*() {
      const { log, pid } = yield* killMidCall(
        "per_event",
        "on",
        ["--close-stdin", "--ignore-sigterm"],
        has("stdin-closed")
      )
      yield* waitUntil("every backend process to end", () => processesWith(log).length === 0)
      yield* waitUntil("the guardian to end", () => guardianOf(pid).length === 0)
    }), { retry: 2, timeout })

  it.scopedLive("without the guardian, the same kill leaves the grandchild running", () =>
    Effect.gen(function*() {
      const { log, pid } = yield* killMidCall(
        "persistent",
        "off",
        ["--answer", "none", "--grandchild", "quiet"],
        has("message")
      )
      // the child ends at the end of its stdin; its grandchild stays
      yield* waitUntil("the child to see the end of its stdin", () => processesWith(log).length === 1)
      const entries = yield* readLog(log)
      const grandchild = entries.find((e) => e.event === "grandchild")!.pid as number
      assert.isTrue(isAlive(grandchild))
      assert.deepStrictEqual(guardianOf(pid), [])
      process.kill(grandchild, "SIGKILL")
      yield* waitUntil("the grandchild to be killed", () => processesWith(log).length === 0)
    }), timeout)
})
