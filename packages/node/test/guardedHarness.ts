/**
 * A harness process for the guardian's tests (run with `node --import tsx`): connects the
 * hostile backend over stdio (`LIFECYCLE`, with the guardian when `GUARDIAN` is `on`),
 * sends it one request that is never answered, and waits, so the test can kill this process
 * mid-call. Every chunk on its stdin is answered with a line on its stdout: an answer to a
 * chunk sent after the backend logged its start tells that this process has run since, so
 * past the backend's spawn and its listing with the guardian. Usage: guardedHarness.ts
 * LIFECYCLE GUARDIAN -- HOSTILE-OPTIONS…
 */
import { Effect } from "effect"
import { fileURLToPath } from "node:url"
import * as StdioTransport from "../src/StdioTransport.js"

const hostileScript = fileURLToPath(new URL("../../../test/support/hostile-stdio.mjs", import.meta.url))

const [lifecycle, guardian, separator, ...options] = process.argv.slice(2)
if ((lifecycle !== "persistent" && lifecycle !== "per_event") || separator !== "--") {
  process.stderr.write("usage: guardedHarness.ts persistent|per_event on|off -- HOSTILE-OPTIONS…\n")
  process.exit(2)
}

process.stdin.on("data", () => process.stdout.write("pong\n"))

Effect.runFork(Effect.scoped(Effect.gen(function*() {
  const endpoint = yield* StdioTransport.connect({
    type: "stdio",
    command: process.execPath,
    args: [hostileScript, ...options],
    lifecycle
  }, {
    guardian: guardian === "on",
    exitGrace: "300 millis",
    killGrace: "300 millis"
  })
  yield* endpoint.request({ jsonrpc: "2.0", id: 1, method: "hooks/intercept", params: {} })
})))
