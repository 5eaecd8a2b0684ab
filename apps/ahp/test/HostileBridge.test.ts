/**
 * Hostile probes on the command hook's warm path: a fake bridge on the hook's own socket
 * (this user's, in a private folder, so the hook asks it) that answers without end or never
 * answers. The hook reads no more than `maxInputBytes` of the answer, gives up at the
 * call's deadline, and decides by the fail-closed policy before the host's timeout.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { scaled } from "../../../test/support/load.js"
import { maxInputBytes } from "../src/internal/limits.js"
import { answerOf, callHook, guard } from "./hookSupport.js"
import { tempDir, writeFile } from "./support.js"

const payload = JSON.stringify({
  session_id: "s",
  cwd: "/",
  hook_event_name: "PreToolUse",
  tool_name: "Bash",
  tool_input: { command: "rm -rf /" }
})

type Behaviour = "endless" | "hang"

/** A fake bridge on a private socket; counts the bytes it wrote and whether the hook hung up. */
const fakeBridge = (dir: string, behaviour: Behaviour) =>
  Effect.gen(function*() {
    const folder = path.join(dir, "private")
    fs.mkdirSync(folder, { mode: 0o700 })
    const socket = path.join(folder, "bridge.sock")
    const seen = { asked: 0, written: 0, closed: false }
    const chunk = Buffer.alloc(1024 * 1024, "a")
    const server = http.createServer((_request, response) => {
      seen.asked++
      response.on("close", () => (seen.closed = true))
      if (behaviour === "hang") return
      response.writeHead(200, { "content-type": "application/json" })
      response.write(`{"stdout":"`)
      const pump = () => {
        while (!response.destroyed && seen.written < 8 * maxInputBytes) {
          seen.written += chunk.length
          if (!response.write(chunk)) return void response.once("drain", pump)
        }
      }
      pump()
    })
    yield* Effect.acquireRelease(
      Effect.async<void>((resume) => void server.listen(socket, () => resume(Effect.void))),
      () =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    return { socket, seen }
  })

describe("hostile: a fake bridge on the hook's socket", () => {
  for (const behaviour of ["endless", "hang"] as const) {
    it.scopedLive(`answering ${behaviour === "endless" ? "without end" : "never"}: fail-closed deny within the budget`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const reg = writeFile(dir, "registration.json", guard)
        const { seen, socket } = yield* fakeBridge(dir, behaviour)
        const timeoutSeconds = Math.ceil(scaled(4000) / 1000)
        const run = yield* callHook(
          ["claude-code", "--registration", reg, "--timeout", String(timeoutSeconds)],
          payload,
          { dir, env: { AHP_BRIDGE_SOCKET: socket } }
        )
        assert.strictEqual(seen.asked, 1)
        assert.isBelow(run.elapsedMs, timeoutSeconds * 1000)
        assert.strictEqual(answerOf(run).hookSpecificOutput?.permissionDecision, "deny", run.stdout)
        if (behaviour === "endless") {
          assert.isTrue(seen.closed, "the hook hung up")
          assert.isBelow(seen.written, 8 * maxInputBytes, "the hook stopped reading at its limit")
        }
      }))
  }
})
