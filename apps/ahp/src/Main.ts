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
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodePath from "@effect/platform-node/NodePath"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import { Cause, Deferred, Effect, Exit, FiberId, Layer, Logger, LogLevel, Option, Ref } from "effect"
import * as Cli from "./Cli.js"
import * as CommandLine from "./CommandLine.js"
import * as Io from "./Io.js"
import * as Style from "./Style.js"

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

const runCommand = (run: Cli.Run, level: LogLevel.LogLevel): void => {
  const code = Ref.unsafeMake<number>(Io.exitCodes.ok)
  const stdoutClosed = Deferred.unsafeMake<void>(FiberId.none)
  process.stdout.on("error", () => Deferred.unsafeDone(stdoutClosed, Exit.void))
  const program = run.pipe(
    Effect.raceFirst(Deferred.await(stdoutClosed)),
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
  NodeRuntime.runMain(program, {
    disableErrorReporting: true,
    disablePrettyLogger: true,
    teardown: (exit, onExit) =>
      onExit(
        Exit.isSuccess(exit)
          ? Number(exit.value)
          : Cause.isInterruptedOnly(exit.cause)
          ? Io.exitCodes.interrupted
          : Io.exitCodes.failure
      )
  })
}

/**
 * Runs the command line on the arguments after `ahp`.
 *
 * @since 0.1.0
 * @category running
 */
export const main = (argv: ReadonlyArray<string>): void => {
  const parsed = CommandLine.parse(Cli.program.commands, argv)
  switch (parsed._tag) {
    case "Version":
      process.stdout.write(`${Cli.program.version}\n`)
      return
    case "Help":
      process.stdout.write(
        `${CommandLine.help(Cli.program, parsed.command, Style.style(Style.colourFor(process.stdout)))}\n`
      )
      return
    case "Usage": {
      const s = Style.style(Style.colourFor(process.stderr))
      process.stderr.write(
        `${
          parsed.message === undefined
            ? CommandLine.help(Cli.program, undefined, s)
            : CommandLine.usageError(Cli.program, parsed.command, parsed.message, s)
        }\n`
      )
      process.exitCode = Io.exitCodes.failure
      return
    }
    case "Run":
      return runCommand(
        parsed.run,
        Option.match(parsed.logLevel, { onNone: () => LogLevel.Warning, onSome: (l) => levels[l] })
      )
  }
}
