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
import { Args, Command, Options } from "@effect/cli"
import type { FileSystem } from "@effect/platform"
import { Backend, Http, Stdio } from "@effect-ahp/backend"
import type { Registration } from "@effect-ahp/protocol"
import { Console, Duration, Effect, Layer, Option } from "effect"
import { fileURLToPath } from "node:url"
import * as AuditObserver from "./examples/AuditObserver.js"
import * as PromptAnnotator from "./examples/PromptAnnotator.js"
import * as SecretRedactor from "./examples/SecretRedactor.js"
import * as ShellGuard from "./examples/ShellGuard.js"
import * as SlowBackend from "./examples/SlowBackend.js"
import * as Io from "./Io.js"

/**
 * The example names.
 *
 * @since 0.1.0
 * @category models
 */
export const exampleNames = ["shell-guard", "secret-redactor", "prompt-annotator", "audit", "slow"] as const

/**
 * @since 0.1.0
 * @category models
 */
export type ExampleName = typeof exampleNames[number]

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
 * The path of the running bundle (`dist/ahp.mjs` when run through `pnpm ahp`).
 *
 * @since 0.1.0
 * @category processes
 */
export const bundlePath = (): string => fileURLToPath(import.meta.url)

/**
 * A persistent stdio transport running an example from this bundle:
 * `node <bundle> serve <example> --stdio`.
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
        Io.exitWith(Io.exitCodes.input)
      ))
  )

/**
 * The `serve` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "serve",
  {
    name: Args.choice(exampleNames.map((n) => [n, n] as const), { name: "EXAMPLE" }),
    stdio: Options.boolean("stdio").pipe(Options.withDescription("serve over stdin/stdout (JSON lines)")),
    http: Options.integer("http").pipe(
      Options.withPseudoName("PORT"),
      Options.withDescription("serve over HTTP on this port (0 picks a free one)"),
      Options.optional
    ),
    host: Options.text("host").pipe(
      Options.withPseudoName("HOST"),
      Options.withDescription("HTTP interface"),
      Options.withDefault("127.0.0.1")
    ),
    auditFile: Io.fileOption(
      "audit-file",
      "where the audit example appends its lines"
    ).pipe(Options.withDefault(defaultOptions.auditFile)),
    delayMs: Options.integer("delay-ms").pipe(
      Options.withPseudoName("MS"),
      Options.withDescription("how long the slow example waits"),
      Options.withDefault(2000)
    )
  },
  ({ auditFile, delayMs, host, http, name, stdio }) => {
    const layer = example(name, { auditFile, delay: Duration.millis(delayMs) })
    if (stdio === Option.isSome(http)) {
      return Effect.zipRight(
        Console.error("ahp serve: choose exactly one of --stdio and --http PORT"),
        Io.exitWith(Io.exitCodes.configuration)
      )
    }
    return Option.match(http, {
      onNone: () => Stdio.serve(layer).pipe(Effect.catchAll(() => Io.exitWith(1))),
      onSome: (port) => serveHttp(layer, port, host)
    })
  }
).pipe(Command.withDescription("Serve an example policy backend over stdio or HTTP"))
