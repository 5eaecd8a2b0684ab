/**
 * Serving a backend over stdio (the AHP stdio binding): one JSON-RPC message per line on
 * stdin, one compact JSON response per line on stdout, diagnostics on stderr only.
 *
 * - Lines are split on `\n` as bytes, and each line must be UTF-8 JSON: a malformed line is
 *   answered with a `-32700` parse error (id `null`) and the server keeps serving. Blank
 *   lines are skipped; a final line without `\n` is handled at end of input.
 * - A line longer than `maxLineBytes` (16 MiB by default) is discarded without being
 *   buffered and answered with `-32600` (id `null`); so is a line nested deeper than
 *   `Json.maxDepth` (512) levels, found in one linear pass before anything is built. Reading
 *   a line therefore takes time linear in its bounded size.
 * - A defect while handling a message is answered with `-32603` (see `Server`): the server
 *   keeps serving.
 * - Messages are handled one at a time, in arrival order; responses are written as they
 *   are produced. Notifications are never answered.
 * - At end of input the pending work is finished and `serve` completes, so the same program
 *   works as a `persistent` backend (many lines) and a `per_event` one (one line, then EOF).
 * - While serving, Effect's default console loggers write to stderr (logfmt), so
 *   `Effect.log` in handlers never corrupts the protocol stream. Don't write to stdout (or
 *   use `console.log`) in a stdio backend.
 *
 * @since 0.1.0
 */
import { Framing, Json, JsonRpc } from "@effect-ahp/protocol"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as NodeSink from "@effect/platform-node/NodeSink"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as HashSet from "effect/HashSet"
import type * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as Option from "effect/Option"
import { hasProperty } from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as Stream from "effect/Stream"
import type { Readable, Writable } from "node:stream"
import type * as Backend from "./Backend.js"
import * as Server from "./Server.js"

/**
 * The brand of a `StdioError`.
 *
 * @since 0.1.0
 * @category type ids
 */
export const StdioErrorTypeId: unique symbol = Symbol.for("@effect-ahp/backend/StdioError")

/**
 * @since 0.1.0
 * @category type ids
 */
export type StdioErrorTypeId = typeof StdioErrorTypeId

/**
 * Reading stdin or writing stdout failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class StdioError extends Schema.TaggedError<StdioError>("@effect-ahp/backend/StdioError")("StdioError", {
  reason: Schema.Literal("read", "write"),
  cause: Schema.optional(Schema.Defect)
}) {
  readonly [StdioErrorTypeId]: StdioErrorTypeId = StdioErrorTypeId
  override get message(): string {
    return this.reason === "read" ? "could not read stdin" : "could not write stdout"
  }
}

/**
 * Whether a value is a `StdioError`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isStdioError = (u: unknown): u is StdioError => hasProperty(u, StdioErrorTypeId)

/**
 * Options of the stdio server.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** The longest accepted line in bytes, without its newline (default 16 MiB). */
  readonly maxLineBytes?: number
  /** Where `serve` reads requests (default: this process's stdin, which it leaves open). */
  readonly input?: () => Readable
  /** Where `serve` writes responses (default: this process's stdout, which it does not end). */
  readonly output?: () => Writable
}

/**
 * The default `maxLineBytes`: 16 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxLineBytes = 16 * 1024 * 1024

const encoder = new TextEncoder()

const isBlank = (bytes: Uint8Array): boolean => bytes.every((b) => b === 0x20 || b === 0x09 || b === 0x0d)

/**
 * The stdio protocol as a stream transformation: input bytes in, response lines out (each
 * one compact JSON object followed by `\n`), using the `Server` in context.
 *
 * @since 0.1.0
 * @category combinators
 */
export const respond = (options?: Options) => <E, R>(input: Stream.Stream<Uint8Array, E, R>) => {
  const max = options?.maxLineBytes ?? defaultMaxLineBytes
  const tooLong = Json.stringify(Server.errorResponse(
    null,
    JsonRpc.ErrorCode.InvalidRequest,
    `Invalid Request: a message must not exceed ${max} bytes`
  ))
  return Stream.unwrap(Effect.map(Server.Server, (server) =>
    Framing.frames(input, max).pipe(
      Stream.filter((frame) => frame._tag === "Oversized" || !isBlank(frame.bytes)),
      Stream.mapEffect((frame) => frame._tag === "Oversized" ? Effect.succeedSome(tooLong) : server.reply(frame.bytes)),
      Stream.filterMap(Option.map((text) => encoder.encode(`${text}\n`)))
    )))
}

const stderrLogger = Logger.withConsoleError(Logger.logfmtLogger)

/** Moves Effect's console loggers (which write to stdout) to stderr. */
const loggersToStderr = (loggers: HashSet.HashSet<Logger.Logger<unknown, any>>) =>
  HashSet.has(loggers, Logger.defaultLogger) || HashSet.has(loggers, Logger.prettyLoggerDefault)
    ? loggers.pipe(
      HashSet.remove(Logger.defaultLogger),
      HashSet.remove(Logger.prettyLoggerDefault),
      HashSet.add(stderrLogger)
    )
    : loggers

const requests = (input: () => Readable) =>
  NodeStream.fromReadable<StdioError, Uint8Array>(input, (cause) => new StdioError({ reason: "read", cause }), {
    closeOnDone: false
  })

const responses = (output: () => Writable) =>
  NodeSink.fromWritable<StdioError, Uint8Array>(output, (cause) => new StdioError({ reason: "write", cause }), {
    endOnDone: false
  })

/**
 * Serves a backend on the process's stdin and stdout (or `options.input` and `output`)
 * until end of input. The backend
 * layer is built first and released when serving ends. A failure (of the backend layer, or
 * of stdin/stdout) is logged to stderr before `serve` fails with it.
 *
 * @since 0.1.0
 * @category serving
 */
export const serve = <E, R>(
  backend: Layer.Layer<Backend.Handlers, E, R>,
  options?: Options
): Effect.Effect<void, E | StdioError, R> =>
  requests(options?.input ?? (() => process.stdin)).pipe(
    respond(options),
    Stream.run(responses(options?.output ?? (() => process.stdout))),
    Effect.provide(Server.layerBackend(backend)),
    Effect.tapErrorCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.void : Effect.logError("stdio backend failed", cause)
    ),
    Effect.locallyWith(FiberRef.currentLoggers, loggersToStderr)
  )

/**
 * Runs a stdio backend as the program's main effect (`NodeRuntime.runMain`, with its error
 * reporting turned off because `serve` already reports to stderr): exit code 0 at end of
 * input or on SIGINT/SIGTERM, 1 on failure.
 *
 * @example
 * ```ts
 * import { Backend, Stdio } from "@effect-ahp/backend"
 * import { Effect } from "effect"
 *
 * const guard = Backend.intercept("tool.before", () => Effect.succeed([]))
 * const audit = Backend.observe("tool.after", (event) => Effect.log(event.tool.name))
 *
 * Stdio.run(Backend.make(guard, audit))
 * ```
 *
 * @since 0.1.0
 * @category serving
 */
export const run = <E>(backend: Layer.Layer<Backend.Handlers, E>, options?: Options): void =>
  NodeRuntime.runMain(serve(backend, options), { disableErrorReporting: true, disablePrettyLogger: true })
