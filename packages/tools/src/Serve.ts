/**
 * `ahp serve EXAMPLE --stdio | --http PORT`: serves one of the example policy backends
 * (built with `@effect-ahp/backend`) over the stdio binding (JSON lines on stdin/stdout,
 * logs on stderr) or over HTTP on 127.0.0.1 (by default; `--host` to change). With
 * `--http`, the first stdout line is `listening on <url>` (port 0 picks a free port).
 *
 * | example | what it does |
 * | --- | --- |
 * | `shell-guard` | `tool.before`: denies destructive commands, asks for risky ones, allows read-only ones |
 * | `secret-redactor` | `tool.after`: masks tokens and keys in the tool output |
 * | `prompt-annotator` | `turn.start`: injects the workspace policy into the context |
 * | `audit` | observes every event, appending one JSON line each to `--audit-file` |
 * | `slow` | `tool.before` and `turn.start`: answers nothing after `--delay-ms` |
 *
 * @since 0.1.0
 */
import { Backend, Http, Stdio } from "@effect-ahp/backend"
import type { Registration } from "@effect-ahp/protocol"
import type * as FileSystem from "@effect/platform/FileSystem"
import { Console, Duration, Effect, Layer, Option } from "effect"
import { fileURLToPath } from "node:url"
import type { ExampleName } from "./Examples.js"
import * as AuditObserver from "./examples/AuditObserver.js"
import * as PromptAnnotator from "./examples/PromptAnnotator.js"
import * as SecretRedactor from "./examples/SecretRedactor.js"
import * as ShellGuard from "./examples/ShellGuard.js"
import * as SlowBackend from "./examples/SlowBackend.js"
import * as Io from "./Io.js"
import * as ServeAudit from "./ServeAudit.js"

/**
 * The example names (kept apart from the examples, so that the command line lists them
 * without loading any).
 *
 * @since 0.1.0
 * @category models
 */
export { type ExampleName, exampleNames } from "./Examples.js"

/**
 * Settings of the examples that have any.
 *
 * @since 0.1.0
 * @category models
 */
export interface ExampleOptions {
  /** The file the audit observer appends to. */
  readonly auditFile: string
  /** How long the slow backend waits. */
  readonly delay: Duration.DurationInput
}

/**
 * The default settings: `ahp-audit.jsonl` in the working directory, 2 s delay.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultOptions: ExampleOptions = { auditFile: "ahp-audit.jsonl", delay: Duration.seconds(2) }

/**
 * An example backend as a layer.
 *
 * @since 0.1.0
 * @category examples
 */
export const example = (
  name: ExampleName,
  options: ExampleOptions = defaultOptions
): Layer.Layer<Backend.Handlers, never, FileSystem.FileSystem> => {
  switch (name) {
    case "shell-guard":
      return Backend.make(ShellGuard.layer)
    case "secret-redactor":
      return Backend.make(SecretRedactor.layer)
    case "prompt-annotator":
      return Backend.make(PromptAnnotator.layer)
    case "audit":
      return Backend.make(AuditObserver.layer(options.auditFile))
    case "slow":
      return Backend.make(SlowBackend.layer(options.delay))
  }
}

/**
 * The path of the running `ahp` executable: the script node was started with (the bundle's
 * `ahp.mjs`, the installed `ahp` bin, or the workspace's `apps/ahp/bin/ahp.mjs`).
 *
 * @since 0.1.0
 * @category processes
 */
export const bundlePath = (): string => process.argv[1] ?? fileURLToPath(import.meta.url)

/**
 * A persistent stdio transport running an example with this executable:
 * `node <ahp> serve <example> --stdio`.
 *
 * @since 0.1.0
 * @category processes
 */
export const stdioTransport = (name: ExampleName): Registration.StdioTransport => ({
  type: "stdio",
  command: process.execPath,
  args: [bundlePath(), "serve", name, "--stdio"],
  lifecycle: "persistent"
})

const serveHttp = (layer: Layer.Layer<Backend.Handlers, never, FileSystem.FileSystem>, port: number, host: string) =>
  Effect.scoped(Effect.gen(function*() {
    const context = yield* Layer.build(Http.serve(layer, { port, host }))
    const address = yield* Effect.provide(Http.Address, context)
    yield* Console.log(`listening on ${address.url}`)
    return yield* Effect.never
  })).pipe(
    Effect.catchTag("ServeError", (error) =>
      Effect.zipRight(
        Console.error(`ahp serve: cannot listen on ${host}:${port}: ${String(error.cause)}`),
        Io.exitWith(Io.exitCodes.failure)
      ))
  )

/**
 * The options of `serve`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly name: ExampleName
  readonly stdio: boolean
  readonly http: Option.Option<number>
  readonly host: string
  readonly auditFile: string
  readonly delayMs: number
  /** The backend's own call record (`--audit`), if any. */
  readonly audit: Option.Option<string>
  /** Whether its records carry the events. */
  readonly auditContent: boolean
}

/**
 * Serves the example until stdin ends (`--stdio`) or the program is stopped (`--http`);
 * exit code 2 when neither or both are asked for, or when it cannot listen.
 *
 * @since 0.1.0
 * @category running
 */
export const run = ({ audit, auditContent, auditFile, delayMs, host, http, name, stdio }: Options) => {
  const handlers = example(name, { auditFile, delay: Duration.millis(delayMs) })
  const layer = Option.match(audit, {
    onNone: () => handlers,
    onSome: (file) => ServeAudit.layer(file, { content: auditContent }).pipe(Layer.provide(handlers))
  })
  if (stdio === Option.isSome(http)) {
    return Effect.zipRight(
      Console.error("ahp serve: choose exactly one of --stdio and --http PORT"),
      Io.exitWith(Io.exitCodes.failure)
    )
  }
  const serving: Effect.Effect<void, unknown, FileSystem.FileSystem | Io.ExitCode> = Option.match(http, {
    onNone: () => Effect.flatMap(Io.Standard, (standard) => Stdio.serve(layer, standard)),
    onSome: (port) => serveHttp(layer, port, host)
  })
  return Effect.catchAll(serving, () => Io.exitWith(Io.exitCodes.failure))
}
