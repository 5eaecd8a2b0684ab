/**
 * What the commands share: reading JSON input files with one clear message per problem,
 * printing JSON results, the documented failure objects, and the process exit code.
 *
 * - Unreadable input (a missing file, invalid JSON, a value of the wrong shape) is an
 *   `InputError`, printed as `{"error":"input","file":…,"message":…,"issues":[…]}`.
 * - An unusable registration or grant is a `ConfigError`, printed as
 *   `{"error":"configuration","file":…,"issues":[{"code","path","message"}]}`.
 *
 * Every JSON text goes through the protocol's lossless `Json.parse` / `Json.stringify`, so
 * integers beyond 2^53 survive a round trip unchanged.
 *
 * @since 0.1.0
 */
import { Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Event, Json } from "@effect-ahp/protocol"
import { Console, Context, Data, Effect, Either, Ref } from "effect"

/**
 * The exit code the program ends with (set by the commands, read by `bin.ts`).
 *
 * @since 0.1.0
 * @category tags
 */
export class ExitCode extends Context.Tag("@effect-ahp/ahp/ExitCode")<ExitCode, Ref.Ref<number>>() {}

/**
 * Sets the exit code.
 *
 * @since 0.1.0
 * @category exit codes
 */
export const exitWith = (code: number): Effect.Effect<void, never, ExitCode> =>
  Effect.flatMap(ExitCode, (ref) => Ref.set(ref, code))

/**
 * The documented exit codes.
 *
 * @since 0.1.0
 * @category exit codes
 */
export const exitCodes = {
  ok: 0,
  input: 1,
  configuration: 2,
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

const describeSystemError = (reason: string): string => {
  switch (reason) {
    case "NotFound":
      return "no such file"
    case "PermissionDenied":
      return "permission denied"
    case "BadResource":
      return "not a readable file"
    default:
      return reason
  }
}

/**
 * Reads and parses one JSON file; `what` names the file in messages ("event",
 * "registration", …).
 *
 * @since 0.1.0
 * @category input
 */
export const readJson = (
  file: string,
  what: string
): Effect.Effect<Json.JsonValue, InputError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const text = yield* fs.readFileString(file).pipe(
      Effect.mapError((error) =>
        new InputError({
          file,
          message: `cannot read the ${what} file ${file}: ${
            error._tag === "SystemError" ? describeSystemError(error.reason) : error.message
          }`,
          issues: []
        })
      )
    )
    return yield* Either.match(Json.parse(text), {
      onLeft: (error) =>
        Effect.fail(
          new InputError({ file, message: `the ${what} file ${file} is not JSON: ${error.message}`, issues: [] })
        ),
      onRight: Effect.succeed
    })
  })

/**
 * Reads a JSON file that must hold an object.
 *
 * @since 0.1.0
 * @category input
 */
export const readObject = (
  file: string,
  what: string
): Effect.Effect<Json.JsonObject, InputError, FileSystem.FileSystem> =>
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
export const readEvent = (file: string): Effect.Effect<EventInput, InputError, FileSystem.FileSystem> =>
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
          message: `the event file ${file} has an unknown event type ${Json.stringify(type)}`,
          issues: [{ path: "/type", message: `${Json.stringify(type)} is not a catalogue event type` }]
        })
      )
    }
    return Effect.succeed({ type, input })
  })

/**
 * Writes one JSON value on stdout: one compact line, or indented with `pretty`.
 *
 * @since 0.1.0
 * @category output
 */
export const printJson = (value: unknown, pretty = false): Effect.Effect<void> =>
  Console.log(Json.stringify(value, pretty ? 2 : undefined))

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
 * sets the matching exit code.
 *
 * @since 0.1.0
 * @category output
 */
export const reportFailure = (
  error: InputError | ConfigError,
  pretty = false
): Effect.Effect<void, never, ExitCode> =>
  error._tag === "InputError"
    ? Effect.zipRight(printJson(inputErrorJson(error), pretty), exitWith(exitCodes.input))
    : Effect.zipRight(printJson(configErrorJson(error), pretty), exitWith(exitCodes.configuration))

/**
 * A `--NAME FILE` option holding a file path, with its help text.
 *
 * @since 0.1.0
 * @category options
 */
export const fileOption = (name: string, description: string): Options.Options<string> =>
  Options.text(name).pipe(Options.withPseudoName("FILE"), Options.withDescription(description))
