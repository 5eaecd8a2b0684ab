/**
 * Entry point of the `ahp` command line. The program returns its exit code: the one the
 * command set (0 by default), 2 for a usage error, 1 for an unexpected failure (logged on
 * stderr). After a signal the code the command set stands (130 for an interrupted
 * dispatch). Logs always go to stderr: stdout carries only the commands' output.
 */
import { ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Cause, Deferred, Effect, Exit, FiberId, Logger, LogLevel, Ref } from "effect"
import { run } from "./Cli.js"
import { ExitCode } from "./Io.js"

const code = Ref.unsafeMake(0)

// A closed stdout (`ahp demo | head`) ends the program as a signal would: whatever it
// started is stopped before it exits.
const stdoutClosed = Deferred.unsafeMake<void>(FiberId.none)
process.stdout.on("error", () => Deferred.unsafeDone(stdoutClosed, Exit.void))

const program = run(process.argv).pipe(
  Effect.raceFirst(Deferred.await(stdoutClosed)),
  Effect.catchIf(ValidationError.isValidationError, (error) =>
    Ref.set(code, ValidationError.isHelpRequested(error) ? 0 : 2)),
  Effect.catchAllCause((cause) => Effect.zipRight(Effect.logError("ahp failed", cause), Ref.set(code, 1))),
  Effect.zipRight(Ref.get(code)),
  Effect.provideService(ExitCode, code),
  Effect.provide(Logger.replace(Logger.defaultLogger, Logger.withConsoleError(Logger.logfmtLogger))),
  Logger.withMinimumLogLevel(LogLevel.Warning),
  Effect.provide(NodeContext.layer)
)

NodeRuntime.runMain(program, {
  disableErrorReporting: true,
  disablePrettyLogger: true,
  teardown: (exit, onExit) =>
    onExit(
      Exit.isSuccess(exit)
        ? Number(exit.value)
        : Cause.isInterruptedOnly(exit.cause)
        ? Effect.runSync(Ref.get(code))
        : 1
    )
})
