/**
 * Entry point of the `ahp` command line. The program returns its exit code: the one the
 * command set (0 by default), 2 for a usage error, 1 for an unexpected failure. After a
 * signal the code the command set stands (130 for an interrupted dispatch).
 */
import { ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Effect, Exit, Logger, LogLevel, Ref } from "effect"
import { run } from "./Cli.js"
import { ExitCode } from "./Io.js"

const code = Ref.unsafeMake(0)

const program = run(process.argv).pipe(
  Effect.catchIf(ValidationError.isValidationError, (error) =>
    Ref.set(code, ValidationError.isHelpRequested(error) ? 0 : 2)),
  Effect.zipRight(Ref.get(code)),
  Effect.provideService(ExitCode, code),
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))),
  Logger.withMinimumLogLevel(LogLevel.Warning),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(program, {
  disableErrorReporting: false,
  teardown: (exit, onExit) => {
    const set = Effect.runSync(Ref.get(code))
    onExit(Exit.isSuccess(exit) ? Number(exit.value) : Cause.isInterruptedOnly(exit.cause) ? set : 1)
  }
})
