/**
 * The `ahp` command line's grammar over `@effect/cli`: each command is an `@effect/cli`
 * command (`CommandDescriptor`) of its options and positional arguments, which decodes the
 * command's words (`CommandDescriptor.parse`); the constructors below make the options and
 * arguments whose mistakes read as this command line's usage errors. The help is rendered
 * here from the same declarations — names and placeholders from their `Usage`,
 * descriptions from their `HelpDoc` — in this program's own layout.
 *
 * Grammar: `ahp [global options] <command> [options] [arguments]`; `--name value` or
 * `--name=value`; `--` ends the options; `ahp help [command]` is `--help`. The global
 * options (`-h`/`--help`, `--version`, `--log-level LEVEL`) are accepted before or after
 * the command. Every word is accounted for: an unknown command or option, a flag given a
 * value, an option without its value or given twice, a missing required option and a
 * stray argument are usage errors that name the mistake (with "did you mean" for a
 * mistyped command, option or choice). A command with a grammar of its own (`external`)
 * takes every word after its name.
 *
 * Values are text, flags and numbers made from text: the commands read their files
 * themselves (strictly, see `Io`), so no declaration uses the file system `@effect/cli`'s
 * decoders may ask for, and decoding is synchronous.
 *
 * @since 0.1.0
 */
import type { Style } from "@effect-ahp/tools/Style"
import { didYouMean } from "@effect-ahp/tools/Suggest"
import * as Args from "@effect/cli/Args"
import * as CliConfig from "@effect/cli/CliConfig"
import * as Descriptor from "@effect/cli/CommandDescriptor"
import * as HelpDoc from "@effect/cli/HelpDoc"
import type * as Span from "@effect/cli/HelpDoc/Span"
import * as Options from "@effect/cli/Options"
import type * as Usage from "@effect/cli/Usage"
import * as ValidationError from "@effect/cli/ValidationError"
import { Effect, Either, HashMap, Option } from "effect"

/**
 * One option of a command as its help shows it: its name (without dashes), its placeholder
 * when it takes a value, its description, and the note shown after it (`default: 5000`).
 *
 * @since 0.1.0
 * @category models
 */
export interface OptionInfo {
  readonly name: string
  readonly pseudo: string | undefined
  readonly description: string
  readonly note: string | undefined
  readonly required: boolean
}

/**
 * The positional arguments of a command as its help shows them.
 *
 * @since 0.1.0
 * @category models
 */
export interface ArgsInfo {
  /** How they read in the usage line (`FILE…`). */
  readonly usage: string
  readonly description: string
}

/**
 * A command: its name, a one-line summary (the command list), help paragraphs, its exit
 * codes, its options and arguments, and what its words decode to.
 *
 * @since 0.1.0
 * @category models
 */
export interface Command<Run> {
  readonly name: string
  readonly summary: string
  readonly details: ReadonlyArray<string>
  readonly exitCodes: ReadonlyArray<readonly [code: number, meaning: string]>
  readonly options: ReadonlyArray<OptionInfo>
  readonly args: ArgsInfo | undefined
  /** The help text of a command with a grammar of its own (see `external`). */
  readonly external: string | undefined
  /** Whether `-h` and `--help` after the name of an `external` command ask for its help. */
  readonly helpAfter: boolean
  /** Decodes the words after the command's name (see `parse` for what reaches it). */
  readonly decode: (words: ReadonlyArray<string>) => Either.Either<Run, string>
}

const config = CliConfig.make({ isCaseSensitive: true })

const spanText = (span: Span.Span): string => {
  switch (span._tag) {
    case "Text":
    case "URI":
      return span.value
    case "Sequence":
      return spanText(span.left) + spanText(span.right)
    default:
      return spanText(span.value)
  }
}

const paragraphs = (doc: HelpDoc.HelpDoc): Array<string> => {
  switch (doc._tag) {
    case "Paragraph":
      return [spanText(doc.value)]
    case "Sequence":
      return [...paragraphs(doc.left), ...paragraphs(doc.right)]
    default:
      return []
  }
}

/** The text of a validation error (its message is a help document). */
const messageOf = (error: ValidationError.ValidationError): string => paragraphs(error.error).join(" ")

/** The declaration a usage describes: the name, its placeholder, and the wrappers around it. */
const named = (usage: Usage.Usage): { readonly named: Usage.Named; readonly wrappers: ReadonlyArray<string> } => {
  switch (usage._tag) {
    case "Named":
      return { named: usage, wrappers: [] }
    case "Optional":
    case "Repeated": {
      const inner = named(usage.usage)
      return { named: inner.named, wrappers: [usage._tag, ...inner.wrappers] }
    }
    default:
      throw new Error(`a declaration of one option or argument, not ${usage._tag}`)
  }
}

/**
 * The paragraphs a declaration was described with: `@effect/cli` puts the value type's
 * sentence first and one sentence per optional or repeated wrapper last.
 */
const described = (help: HelpDoc.HelpDoc, wrappers: number): Array<string> => {
  const definitions = help._tag === "DescriptionList" ? help.definitions : []
  const block = paragraphs(definitions[0]?.[1] ?? HelpDoc.empty)
  return block.slice(1, block.length - wrappers)
}

const infoOf = (option: Options.Options<unknown>): OptionInfo => {
  const { named: usage, wrappers } = named(Options.getUsage(option))
  const [description = "", note] = described(Options.getHelp(option), wrappers.length)
  return {
    name: usage.names[0]!.replace(/^--?/, ""),
    pseudo: Option.getOrUndefined(usage.acceptedValues),
    description,
    note,
    required: !wrappers.includes("Optional")
  }
}

const argsInfoOf = (args: Args.Args<unknown>): ArgsInfo => {
  const { named: usage, wrappers } = named(Args.getUsage(args))
  const [description = ""] = described(Args.getHelp(args), wrappers.length)
  const name = usage.names[0]!.replace(/^<(.*)>$/, "$1")
  return { usage: wrappers.includes("Repeated") ? `${name}…` : name, description }
}

/**
 * Runs a decoder of `@effect/cli`. Their types ask for the file system, the path service and
 * the terminal for decoders that check files or prompt; the declarations here use neither.
 */
const decodeNow = <A>(
  decoding: Effect.Effect<A, ValidationError.ValidationError, any>
): Either.Either<A, ValidationError.ValidationError> =>
  Effect.runSync(Effect.either(decoding as Effect.Effect<A, ValidationError.ValidationError>))

const option = (name: string) => `--${name}`

const invalid = (message: string) => Effect.fail(ValidationError.invalidValue(HelpDoc.p(message)))

const rejected = (message: string) => Effect.fail(HelpDoc.p(message))

/** A text option; its note is a second paragraph of its description. */
const valued = (name: string, pseudo: string, description: string, note?: string) => {
  const described = Options.withDescription(Options.withPseudoName(Options.text(name), pseudo), description)
  return note === undefined ? described : Options.withDescription(described, note)
}

/**
 * An on/off option (`--pretty`).
 *
 * @since 0.1.0
 * @category options
 */
export const flag = (name: string, description: string): Options.Options<boolean> =>
  Options.withDescription(Options.boolean(name), description)

/**
 * A required option with a text value (`--event FILE`).
 *
 * @since 0.1.0
 * @category options
 */
export const text = (name: string, pseudo: string, description: string): Options.Options<string> =>
  valued(name, pseudo, description)

/**
 * An optional option with a text value; `note` tells what happens without it.
 *
 * @since 0.1.0
 * @category options
 */
export const optionalText = (
  name: string,
  pseudo: string,
  description: string,
  note?: string
): Options.Options<Option.Option<string>> => Options.optional(valued(name, pseudo, description, note))

const wholeNumber = (name: string, min: number) => (text: string) => {
  const value = /^-?\d+$/.test(text) ? Number(text) : NaN
  return Number.isSafeInteger(value) && value >= min
    ? Effect.succeed(value)
    : invalid(
      `${option(name)} needs a whole number${min === 0 ? " (0 or more)" : ` of at least ${min}`}, got "${text}"`
    )
}

/**
 * An optional whole-number option (at least `min`).
 *
 * @since 0.1.0
 * @category options
 */
export const optionalInteger = (
  name: string,
  pseudo: string,
  description: string,
  options: { readonly min: number; readonly note?: string }
): Options.Options<Option.Option<number>> =>
  Options.optional(Options.mapEffect(valued(name, pseudo, description, options.note), wholeNumber(name, options.min)))

/**
 * A whole-number option with a default (at least `min`).
 *
 * @since 0.1.0
 * @category options
 */
export const integer = (
  name: string,
  pseudo: string,
  description: string,
  options: { readonly min: number; readonly default: number }
): Options.Options<number> =>
  Options.withDefault(
    Options.mapEffect(valued(name, pseudo, description, `default: ${options.default}`), wholeNumber(name, options.min)),
    options.default
  )

const oneOf = <A extends string>(what: string, choices: ReadonlyArray<A>, value: string) =>
  choices.includes(value as A)
    ? Either.right(value as A)
    : Either.left(`${what} must be one of ${choices.join(", ")}, got "${value}"${didYouMean(value, choices)}`)

const choiceOf = <A extends string>(name: string, choices: ReadonlyArray<A>) => (value: string) =>
  Either.match(oneOf(option(name), choices, value), { onLeft: invalid, onRight: Effect.succeed })

/**
 * An option whose value is one of a fixed set, with a default.
 *
 * @since 0.1.0
 * @category options
 */
export const choice = <A extends string>(
  name: string,
  pseudo: string,
  choices: ReadonlyArray<A>,
  description: string,
  fallback: A
): Options.Options<A> =>
  Options.withDefault(
    Options.mapEffect(
      valued(name, pseudo, description, `${choices.join(" | ")}; default: ${fallback}`),
      choiceOf(name, choices)
    ),
    fallback
  )

/**
 * An optional option whose value is one of a fixed set.
 *
 * @since 0.1.0
 * @category options
 */
export const optionalChoice = <A extends string>(
  name: string,
  pseudo: string,
  choices: ReadonlyArray<A>,
  description: string
): Options.Options<Option.Option<A>> =>
  Options.optional(Options.mapEffect(valued(name, pseudo, description, choices.join(" | ")), choiceOf(name, choices)))

/**
 * One or more positional arguments (`FILE…`).
 *
 * @since 0.1.0
 * @category arguments
 */
export const atLeastOne = (pseudo: string, description: string): Args.Args<ReadonlyArray<string>> =>
  Args.text({ name: pseudo }).pipe(
    Args.withDescription(description),
    Args.repeated,
    Args.mapEffect((values) =>
      values.length === 0 ? rejected(`missing ${pseudo}: give at least one`) : Effect.succeed(values)
    )
  )

/**
 * Exactly one positional argument.
 *
 * @since 0.1.0
 * @category arguments
 */
export const exactlyOne = (pseudo: string, description: string): Args.Args<string> =>
  Args.withDescription(Args.text({ name: pseudo }), description)

/**
 * Exactly one positional argument, one of a fixed set.
 *
 * @since 0.1.0
 * @category arguments
 */
export const oneArgOf = <A extends string>(
  pseudo: string,
  choices: ReadonlyArray<A>,
  description: string
): Args.Args<A> =>
  Args.text({ name: pseudo }).pipe(
    Args.withDescription(`${description}: ${choices.join(", ")}`),
    Args.mapEffect((value) =>
      Either.match(oneOf(pseudo, choices, value), { onLeft: rejected, onRight: Effect.succeed })
    )
  )

/**
 * The decoded values of a record of options.
 *
 * @since 0.1.0
 * @category models
 */
export type Values<O extends Record<string, Options.Options<any>>> = {
  readonly [K in keyof O]: O[K] extends Options.Options<infer A> ? A : never
}

/**
 * Makes a command: an `@effect/cli` command of its options and arguments, mapped to what
 * to do with their values.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <Run, O extends Record<string, Options.Options<any>>, A = undefined>(spec: {
  readonly name: string
  readonly summary: string
  readonly details?: ReadonlyArray<string>
  readonly exitCodes: ReadonlyArray<readonly [number, string]>
  readonly options: O
  readonly args?: Args.Args<A>
  readonly run: (values: Values<O>, args: A) => Run
}): Command<Run> => {
  const args = spec.args === undefined ? undefined : argsInfoOf(spec.args)
  const options = Options.all(spec.options as Record<string, Options.Options<unknown>>) as Options.Options<Values<O>>
  const declaredArgs = (spec.args ?? Args.none) as Args.Args<A>
  // @effect/cli looks for its built-in options among the words after `--` when no option
  // precedes them (`ahp validate a -- --version`): those words are then the arguments, as
  // its own parse of a command's words would take them.
  const withoutBuiltIns = (words: ReadonlyArray<string>) =>
    Effect.zipWith(
      Options.processCommandLine(options, [], config),
      Args.validate(declaredArgs, words.filter((_, i) => i !== words.indexOf("--")), config),
      ([, , values], [leftover, args]) => ({ leftover, value: spec.run(values, args) })
    )
  const descriptor = Descriptor.make(spec.name, options, declaredArgs).pipe(
    Descriptor.withDescription(spec.summary),
    Descriptor.map(({ args, options }) => spec.run(options, args))
  )
  return {
    name: spec.name,
    summary: spec.summary,
    details: spec.details ?? [],
    exitCodes: spec.exitCodes,
    options: Object.values(spec.options).map(infoOf),
    args,
    external: undefined,
    helpAfter: true,
    decode: (words) => {
      const parsed = decodeNow(
        Descriptor.parse(descriptor, [spec.name, ...words], config).pipe(
          Effect.flatMap((directive) =>
            directive._tag === "UserDefined"
              ? Effect.succeed({ leftover: directive.leftover, value: directive.value })
              : withoutBuiltIns(words)
          )
        )
      )
      if (Either.isLeft(parsed)) {
        return Either.left(
          ValidationError.isMissingValue(parsed.left) && args !== undefined
            ? `missing ${args.usage}`
            : messageOf(parsed.left)
        )
      }
      const directive = parsed.right
      return directive.leftover.length > 0
        ? Either.left(`unexpected argument "${directive.leftover[0]}"`)
        : Either.right(directive.value)
    }
  }
}

/**
 * A command with a grammar of its own (`ahp hook …`): every word after its name is handed
 * to `run` as it is; `help` is what its help shows before its options (declared only to be
 * listed) and exit codes. With `helpAfter`, `-h` and `--help` among those words ask for
 * the help instead.
 *
 * @since 0.1.0
 * @category constructors
 */
export const external = <Run>(spec: {
  readonly name: string
  readonly summary: string
  readonly help: string
  readonly options?: Record<string, Options.Options<any>>
  readonly helpAfter?: boolean
  readonly exitCodes: ReadonlyArray<readonly [number, string]>
  readonly run: (argv: ReadonlyArray<string>) => Run
}): Command<Run> => ({
  name: spec.name,
  summary: spec.summary,
  details: [],
  exitCodes: spec.exitCodes,
  options: Object.values(spec.options ?? {}).map(infoOf),
  args: undefined,
  external: spec.help,
  helpAfter: spec.helpAfter ?? false,
  decode: (argv) => Either.right(spec.run(argv))
})

/**
 * The log levels `--log-level` accepts.
 *
 * @since 0.1.0
 * @category models
 */
export const logLevels = ["all", "trace", "debug", "info", "warning", "error", "fatal", "none"] as const

/**
 * A log level name.
 *
 * @since 0.1.0
 * @category models
 */
export type LogLevelName = typeof logLevels[number]

/**
 * What a command line asks for.
 *
 * @since 0.1.0
 * @category models
 */
export type Parsed<Run> =
  | { readonly _tag: "Run"; readonly run: Run; readonly logLevel: Option.Option<LogLevelName> }
  | { readonly _tag: "Help"; readonly command: Command<Run> | undefined }
  | { readonly _tag: "Version" }
  | { readonly _tag: "Usage"; readonly command: Command<Run> | undefined; readonly message: string | undefined }

/** The global options, declared as the commands' are. */
const globals = {
  help: Options.withAlias(flag("help", "show this help (also: ahp help [command])"), "h"),
  version: flag("version", "print the version"),
  logLevel: optionalChoice("log-level", "LEVEL", logLevels, "log to stderr from this level up")
}

const globalRows: ReadonlyArray<readonly [string, string]> = [
  ["-h, --help", infoOf(globals.help).description],
  ["--version", infoOf(globals.version).description],
  ["--log-level LEVEL", `${infoOf(globals.logLevel).description}: ${infoOf(globals.logLevel).note}; default: warning`]
]

const globalNames = ["help", "version", "log-level"]

/**
 * Parses the arguments after `ahp`: global options anywhere, then the command, its options
 * and its arguments. A bare `ahp` is a usage error without a message (the help is shown).
 *
 * The words are sorted here before the command's `@effect/cli` parser decodes them, for
 * what `@effect/cli` 0.77.2 does otherwise (each checked in CommandLine.test.ts):
 * - the global options are this program's: its built-in `--log-level` would take the whole
 *   command line, and its `--help` a value or an argument that reads `--help`;
 * - an unknown option would be taken as an argument: here it is a usage error, with "did you mean";
 * - `--flag=yes` would be accepted for an on/off option: here it takes no value;
 * - an option given twice would be left over as arguments: here it is named;
 * - a missing option would be reported without its placeholder;
 * - a value that reads as an option (`--reason -x`) is handed on as `--reason=-x`, so that
 *   it is taken for the value it is.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = <Run>(commands: ReadonlyArray<Command<Run>>, argv: ReadonlyArray<string>): Parsed<Run> => {
  let command: Command<Run> | undefined = undefined
  let help = false
  let version = false
  let logLevel: string | undefined = undefined
  const words: Array<string> = []
  const given = new Map<string, number>()
  const usage = (message: string): Parsed<Run> => ({ _tag: "Usage", command, message })
  const names = commands.map((c) => c.name)
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (token === "--") {
      words.push(...argv.slice(i))
      break
    }
    if (token === "-h") {
      help = true
      continue
    }
    if (token.startsWith("--")) {
      const eq = token.indexOf("=")
      const name = token.slice(2, eq === -1 ? undefined : eq)
      const inline = eq === -1 ? undefined : token.slice(eq + 1)
      const known = command?.options.find((o) => o.name === name)
      if (!globalNames.includes(name) && known === undefined) {
        const candidates = [...globalNames, ...(command?.options.map((o) => o.name) ?? [])]
        const where = command === undefined ? "" : ` for ahp ${command.name}`
        const before = command === undefined && argv.slice(i + 1).some((t) => names.includes(t))
          ? "; a command's options go after the command"
          : ""
        return usage(`unknown option --${name}${where}${didYouMean(name, candidates, option)}${before}`)
      }
      const pseudo = name === "log-level" ? "LEVEL" : known?.pseudo
      if (pseudo === undefined && inline !== undefined) return usage(`${option(name)} takes no value`)
      const value = pseudo === undefined ? undefined : inline ?? argv[++i]
      if (pseudo !== undefined && value === undefined) return usage(`${option(name)} needs a value (${pseudo})`)
      if (name === "help") help = true
      else if (name === "version") version = true
      else if (name === "log-level") logLevel = value
      else {
        given.set(name, (given.get(name) ?? 0) + 1)
        if (value === undefined) words.push(option(name))
        else if (value === "") words.push(option(name), value)
        else words.push(`${option(name)}=${value}`)
      }
      continue
    }
    if (token.startsWith("-") && token !== "-") return usage(`unknown option ${token}`)
    if (command !== undefined) {
      words.push(token)
    } else if (token === "help") {
      help = true
    } else {
      command = commands.find((c) => c.name === token)
      if (command === undefined) return usage(`unknown command ${token}${didYouMean(token, names)}`)
      if (command.external !== undefined) {
        const rest = argv.slice(i + 1)
        if (command.helpAfter && (rest.includes("--help") || rest.includes("-h"))) help = true
        else words.push(...rest)
        break
      }
    }
  }
  if (version) return { _tag: "Version" }
  if (help) return { _tag: "Help", command }
  if (command === undefined) return { _tag: "Usage", command: undefined, message: undefined }
  if (logLevel !== undefined) {
    const level = decodeNow(Options.parse(globals.logLevel, HashMap.make(["--log-level", [logLevel]]), config))
    if (Either.isLeft(level)) return usage(messageOf(level.left))
  }
  for (const o of command.external === undefined ? command.options : []) {
    const times = given.get(o.name) ?? 0
    if (o.required && times === 0) return usage(`missing ${option(o.name)} ${o.pseudo ?? ""}`.trimEnd())
    if (times > 1) return usage(`${option(o.name)} is given ${times} times`)
  }
  const decoded = command.decode(words)
  return Either.isLeft(decoded)
    ? usage(decoded.left)
    : { _tag: "Run", run: decoded.right, logLevel: Option.fromNullable(logLevel as LogLevelName | undefined) }
}

/**
 * How a program presents itself in help: its name, version, what it is, and the exit-code
 * convention every command follows.
 *
 * @since 0.1.0
 * @category models
 */
export interface Program<Run> {
  readonly name: string
  readonly version: string
  readonly summary: string
  readonly commands: ReadonlyArray<Command<Run>>
  readonly exitCodes: ReadonlyArray<readonly [number, string]>
}

const usageLine = <Run>(program: Program<Run>, command: Command<Run>): string => {
  const required = command.options.filter((o) => o.required).map((o) => `${option(o.name)} ${o.pseudo}`)
  const rest = command.options.some((o) => !o.required) ? ["[options]"] : []
  const args = command.args === undefined ? [] : [command.args.usage]
  return [program.name, command.name, ...required, ...rest, ...args].join(" ")
}

const table = (rows: ReadonlyArray<readonly [string, string]>, s: Style): Array<string> => {
  const width = Math.min(30, Math.max(...rows.map(([left]) => left.length)))
  return rows.map(([left, right]) =>
    left.length > width
      ? `  ${s.cyan(left)}\n  ${" ".repeat(width)}  ${right}`
      : `  ${s.cyan(left.padEnd(width))}  ${right}`
  )
}

const section = (title: string, lines: ReadonlyArray<string>, s: Style): Array<string> =>
  lines.length === 0 ? [] : ["", s.bold(`${title}:`), ...lines]

const exitCodeRows = (codes: ReadonlyArray<readonly [number, string]>) =>
  codes.map(([code, meaning]) => [String(code), meaning] as const)

const optionRows = (options: ReadonlyArray<OptionInfo>) =>
  options.map((o) =>
    [
      `${option(o.name)}${o.pseudo === undefined ? "" : ` ${o.pseudo}`}`,
      `${o.description}${o.note === undefined ? "" : ` (${o.note})`}`
    ] as const
  )

/**
 * The help of the program (no command) or of one command.
 *
 * @since 0.1.0
 * @category help
 */
export const help = <Run>(program: Program<Run>, command: Command<Run> | undefined, s: Style): string => {
  const globalsSection = section("Global options", table(globalRows, s), s)
  if (command === undefined) {
    return [
      `${s.bold("Usage:")} ${program.name} <command> [options]`,
      "",
      `${program.summary} (version ${program.version})`,
      ...section("Commands", table(program.commands.map((c) => [c.name, c.summary] as const), s), s),
      ...section("Global options (before or after the command)", table(globalRows, s), s),
      ...section("Exit codes (every command)", table(exitCodeRows(program.exitCodes), s), s),
      "",
      `Run '${program.name} <command> --help' for a command's options.`
    ].join("\n")
  }
  if (command.external !== undefined) {
    return [
      command.external.trimEnd(),
      ...section("Options", table(optionRows(command.options), s), s),
      ...section("Exit codes", table(exitCodeRows(command.exitCodes), s), s)
    ].join("\n")
  }
  const argRows = command.args === undefined ? [] : [[command.args.usage, command.args.description] as const]
  return [
    `${s.bold("Usage:")} ${usageLine(program, command)}`,
    "",
    command.summary,
    ...(command.details.length === 0 ? [] : ["", ...command.details]),
    ...section("Arguments", table(argRows, s), s),
    ...section("Options", table(optionRows(command.options), s), s),
    ...globalsSection,
    ...section("Exit codes", table(exitCodeRows(command.exitCodes), s), s)
  ].join("\n")
}

/**
 * The text of a usage error: the message, the usage line, and where to find more.
 *
 * @since 0.1.0
 * @category help
 */
export const usageError = <Run>(
  program: Program<Run>,
  command: Command<Run> | undefined,
  message: string,
  s: Style
): string => {
  const where = command === undefined ? program.name : `${program.name} ${command.name}`
  return [
    `${where}: ${message}`,
    `${s.bold("Usage:")} ${
      command === undefined ? `${program.name} <command> [options]` : usageLine(program, command)
    }`,
    `Run '${where} --help' for more.`
  ].join("\n")
}
