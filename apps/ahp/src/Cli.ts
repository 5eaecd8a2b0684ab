/**
 * The `ahp` command line.
 *
 * @since 0.1.0
 */
import { Command } from "@effect/cli"
import * as Conformance from "./Conformance.js"
import * as Demo from "./Demo.js"
import * as Dispatch from "./Dispatch.js"
import * as Inspect from "./Inspect.js"
import * as Serve from "./Serve.js"
import * as Validate from "./Validate.js"

/**
 * The root command and its subcommands.
 *
 * @since 0.1.0
 * @category commands
 */
export const root = Command.make("ahp").pipe(
  Command.withDescription("Agent Hooks Protocol tools: validate, dispatch, inspect, serve, demo, conformance"),
  Command.withSubcommands([
    Validate.command,
    Dispatch.command,
    Inspect.command,
    Serve.command,
    Demo.command,
    Conformance.command
  ])
)

/**
 * Runs the command line on arguments (without the node and script paths).
 *
 * @since 0.1.0
 * @category running
 */
export const run = Command.run(root, { name: "ahp", version: "0.1.0" })
