/**
 * Entry point of the `ahp` command line. Usage errors exit with 2.
 */
import { ValidationError } from "@effect/cli"
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { run } from "./Cli.js"

run(process.argv).pipe(
  Effect.catchIf(ValidationError.isValidationError, (error) =>
    Effect.sync(() => {
      process.exitCode = ValidationError.isHelpRequested(error) ? 0 : 2
    })),
  Effect.provide(NodeContext.layer),
  NodeRuntime.runMain({ disableErrorReporting: false })
)
