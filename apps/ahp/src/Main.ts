/**
 * Runs the `ahp` command line in this process: parses the arguments, prints help, the
 * version or a usage error (exit 2; a bare `ahp` prints the help and exits 2), or runs the
 * command and exits with the code it set. SIGINT and SIGTERM interrupt the command (exit
 * 130); a closed stdout (`ahp demo | head`) stops it the same way. An unexpected failure is
 * logged on stderr and exits 2. Logs always go to stderr: stdout carries only the commands'
 * output. Help is coloured only on a terminal, never with `NO_COLOR`.
 *
 * @since 0.1.0
 */
import * as Io from "@effect-ahp/tools/Io"
import * as Style from "@effect-ahp/tools/Style"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Deferred, Effect, Exit, FiberId, Layer, Logger, LogLevel, Option, Ref } from "effect"
import * as Cli from "./Cli.js"
import * as CommandLine from "./CommandLine.js"

const levels: Record<CommandLine.LogLevelName, LogLevel.LogLevel> = {
  all: LogLevel.All,
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warning: LogLevel.Warning,
  error: LogLevel.Error,
  fatal: LogLevel.Fatal,
  none: LogLevel.None
}

/**
 * A command's run as one effect: the exit code it set (2 when it failed unexpectedly, after
 * logging why on stderr), with the file system, the path service and logs to stderr
 * (logfmt, through the `Console` service) at `level` and above. `stop` ending first stops
 * the command, which ends with the code set so far; interruption is left to the caller
 * (exit 130).
 */
const program = (run: Cli.Run, level: LogLevel.LogLevel) => (stop: Effect.Effect<void>): Effect.Effect<number> => {
  const code = Ref.unsafeMake<number>(Io.exitCodes.ok)
  return run.pipe(
    Effect.raceFirst(stop),
    Effect.catchAllCause((cause) =>
      Effect.zipRight(Effect.logError("ahp failed", cause), Ref.set(code, Io.exitCodes.failure))
    ),
    Effect.zipRight(Ref.get(code)),
    Effect.provideService(Io.ExitCode, code),
    Effect.provide(Layer.mergeAll(
      NodeFileSystem.layer,
      NodePath.layer,
      Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))
    )),
    Logger.withMinimumLogLevel(level)
  )
}

/**
 * What `ahp` does with its arguments: print the help, the version or a usage error on one
 * stream and exit with `code`, or run a command (`program`, whose value is the exit code;
 * `stop` ending first stops the command early, as a closed stdout does).
 *
 * @since 0.1.0
 * @category models
 */
export type Start =
  | {
    readonly _tag: "Print"
    readonly stream: "stdout" | "stderr"
    readonly text: string
    readonly code: number
  }
  | { readonly _tag: "Run"; readonly program: (stop: Effect.Effect<void>) => Effect.Effect<number> }

/**
 * Decides what `ahp` does with the arguments after `ahp`; `colour` tells whether each
 * stream may be coloured (`Style.colourFor`). Runs nothing: `main` carries it out in this
 * process, and the tests in theirs, with the output captured.
 *
 * @since 0.1.0
 * @category running
 */
export const start = (
  argv: ReadonlyArray<string>,
  colour: { readonly stdout: boolean; readonly stderr: boolean }
): Start => {
  const parsed = CommandLine.parse(Cli.program.commands, argv)
  switch (parsed._tag) {
    case "Version":
      return { _tag: "Print", stream: "stdout", text: `${Cli.program.version}\n`, code: Io.exitCodes.ok }
    case "Help":
      return {
        _tag: "Print",
        stream: "stdout",
        text: `${CommandLine.help(Cli.program, parsed.command, Style.style(colour.stdout))}\n`,
        code: Io.exitCodes.ok
      }
    case "Usage": {
      const s = Style.style(colour.stderr)
      return {
        _tag: "Print",
        stream: "stderr",
        text: `${
          parsed.message === undefined
            ? CommandLine.help(Cli.program, undefined, s)
            : CommandLine.usageError(Cli.program, parsed.command, parsed.message, s)
        }\n`,
        code: Io.exitCodes.failure
      }
    }
    case "Run":
      return {
        _tag: "Run",
        program: program(
          parsed.run,
          Option.match(parsed.logLevel, { onNone: () => LogLevel.Warning, onSome: (l) => levels[l] })
        )
      }
  }
}

/**
 * The exit code a command's program ended with: its value, 130 when it was interrupted, 2
 * when it failed.
 *
 * @since 0.1.0
 * @category running
 */
export const exitCodeOf = (exit: Exit.Exit<unknown, unknown>): number =>
  Exit.isSuccess(exit)
    ? Number(exit.value)
    : Cause.isInterruptedOnly(exit.cause)
    ? Io.exitCodes.interrupted
    : Io.exitCodes.failure

/** Runs a command's program as this process's main effect: SIGINT, SIGTERM or a closed stdout interrupt it. */
const runMain = (program: (stop: Effect.Effect<void>) => Effect.Effect<number>): void => {
  const stdoutClosed = Deferred.unsafeMake<void>(FiberId.none)
  process.stdout.on("error", () => Deferred.unsafeDone(stdoutClosed, Exit.void))
  NodeRuntime.runMain(program(Deferred.await(stdoutClosed)), {
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) => onExit(exitCodeOf(exit))
  })
}

/**
 * Runs the command line on the arguments after `ahp`.
 *
 * @since 0.1.0
 * @category running
 */
export const main = (argv: ReadonlyArray<string>): void => {
  const started = start(argv, { stdout: Style.colourFor(process.stdout), stderr: Style.colourFor(process.stderr) })
  if (started._tag === "Run") return runMain(started.program)
  ;(started.stream === "stdout" ? process.stdout : process.stderr).write(started.text)
  if (started.code !== Io.exitCodes.ok) process.exitCode = started.code
}
