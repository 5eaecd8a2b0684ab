import type { Json, Registration } from "@effect-ahp/protocol"
import { Data, Duration, Effect } from "effect"
import type { Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { hostileScript, readLog, script, scriptedHttpServer } from "../../../test/support/e2e.js"

export {
  hostileScript,
  isAlive,
  type LogEntry,
  readLog,
  script,
  startedPids,
  waitForLog,
  waitUntil
} from "../../../test/support/e2e.js"

/** A stdio transport running a Node script with `args`. */
const nodeScript = (
  file: string,
  lifecycle: Registration.StdioTransport["lifecycle"],
  args: ReadonlyArray<string>
): Registration.StdioTransport => ({ type: "stdio", command: process.execPath, args: [file, ...args], lifecycle })

/** A stdio transport running the hostile backend. */
export const hostile = (lifecycle: Registration.StdioTransport["lifecycle"], ...args: Array<string>) =>
  nodeScript(hostileScript, lifecycle, args)

/** A JSON-RPC request / notification as the harness would send it. */
export const request = (id: Json.JsonValue, params: Json.JsonObject = {}): Json.JsonObject => ({
  jsonrpc: "2.0",
  id,
  method: "hooks/intercept",
  params
})

export const notification = (params: Json.JsonObject = {}): Json.JsonObject => ({
  jsonrpc: "2.0",
  method: "hooks/observe",
  params
})

/** The answer the scripted backend gives for `ok`. */
export const okResponse = (id: Json.JsonValue) => ({
  jsonrpc: "2.0",
  id,
  result: { protocolVersion: "draft", effects: [] }
})

/** A stdio transport running the scripted backend. */
export const stdio = (lifecycle: Registration.StdioTransport["lifecycle"], ...args: Array<string>) =>
  nodeScript(script, lifecycle, ["stdio", ...args])

/** A fresh file path in a temporary directory removed with the scope. */
export const tempFile = (name: string): Effect.Effect<string, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => fs.mkdtempSync(path.join(os.tmpdir(), "ahp-node-"))),
    (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
  ).pipe(Effect.map((dir) => path.join(dir, name)))

/** What `withDeadline` fails with. */
export class Deadline extends Data.TaggedError("Deadline") {}

/** Fails with `Deadline` after `millis` (a caller's deadline around a transport call). */
export const withDeadline = (millis: number) => <A, E, R>(self: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(self, { duration: Duration.millis(millis), onTimeout: () => new Deadline() })

/** The reason of a transport failure (the tag of any other). */
export const reasonOf = <A, E extends { readonly reason?: string; readonly _tag: string }, R>(
  self: Effect.Effect<A, E, R>
) => Effect.map(Effect.flip(self), (e) => e.reason ?? e._tag)

/** Starts the scripted backend in HTTP mode in this process (`scriptedHttpServer`); the server lives as long as the scope. */
export const httpBackend = (
  behaviour: string,
  ...args: Array<string>
): Effect.Effect<{ readonly url: string; readonly origin: string; readonly log: string }, never, Scope.Scope> =>
  Effect.gen(function*() {
    const log = yield* tempFile("http.log")
    const origin = yield* scriptedHttpServer([behaviour, "--log", log, ...args])
    return { url: `${origin}/hooks`, origin, log }
  })

/** Log entries of HTTP requests that reached the backend (not OAuth endpoints). */
export const httpRequests = (file: string) => Effect.map(readLog(file), (es) => es.filter((e) => e.event === "request"))
