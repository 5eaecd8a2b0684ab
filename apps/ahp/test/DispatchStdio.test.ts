/**
 * `ahp dispatch` and `ahp inspect` with stdio backends, through the command line's entry in
 * this process (and the bundle as a child process, run from another directory): a slow-starting persistent observer gets its observation and is reported
 * `delivered` only once it has read it; relative paths resolve against the registration
 * file's directory; a failing backend's stderr tail is shown. Every test checks with `ps`
 * that nothing carrying its temporary folder is left once the command has exited.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { processesWith } from "../../../test/support/processes.mjs"
import { runInProcess } from "./inProcess.js"
import {
  intercept,
  logEntries,
  observe,
  output,
  registration,
  root,
  runCli,
  tempDir,
  toolBefore,
  writeFile
} from "./support.js"

const hostile = path.join(root, "test", "support", "hostile-stdio.mjs")

const observer = (log: string, ...args: ReadonlyArray<string>) => ({
  id: "com.example.observer",
  transport: {
    type: "stdio",
    command: process.execPath,
    args: [hostile, "--log", log, ...args],
    lifecycle: "persistent"
  },
  subscriptions: [observe(["tool.before"], { id: "audit" })]
})

/** `ahp dispatch` of `tool.before` for `ls`, with the registration written to `dir`. */
const dispatch = (dir: string, reg: unknown, ...extra: ReadonlyArray<string>) => {
  const files = {
    registration: writeFile(dir, "registration.json", reg),
    event: writeFile(dir, "event.json", toolBefore("ls"))
  }
  return runInProcess(["dispatch", "--registration", files.registration, "--event", files.event, ...extra])
}

const observed = (log: string) => logEntries(log).filter((e) => e.event === "message").map((e) => e.message.method)

describe("ahp dispatch with stdio backends", () => {
  it.scopedLive("a persistent observer that takes 1.5 s to start reads its observation, which is then delivered", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "observer.log")
      const run = yield* dispatch(dir, registration(observer(log, "--startup", "1500")))
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(output(run).observations, [
        { backend: "com.example.observer", subscription: "audit", mode: "observe", outcome: "delivered" }
      ])
      assert.deepStrictEqual(observed(log), ["hooks/observe"], "the observer read it")
      assert.deepStrictEqual(processesWith(dir), [])
    }))

  it.scopedLive("an observer that does not read in time is not reported delivered, and is stopped", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "observer.log")
      const run = yield* dispatch(dir, registration(observer(log, "--startup", "4000")), "--observation-timeout", "800")
      assert.strictEqual(run.code, 0, run.stderr)
      const [observation] = output(run).observations
      assert.strictEqual(observation.outcome, "timeout")
      assert.deepStrictEqual(observed(log), [], "it never read the observation")
      assert.deepStrictEqual(processesWith(dir), [])
    }))

  it.scopedLive("an observer that exits with a failure status after reading is not reported delivered", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const log = path.join(dir, "observer.log")
      const run = yield* dispatch(
        dir,
        registration(observer(log, "--eof-exit", "2", "--stderr", "audit sink unavailable\n"))
      )
      assert.strictEqual(run.code, 0, run.stderr)
      const [observation] = output(run).observations
      assert.deepStrictEqual([observation.outcome, observation.code], ["failed", "exited"])
      assert.include(observation.detail, "exit code 2")
      assert.include(observation.detail, "audit sink unavailable")
      assert.deepStrictEqual(processesWith(dir), [])
    }))

  it.scopedLive("relative commands and cwd resolve against the registration file's directory", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      fs.mkdirSync(path.join(dir, "hooks"))
      fs.mkdirSync(path.join(dir, "state"))
      const backend = path.join(dir, "hooks", "policy.mjs")
      fs.writeFileSync(backend, `#!${process.execPath}\n${fs.readFileSync(hostile, "utf8").replace(/^#!.*\n/, "")}`)
      fs.chmodSync(backend, 0o755)
      const reg = registration({
        id: "com.example.relative",
        transport: {
          type: "stdio",
          command: "../hooks/policy.mjs",
          args: ["--answer", "deny", "--log", "policy.log"],
          cwd: "state",
          lifecycle: "per_event"
        },
        subscriptions: [intercept(["tool.before"])]
      })
      // Run from another directory: the registration's directory decides.
      const run = yield* runCli([
        "dispatch",
        "--registration",
        path.relative(root, writeFile(dir, "registration.json", reg)),
        "--event",
        writeFile(dir, "event.json", toolBefore("ls"))
      ], { cwd: root })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(output(run).decision, "deny")
      assert.strictEqual(logEntries(path.join(dir, "state", "policy.log"))[0]?.event, "start")
      assert.deepStrictEqual(processesWith(dir), [])
    }))
})

describe("ahp inspect with a failing stdio backend", () => {
  it.scopedLive("shows the end of its stderr", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const backend = {
        id: "com.example.failing",
        transport: {
          type: "stdio",
          command: process.execPath,
          args: [
            hostile,
            "--stderr-exit",
            "Error: cannot compile policy.schema.json\n",
            "--log",
            path.join(dir, "b.log")
          ],
          lifecycle: "persistent"
        },
        subscriptions: [intercept(["tool.before"])]
      }
      const args = [
        "inspect",
        "--backend",
        writeFile(dir, "backend.json", backend),
        "--event",
        writeFile(dir, "event.json", toolBefore("ls"))
      ]
      const text = yield* runInProcess(args)
      assert.strictEqual(text.code, 1, text.stderr)
      assert.include(text.stdout, "Error: cannot compile policy.schema.json")
      const json = output(yield* runInProcess([...args, "--json"]))
      assert.strictEqual(json.classification, "failure")
      assert.strictEqual(json.stderr, `stderr: "Error: cannot compile policy.schema.json\\n"`)
      assert.deepStrictEqual(processesWith(dir), [])
    }))
})
