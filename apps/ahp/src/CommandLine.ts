/**
 * The `ahp` command line's grammar: commands with options and positional arguments, the
 * global options (`-h`/`--help`, `--version`, `--log-level LEVEL`, accepted before or after
 * the command), usage errors that name the mistake (with "did you mean" for a mistyped
 * command, option or choice), and the help text. Parsing and rendering are pure functions;
 * what a parsed command does is a value of the caller's (`Run`).
 *
 * Grammar: `ahp [global options] <command> [options] [arguments]`; `--name value` or
 * `--name=value`; `--` ends the options; `ahp help [command]` is `--help`. A command with
 * a grammar of its own (`external`) takes every word after its name.
 *
 * @since 0.1.0
 */
import { Either, Option } from "effect"
import { didYouMean } from "./internal/suggest.js"
import type { Style } from "./Style.js"

/**
 * One option of a command: its name (without dashes), its placeholder when it takes a
 * value, its help text, and how its occurrences decode.
 *
 * @since 0.1.0
 * @category models
 */
export interface OptionSpec<A> {
  readonly name: string
  /** The value's placeholder (`FILE`); absent for a flag. */
  readonly pseudo?: string
  readonly description: string
  /** Shown after the description: `(default: 5000)`, the allowed values. */
  readonly note?: string
  readonly required: boolean
  readonly decode: (values: ReadonlyArray<string>) => Either.Either<A, string>
}

/**
 * The positional arguments of a command.
 *
 * @since 0.1.0
 * @category models
 */
export interface ArgsSpec<A> {
  /** How they read in the usage line (`FILE…`). */
  readonly usage: string
  readonly description: string
  readonly decode: (values: ReadonlyArray<string>) => Either.Either<A, string>
}

/**
 * A command: its name, a one-line summary (the command list), help paragraphs, its exit
 * codes, its options and arguments, and what to do with decoded values.
 *
 * @since 0.1.0
 * @category models
 */
export interface Command<Run> {
  readonly name: string
  readonly summary: string
  readonly details: ReadonlyArray<string>
  readonly exitCodes: ReadonlyArray<readonly [code: number, meaning: string]>
  readonly options: ReadonlyArray<OptionSpec<unknown>>
  readonly args: ArgsSpec<unknown> | undefined
  /** The help of a command with a grammar of its own (see `external`). */
  readonly external: string | undefined
  readonly decode: (
    options: ReadonlyMap<string, ReadonlyArray<string>>,
    args: ReadonlyArray<string>
  ) => Either.Either<Run, string>
}

/**
 * The decoded values of a record of options.
 *
 * @since 0.1.0
 * @category models
 */
export type Values<O extends Record<string, OptionSpec<any>>> = {
  readonly [K in keyof O]: O[K] extends OptionSpec<infer A> ? A : never
}

const option = (name: string) => `--${name}`

const single = (name: string, values: ReadonlyArray<string>): Either.Either<string | undefined, string> =>
  values.length > 1 ? Either.left(`${option(name)} is given ${values.length} times`) : Either.right(values[0])

/**
 * An on/off option (`--pretty`).
 *
 * @since 0.1.0
 * @category options
 */
export const flag = (name: string, description: string): OptionSpec<boolean> => ({
  name,
  description,
  required: false,
  decode: (values) => Either.right(values.length > 0)
})

/**
 * A required option with a text value (`--event FILE`).
 *
 * @since 0.1.0
 * @category options
 */
export const text = (name: string, pseudo: string, description: string): OptionSpec<string> => ({
  name,
  pseudo,
  description,
  required: true,
  decode: (values) => Either.map(single(name, values), (value) => value ?? "")
})

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
): OptionSpec<Option.Option<string>> => ({
  name,
  pseudo,
  description,
  ...(note === undefined ? {} : { note }),
  required: false,
  decode: (values) => Either.map(single(name, values), Option.fromNullable)
})

const parseInteger = (name: string, text: string, min: number): Either.Either<number, string> => {
  const value = /^-?\d+$/.test(text) ? Number(text) : NaN
  return Number.isSafeInteger(value) && value >= min
    ? Either.right(value)
    : Either.left(
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
): OptionSpec<Option.Option<number>> => ({
  name,
  pseudo,
  description,
  ...(options.note === undefined ? {} : { note: options.note }),
  required: false,
  decode: (values) =>
    Either.flatMap(
      single(name, values),
      (value) =>
        value === undefined
          ? Either.right(Option.none())
          : Either.map(parseInteger(name, value, options.min), Option.some)
    )
})

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
): OptionSpec<number> => ({
  name,
  pseudo,
  description,
  note: `default: ${options.default}`,
  required: false,
  decode: (values) =>
    Either.flatMap(
      single(name, values),
      (value) => value === undefined ? Either.right(options.default) : parseInteger(name, value, options.min)
    )
})

const oneOf = <A extends string>(what: string, choices: ReadonlyArray<A>, value: string): Either.Either<A, string> =>
  choices.includes(value as A)
    ? Either.right(value as A)
    : Either.left(`${what} must be one of ${choices.join(", ")}, got "${value}"${didYouMean(value, choices)}`)

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
): OptionSpec<A> => ({
  name,
  pseudo,
  description,
  note: `${choices.join(" | ")}; default: ${fallback}`,
  required: false,
  decode: (values) =>
    Either.flatMap(
      single(name, values),
      (value) => value === undefined ? Either.right(fallback) : oneOf(option(name), choices, value)
    )
})

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
): OptionSpec<Option.Option<A>> => ({
  name,
  pseudo,
  description,
  note: choices.join(" | "),
  required: false,
  decode: (values) =>
    Either.flatMap(
      single(name, values),
      (value) =>
        value === undefined ? Either.right(Option.none()) : Either.map(oneOf(option(name), choices, value), Option.some)
    )
})

/**
 * One or more positional arguments (`FILE…`).
 *
 * @since 0.1.0
 * @category arguments
 */
export const atLeastOne = (pseudo: string, description: string): ArgsSpec<ReadonlyArray<string>> => ({
  usage: `${pseudo}…`,
  description,
  decode: (values) => values.length === 0 ? Either.left(`missing ${pseudo}: give at least one`) : Either.right(values)
})

/**
 * Exactly one positional argument.
 *
 * @since 0.1.0
 * @category arguments
 */
export const exactlyOne = (pseudo: string, description: string): ArgsSpec<string> => ({
  usage: pseudo,
  description,
  decode: (values) =>
    values.length === 0
      ? Either.left(`missing ${pseudo}`)
      : values.length > 1
      ? Either.left(`unexpected argument "${values[1]}"`)
      : Either.right(values[0]!)
})

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
): ArgsSpec<A> => ({
  usage: pseudo,
  description: `${description}: ${choices.join(", ")}`,
  decode: (values) =>
    values.length === 0
      ? Either.left(`missing ${pseudo}: one of ${choices.join(", ")}`)
      : values.length > 1
      ? Either.left(`unexpected argument "${values[1]}"`)
      : oneOf(pseudo, choices, values[0]!)
})

/**
 * Makes a command from its options, arguments and what to do with their values.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <Run, O extends Record<string, OptionSpec<any>>, A = undefined>(spec: {
  readonly name: string
  readonly summary: string
  readonly details?: ReadonlyArray<string>
  readonly exitCodes: ReadonlyArray<readonly [number, string]>
  readonly options: O
  readonly args?: ArgsSpec<A>
  readonly run: (values: Values<O>, args: A) => Run
}): Command<Run> => ({
  name: spec.name,
  summary: spec.summary,
  details: spec.details ?? [],
  exitCodes: spec.exitCodes,
  options: Object.values(spec.options),
  args: spec.args,
  external: undefined,
  decode: (raw, positionals) => {
    const values: Record<string, unknown> = {}
    for (const [key, o] of Object.entries(spec.options)) {
      const given = raw.get(o.name) ?? []
      if (o.required && given.length === 0) return Either.left(`missing ${option(o.name)} ${o.pseudo ?? ""}`.trimEnd())
      const decoded = o.decode(given)
      if (Either.isLeft(decoded)) return Either.left(decoded.left)
      values[key] = decoded.right
    }
    if (spec.args === undefined) {
      return positionals.length > 0
        ? Either.left(`unexpected argument "${positionals[0]}"`)
        : Either.right(spec.run(values as Values<O>, undefined as A))
    }
    return Either.map(spec.args.decode(positionals), (args) => spec.run(values as Values<O>, args))
  }
})

/**
 * A command with a grammar of its own (`ahp hook …`): every word after its name is handed
 * to `run` as it is, its own `--help` included; `help` is what `ahp help <name>` shows.
 *
 * @since 0.1.0
 * @category constructors
 */
export const external = <Run>(spec: {
  readonly name: string
  readonly summary: string
  readonly help: string
  readonly exitCodes: ReadonlyArray<readonly [number, string]>
  readonly run: (argv: ReadonlyArray<string>) => Run
}): Command<Run> => ({
  name: spec.name,
  summary: spec.summary,
  details: [],
  exitCodes: spec.exitCodes,
  options: [],
  args: undefined,
  external: spec.help,
  decode: (_, argv) => Either.right(spec.run(argv))
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

const globalOptions: ReadonlyArray<readonly [names: string, description: string]> = [
  ["-h, --help", "show this help (also: ahp help [command])"],
  ["--version", "print the version"],
  ["--log-level LEVEL", `log to stderr from this level up: ${logLevels.join(" | ")}; default: warning`]
]

const globalNames = ["help", "version", "log-level"]

/**
 * Parses the arguments after `ahp`: global options anywhere, then the command, its options
 * and its arguments. A bare `ahp` is a usage error without a message (the help is shown).
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = <Run>(commands: ReadonlyArray<Command<Run>>, argv: ReadonlyArray<string>): Parsed<Run> => {
  let command: Command<Run> | undefined = undefined
  let help = false
  let version = false
  let logLevel: string | undefined = undefined
  const raw = new Map<string, Array<string>>()
  const positionals: Array<string> = []
  const usage = (message: string): Parsed<Run> => ({ _tag: "Usage", command, message })
  const names = commands.map((c) => c.name)
  for (let i = 0; i < argv.length; i++) {
    const token = argv[i]!
    if (token === "--") {
      positionals.push(...argv.slice(i + 1))
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
      const takesValue = name === "log-level" || known?.pseudo !== undefined
      if (!globalNames.includes(name) && known === undefined) {
        const candidates = [...globalNames, ...(command?.options.map((o) => o.name) ?? [])]
        const where = command === undefined ? "" : ` for ahp ${command.name}`
        const before = command === undefined && argv.slice(i + 1).some((t) => names.includes(t))
          ? "; a command's options go after the command"
          : ""
        return usage(
          `unknown option ${token.slice(0, eq === -1 ? undefined : eq)}${where}${
            didYouMean(name, candidates, option)
          }${before}`
        )
      }
      let value: string | undefined = inline
      if (takesValue && value === undefined) {
        value = argv[i + 1]
        if (value === undefined) return usage(`${option(name)} needs a value (${known?.pseudo ?? "LEVEL"})`)
        i++
      }
      if (!takesValue && value !== undefined) return usage(`${option(name)} takes no value`)
      if (name === "help") help = true
      else if (name === "version") version = true
      else if (name === "log-level") logLevel = value
      else raw.set(name, [...(raw.get(name) ?? []), value ?? ""])
      continue
    }
    if (token.startsWith("-") && token !== "-") return usage(`unknown option ${token}`)
    if (command !== undefined) {
      positionals.push(token)
    } else if (token === "help") {
      help = true
    } else {
      command = commands.find((c) => c.name === token)
      if (command === undefined) return usage(`unknown command ${token}${didYouMean(token, names)}`)
      if (command.external !== undefined) {
        positionals.push(...argv.slice(i + 1))
        break
      }
    }
  }
  if (version) return { _tag: "Version" }
  if (help) return { _tag: "Help", command }
  if (command === undefined) return { _tag: "Usage", command: undefined, message: undefined }
  if (logLevel !== undefined && !(logLevels as ReadonlyArray<string>).includes(logLevel)) {
    return usage(
      `--log-level must be one of ${logLevels.join(", ")}, got "${logLevel}"${didYouMean(logLevel, logLevels)}`
    )
  }
  const decoded = command.decode(raw, positionals)
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

/**
 * The help of the program (no command) or of one command.
 *
 * @since 0.1.0
 * @category help
 */
export const help = <Run>(program: Program<Run>, command: Command<Run> | undefined, s: Style): string => {
  const globals = table(globalOptions, s)
  if (command === undefined) {
    return [
      `${s.bold("Usage:")} ${program.name} <command> [options]`,
      "",
      `${program.summary} (version ${program.version})`,
      ...section("Commands", table(program.commands.map((c) => [c.name, c.summary] as const), s), s),
      ...section("Global options (before or after the command)", globals, s),
      ...section("Exit codes (every command)", table(exitCodeRows(program.exitCodes), s), s),
      "",
      `Run '${program.name} <command> --help' for a command's options.`
    ].join("\n")
  }
  if (command.external !== undefined) {
    return [command.external.trimEnd(), ...section("Exit codes", table(exitCodeRows(command.exitCodes), s), s)].join(
      "\n"
    )
  }
  const optionRows = command.options.map((o) =>
    [
      `${option(o.name)}${o.pseudo === undefined ? "" : ` ${o.pseudo}`}`,
      `${o.description}${o.note === undefined ? "" : ` (${o.note})`}`
    ] as const
  )
  const argRows = command.args === undefined ? [] : [[command.args.usage, command.args.description] as const]
  return [
    `${s.bold("Usage:")} ${usageLine(program, command)}`,
    "",
    command.summary,
    ...(command.details.length === 0 ? [] : ["", ...command.details]),
    ...section("Arguments", table(argRows, s), s),
    ...section("Options", table(optionRows, s), s),
    ...section("Global options", globals, s),
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
