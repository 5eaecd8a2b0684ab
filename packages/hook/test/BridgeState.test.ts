/**
 * The bridge's registration state on the real file system: a change to the file is picked
 * up through the watch of its folder, with the clock standing still (so not by the
 * re-check); a change the watch cannot see (the target of a link, in another folder) is
 * picked up by the re-check once `recheckMs` has passed since the last check, and not a
 * millisecond before; a version that is not JSON is not used, and the text in use written
 * back keeps the same generation (its backends are not restarted).
 */
import * as Bridge from "@effect-ahp/hook/Bridge"
import * as Locate from "@effect-ahp/hook/Locate"
import { NodeTransports, StdioTransport } from "@effect-ahp/node"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, TestClock } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { scaled } from "../../../test/support/load.js"

/** A registration guarding `tool.before` with a stdio backend that no test here calls; `id` tells versions apart. */
const registration = (id: string) =>
  JSON.stringify({
    protocolVersion: "draft",
    hooks: [{
      id,
      transport: { type: "stdio", command: "never-run", lifecycle: "persistent" },
      subscriptions: [{
        mode: "intercept",
        events: ["tool.before"],
        timeoutMs: 1000,
        failurePolicy: "fail-closed",
        content: { default: "body" }
      }]
    }]
  })

/** A private temporary folder, removed with the scope. */
const privateDir = Effect.acquireRelease(
  Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "ahp-bridge-state-"))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** The bridge's state for `file`, on Node's file system and transports. */
const stateOf = (file: string) =>
  Bridge.makeState(file).pipe(
    Effect.provide(Layer.merge(
      NodeTransports.layerNode({ stdio: { directory: StdioTransport.directoryOf(file) } }),
      NodeFileSystem.layer
    ))
  )

/**
 * Makes a change with `change` and waits (real time, up to a load-scaled bound) for the
 * state's generation to have the text's digest; the change is made again while it has not,
 * as the watch is set up in the background when the state is made.
 */
const changedTo = (state: Bridge.State, text: string, change: () => void) =>
  Effect.gen(function*() {
    const wanted = Locate.sha256(text)
    const until = Date.now() + scaled(10_000)
    while (Date.now() < until) {
      change()
      yield* Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 20)))
      if ((yield* state.current).sha256 === wanted) return true
    }
    return false
  })

describe("Bridge.makeState", () => {
  it.scoped("a change to the file is picked up through the watch of its folder, the clock standing still", () =>
    Effect.gen(function*() {
      const dir = yield* privateDir
      const file = path.join(dir, "registration.json")
      const first = registration("com.example.first")
      fs.writeFileSync(file, first, { mode: 0o600 })
      const state = yield* stateOf(file)
      assert.strictEqual((yield* state.current).sha256, Locate.sha256(first))
      const second = registration("com.example.second.version")
      const rewritten = yield* changedTo(state, second, () => fs.writeFileSync(file, second))
      assert.isTrue(rewritten, "the watch did not report the change")
      const third = registration("com.example.third")
      const staged = path.join(dir, "staged.json")
      const replaced = yield* changedTo(state, third, () => {
        fs.writeFileSync(staged, third, { mode: 0o600 })
        fs.renameSync(staged, file)
      })
      assert.isTrue(replaced, "the watch did not report the file replaced")
    }))

  it.scoped("a change the watch cannot see is picked up once recheckMs has passed since the last check", () =>
    Effect.gen(function*() {
      const dir = yield* privateDir
      fs.mkdirSync(path.join(dir, "elsewhere"))
      const target = path.join(dir, "elsewhere", "registration.json")
      const file = path.join(dir, "watched", "registration.json")
      fs.mkdirSync(path.dirname(file))
      const first = registration("com.example.first")
      fs.writeFileSync(target, first, { mode: 0o600 })
      fs.symlinkSync(target, file)
      const state = yield* stateOf(file)
      assert.strictEqual((yield* state.current).sha256, Locate.sha256(first))
      const second = registration("com.example.second.version")
      fs.writeFileSync(target, second)
      assert.strictEqual((yield* state.current).sha256, Locate.sha256(first), "checked before it was due")
      yield* TestClock.adjust(Bridge.recheckMs - 1)
      assert.strictEqual((yield* state.current).sha256, Locate.sha256(first), "checked before it was due")
      yield* TestClock.adjust(1)
      assert.strictEqual((yield* state.current).sha256, Locate.sha256(second), "not checked once due")
      const third = registration("com.example.third")
      fs.writeFileSync(target, third)
      yield* TestClock.adjust(Bridge.recheckMs - 1)
      assert.strictEqual(
        (yield* state.current).sha256,
        Locate.sha256(second),
        "the last check did not restart the wait"
      )
      yield* TestClock.adjust(1)
      assert.strictEqual((yield* state.current).sha256, Locate.sha256(third))
    }))

  it.scoped("a version that is not JSON is not used; the text in use written back keeps the same generation", () =>
    Effect.gen(function*() {
      const dir = yield* privateDir
      fs.mkdirSync(path.join(dir, "elsewhere"))
      const target = path.join(dir, "elsewhere", "registration.json")
      const file = path.join(dir, "watched", "registration.json")
      fs.mkdirSync(path.dirname(file))
      const first = registration("com.example.first")
      fs.writeFileSync(target, first, { mode: 0o600 })
      fs.symlinkSync(target, file)
      const state = yield* stateOf(file)
      const used = yield* state.current
      fs.writeFileSync(target, first.slice(0, first.length / 2))
      yield* TestClock.adjust(Bridge.recheckMs)
      assert.strictEqual(yield* state.current, used, "a half-written version replaced the one in use")
      fs.writeFileSync(target, first)
      yield* TestClock.adjust(Bridge.recheckMs)
      assert.strictEqual(yield* state.current, used, "the same text made a new generation")
      const second = registration("com.example.second")
      fs.writeFileSync(target, second)
      yield* TestClock.adjust(Bridge.recheckMs)
      const next = yield* state.current
      assert.notStrictEqual(next, used)
      assert.strictEqual(next.sha256, Locate.sha256(second))
    }))
})
