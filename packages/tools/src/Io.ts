/**
 * What the commands share: the exit-code convention, reading input files strictly, printing
 * JSON results, and the documented failure objects.
 *
 * - Exit codes, the same for every command: 0 the command did its job (a `deny` decision
 *   included), 1 it ran and found problems in its subject, 2 it could not do what was
 *   asked, 130 it was interrupted (SIGINT or SIGTERM).
 * - Input files are read from regular files only (a FIFO, a directory or a device is
 *   refused before anything is read, so nothing can block), at most `maxInputBytes`
 *   (16 MiB), as strict UTF-8 (the first ill-formed byte is reported with its offset; a
 *   leading byte-order mark is skipped), in chunks, so a signal interrupts the loading.
 * - Unreadable input (missing, not a regular file, too large, not UTF-8, not JSON, of the
 *   wrong shape) is an `InputError`, printed as `{"error":"input","file":…,"message":…,
 *   "issues":[…]}`; an unusable registration or grant is a `ConfigError`, printed as
 *   `{"error":"configuration","file":…,"issues":[{"code","path","message"}]}`.
 *
 * Every JSON text goes through the protocol's lossless `Json.parse` / `Json.stringify`, so
 * integers beyond 2^53 survive a round trip unchanged.
 *
 * @since 0.1.0
 */
import * as limits from "@effect-ahp/hook/Limits"
import * as Terminal from "@effect-ahp/hook/Terminal"
import { decodeStrict } from "@effect-ahp/hook/Utf8"
import { Event, Json } from "@effect-ahp/protocol"
import { Console, Context, Data, Effect, Either, Ref } from "effect"
import { isUtf8 } from "node:buffer"
import * as NodeFs from "node:fs"
import type { FileHandle } from "node:fs/promises"
import type { Readable, Writable } from "node:stream"
import { didYouMean } from "./Suggest.js"

/**
 * The exit code the program ends with (set by the commands, read by the command line's `Main`).
 *
 * @since 0.1.0
 * @category tags
 */
export class ExitCode extends Context.Tag("@effect-ahp/tools/Io/ExitCode")<ExitCode, Ref.Ref<number>>() {}

/**
 * The streams a command reads raw input from and writes raw output to (`ahp serve
 * --stdio`'s JSON lines): this process's stdin and stdout unless a stand-in is provided.
 *
 * @since 0.1.0
 * @category tags
 */
export class Standard extends Context.Reference<Standard>()("@effect-ahp/tools/Io/Standard", {
  defaultValue: (): { readonly input: () => Readable; readonly output: () => Writable } => ({
    input: () => process.stdin,
    output: () => process.stdout
  })
}) {}

/**
 * Sets the exit code.
 *
 * @since 0.1.0
 * @category exit codes
 */
export const exitWith = (code: number): Effect.Effect<void, never, ExitCode> =>
  Effect.flatMap(ExitCode, (ref) => Ref.set(ref, code))

/**
 * The exit codes every command uses: `ok` it did its job, `problems` it found problems in
 * its subject, `failure` it could not do what was asked (usage, unreadable or invalid
 * input), `interrupted` by SIGINT or SIGTERM.
 *
 * @since 0.1.0
 * @category exit codes
 */
export const exitCodes = {
  ok: 0,
  problems: 1,
  failure: 2,
  interrupted: 130
} as const

/**
 * One problem in an input file: a JSON Pointer into it and a message.
 *
 * @since 0.1.0
 * @category models
 */
export interface InputIssue {
  readonly path: string
  readonly message: string
}

/**
 * An input file that cannot be used: missing, unreadable, not JSON, or of the wrong shape.
 *
 * @since 0.1.0
 * @category errors
 */
export class InputError extends Data.TaggedError("InputError")<{
  readonly file: string
  readonly message: string
  readonly issues: ReadonlyArray<InputIssue>
}> {}

/**
 * One configuration problem: a code, a JSON Pointer and a message.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConfigIssue {
  readonly code: string
  readonly path: string
  readonly message: string
}

/**
 * A registration or grant that cannot be used, with every problem found.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigError extends Data.TaggedError("ConfigError")<{
  readonly file: string
  readonly issues: ReadonlyArray<ConfigIssue>
}> {}

/**
 * The largest input file read: 16 MiB.
 *
 * @since 0.1.0
 * @category input
 */
export const maxInputBytes: number = limits.maxInputBytes

const chunkBytes = 1024 * 1024

const systemReason = (cause: unknown): string => {
  const code = typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : undefined
  switch (code) {
    case "ENOENT":
      return "no such file"
    case "EACCES":
    case "EPERM":
      return "permission denied"
    case "EISDIR":
      return "it is a directory"
    case "ELOOP":
      return "too many levels of symbolic links"
    case "ENAMETOOLONG":
      return "the name is too long"
    case "ENOTDIR":
      return "a part of the path is not a directory"
    default:
      return code ?? String(cause)
  }
}

const kindOf = (stats: NodeFs.Stats): string =>
  stats.isDirectory()
    ? "a directory"
    : stats.isFIFO()
    ? "a FIFO (named pipe)"
    : stats.isCharacterDevice()
    ? "a character device"
    : stats.isBlockDevice()
    ? "a block device"
    : stats.isSocket()
    ? "a socket"
    : "not a regular file"

const inputError = (file: string, message: string) => new InputError({ file, message, issues: [] })

const tooLarge = (file: string, what: string) =>
  inputError(file, `the ${what} file ${file} is larger than the ${maxInputBytes / 1024 / 1024} MiB input limit`)

const attempt = <A>(file: string, what: string, run: () => Promise<A>) =>
  Effect.tryPromise({
    try: run,
    catch: (cause) => inputError(file, `cannot read the ${what} file ${file}: ${systemReason(cause)}`)
  })

/**
 * Opens an input file without blocking (a FIFO is refused, not waited on), checks that it is
 * a regular file, runs `use` on it with its size, and closes it.
 */
const withRegularFile = <A, E, R>(
  file: string,
  what: string,
  use: (handle: FileHandle, size: number) => Effect.Effect<A, E, R>
): Effect.Effect<A, InputError | E, R> =>
  Effect.acquireUseRelease(
    Effect.interruptible(
      attempt(file, what, () => NodeFs.promises.open(file, NodeFs.constants.O_RDONLY | NodeFs.constants.O_NONBLOCK))
    ),
    (handle) =>
      Effect.flatMap(attempt(file, what, () => handle.stat()), (stats): Effect.Effect<A, InputError | E, R> =>
        stats.isFile()
          ? use(handle, stats.size)
          : inputError(file, `the ${what} file ${file} is ${kindOf(stats)}: inputs are read from regular files only`)),
    (handle) =>
      Effect.ignore(Effect.tryPromise(() =>
        handle.close()
      ))
  )

const readBytes = (handle: FileHandle, size: number, file: string, what: string) =>
  Effect.gen(function*() {
    if (size > maxInputBytes) return yield* tooLarge(file, what)
    const chunks: Array<Buffer> = []
    let total = 0
    while (true) {
      const buffer = Buffer.allocUnsafe(Math.min(chunkBytes, maxInputBytes + 1 - total))
      const { bytesRead } = yield* attempt(file, what, () => handle.read(buffer, 0, buffer.length, null))
      if (bytesRead === 0) break
      total += bytesRead
      if (total > maxInputBytes) return yield* tooLarge(file, what)
      chunks.push(buffer.subarray(0, bytesRead))
    }
    return Buffer.concat(chunks, total)
  })

const decodeUtf8 = (bytes: Buffer, file: string, what: string): Either.Either<string, InputError> => {
  const decoded = decodeStrict(bytes)
  return "text" in decoded
    ? Either.right(decoded.text)
    : Either.left(
      inputError(file, `the ${what} file ${file} is not valid UTF-8: ${decoded.invalid} starts no valid sequence`)
    )
}

/**
 * Reads one input file as text, strictly: a regular file of at most `maxInputBytes`, in
 * well-formed UTF-8. Opening never blocks (a FIFO is refused, not waited on) and the reading
 * can be interrupted between chunks.
 *
 * @since 0.1.0
 * @category input
 */
export const readText = (file: string, what: string): Effect.Effect<string, InputError> =>
  withRegularFile(
    file,
    what,
    (handle, size) => Effect.flatMap(readBytes(handle, size, file, what), (bytes) => decodeUtf8(bytes, file, what))
  )

/**
 * One line of a JSON Lines file: its text, or why it cannot be read (too long, not UTF-8).
 *
 * @since 0.1.0
 * @category input
 */
export type Line = Either.Either<string, string>

/**
 * Reads a regular file line by line without holding more than one line: `f` gets each line
 * (`\n`-separated, a trailing `\r` removed, empty lines skipped) and its number. A line
 * longer than `maxLineBytes` or not in UTF-8 is handed over as `Left` with the reason; a file
 * larger than `maxFileBytes` is an `InputError` once that much has been read.
 *
 * @since 0.1.0
 * @category input
 */
export const forEachLine = <E, R>(
  file: string,
  what: string,
  limits: { readonly maxLineBytes: number; readonly maxFileBytes: number },
  f: (line: Line, number: number) => Effect.Effect<void, E, R>
): Effect.Effect<void, InputError | E, R> =>
  withRegularFile(file, what, (handle) =>
    Effect.gen(function*() {
      let pending: Array<Buffer> = []
      let pendingBytes = 0
      let tooLong = false
      let number = 0
      let total = 0
      const emit = (bytes: Buffer): Effect.Effect<void, E, R> => {
        number += 1
        if (tooLong) return f(Either.left(`longer than ${limits.maxLineBytes} bytes`), number)
        const text = bytes[bytes.length - 1] === 0x0d ? bytes.subarray(0, bytes.length - 1) : bytes
        if (text.length === 0) return Effect.void
        if (!isUtf8(text)) return f(Either.left("not valid UTF-8"), number)
        return f(Either.right(text.toString("utf8")), number)
      }
      const buffer = Buffer.allocUnsafe(chunkBytes)
      while (true) {
        const { bytesRead } = yield* attempt(file, what, () => handle.read(buffer, 0, buffer.length, null))
        if (bytesRead === 0) break
        total += bytesRead
        if (total > limits.maxFileBytes) {
          return yield* inputError(
            file,
            `the ${what} file ${file} is larger than the ${limits.maxFileBytes / 1024 / 1024} MiB limit`
          )
        }
        let start = 0
        for (let end = buffer.indexOf(0x0a, 0); end !== -1 && end < bytesRead; end = buffer.indexOf(0x0a, start)) {
          if (pendingBytes + end - start > limits.maxLineBytes) tooLong = true
          if (!tooLong) pending.push(Buffer.from(buffer.subarray(start, end)))
          yield* emit(Buffer.concat(pending))
          pending = []
          pendingBytes = 0
          tooLong = false
          start = end + 1
        }
        if (start < bytesRead && !tooLong) {
          pendingBytes += bytesRead - start
          if (pendingBytes > limits.maxLineBytes) {
            tooLong = true
            pending = []
          } else {
            pending.push(Buffer.from(buffer.subarray(start, bytesRead)))
          }
        }
      }
      if (pending.length > 0 || tooLong) yield* emit(Buffer.concat(pending))
    }))

/**
 * Reads and parses one JSON file; `what` names the file in messages ("event",
 * "registration", …).
 *
 * @since 0.1.0
 * @category input
 */
export const readJson = (file: string, what: string): Effect.Effect<Json.JsonValue, InputError> =>
  Effect.flatMap(readText(file, what), (text) =>
    Either.match(Json.parse(text), {
      onLeft: (error) => Effect.fail(inputError(file, `the ${what} file ${file} is not JSON: ${error.message}`)),
      onRight: Effect.succeed
    }))

/**
 * Reads a JSON file that must hold an object.
 *
 * @since 0.1.0
 * @category input
 */
export const readObject = (file: string, what: string): Effect.Effect<Json.JsonObject, InputError> =>
  Effect.flatMap(readJson(file, what), (value) =>
    Json.isObject(value)
      ? Effect.succeed(value)
      : Effect.fail(
        new InputError({
          file,
          message: `the ${what} file ${file} must hold a JSON object`,
          issues: [{ path: "", message: "expected a JSON object" }]
        })
      ))

/**
 * A boundary input: a catalogue event type and the event's fields.
 *
 * @since 0.1.0
 * @category models
 */
export interface EventInput {
  readonly type: Event.EventType
  readonly input: Json.JsonObject
}

/**
 * Reads an event file: an object whose `type` is a catalogue event type.
 *
 * @since 0.1.0
 * @category input
 */
export const readEvent = (file: string): Effect.Effect<EventInput, InputError> =>
  Effect.flatMap(readObject(file, "event"), (input) => {
    const type = input.type
    if (type === undefined) {
      return Effect.fail(
        new InputError({
          file,
          message: `the event file ${file} has no "type": name a catalogue event type such as tool.before`,
          issues: [{ path: "/type", message: "is missing" }]
        })
      )
    }
    if (typeof type !== "string" || !Event.isEventType(type)) {
      return Effect.fail(
        new InputError({
          file,
          message: `the event file ${file} has an unknown event type ${Json.stringify(type)}${
            typeof type === "string" ? didYouMean(type, Event.eventTypes, (t) => JSON.stringify(t)) : ""
          }`,
          issues: [{ path: "/type", message: `${Json.stringify(type)} is not a catalogue event type` }]
        })
      )
    }
    return Effect.succeed({ type, input })
  })

const valueAt = (document: Json.JsonValue | undefined, pointer: string): Json.JsonValue | undefined => {
  let current = document
  for (const raw of pointer === "" ? [] : pointer.slice(1).split("/")) {
    const key = raw.replace(/~1/g, "/").replace(/~0/g, "~")
    if (Array.isArray(current)) current = current[Number(key)]
    else if (Json.isObject(current)) current = Object.hasOwn(current, key) ? current[key] : undefined
    else return undefined
  }
  return current
}

const selectors: ReadonlyArray<string> = [
  ...Event.eventTypes,
  ...new Set(Event.eventTypes.map((type) => `${Event.family(type)}.*`)),
  "*"
]

/**
 * The values an issue message says were allowed: its quoted strings before `, got …`
 * (`expected "a" or "b", got "c"`), else the words after "must be" (`must be a or b`).
 */
const expectedValues = (message: string): Array<string> => {
  const got = message.lastIndexOf(", got ")
  const head = got === -1 ? message : message.slice(0, got)
  const quoted = [...head.matchAll(/"((?:[^"\\]|\\.)*)"/g)].flatMap((m) => {
    const parsed = Json.parse(`"${m[1]}"`)
    return Either.isRight(parsed) && typeof parsed.right === "string" ? [parsed.right] : []
  })
  if (quoted.length > 0) return quoted
  const allowed = /\bmust be (.*)$/.exec(head)?.[1] ?? ""
  return allowed.split(/,\s*|\s+or\s+/).filter((word) => /^[\w.*:-]+$/.test(word))
}

/**
 * Adds "did you mean" to issues about a mistyped string: an event selector (`tool.befor`)
 * or a value outside a fixed set (`fail-close`), found in `document` at the issue's path.
 *
 * @since 0.1.0
 * @category output
 */
export const withHints = <I extends { readonly path: string; readonly message: string }>(
  document: Json.JsonValue | undefined,
  issues: ReadonlyArray<I>
): Array<I> =>
  issues.map((issue) => {
    const value = valueAt(document, issue.path)
    if (typeof value !== "string" || issue.message.includes("did you mean")) return issue
    const known = /\/events\/\d+$/.test(issue.path) ? selectors : expectedValues(issue.message)
    const hint = didYouMean(value, known, (text) => JSON.stringify(text))
    return hint === "" ? issue : { ...issue, message: `${issue.message}${hint}` }
  })

/**
 * Writes one JSON value on stdout: one compact line, or indented with `pretty`. Terminal
 * controls the encoder leaves raw (C1, bidi) are written as `\uXXXX` escapes.
 *
 * @since 0.1.0
 * @category output
 */
export const printJson = (value: unknown, pretty = false): Effect.Effect<void> =>
  Console.log(Terminal.json(Json.stringify(value, pretty ? 2 : undefined)))

/**
 * The JSON object printed for an input error.
 *
 * @since 0.1.0
 * @category output
 */
export const inputErrorJson = (error: InputError): Json.JsonObject => ({
  error: "input",
  file: error.file,
  message: error.message,
  issues: error.issues as unknown as Json.JsonValue
})

/**
 * The JSON object printed for a configuration error.
 *
 * @since 0.1.0
 * @category output
 */
export const configErrorJson = (error: ConfigError): Json.JsonObject => ({
  error: "configuration",
  file: error.file,
  issues: error.issues as unknown as Json.JsonValue
})

/**
 * Prints an input or configuration error (on stdout, as the command's one JSON object) and
 * sets exit code 2.
 *
 * @since 0.1.0
 * @category output
 */
export const reportFailure = (
  error: InputError | ConfigError,
  pretty = false
): Effect.Effect<void, never, ExitCode> =>
  error._tag === "InputError"
    ? Effect.zipRight(printJson(inputErrorJson(error), pretty), exitWith(exitCodes.failure))
    : Effect.zipRight(printJson(configErrorJson(error), pretty), exitWith(exitCodes.failure))
