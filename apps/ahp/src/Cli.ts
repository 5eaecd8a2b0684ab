/**
 * The `ahp` command line.
 *
 * @since 0.1.0
 */
import { Command } from "@effect/cli"
import { Effect } from "effect"
import * as Auth from "./Auth.js"
import * as Conformance from "./Conformance.js"
import * as Demo from "./Demo.js"
import * as Dispatch from "./Dispatch.js"
import * as Bridge from "./hook/Bridge.js"
import * as Hook from "./hook/Command.js"
import * as Inspect from "./Inspect.js"
import * as Io from "./Io.js"
import * as Serve from "./Serve.js"
import * as Validate from "./Validate.js"

/**
 * The root command and its subcommands.
 *
 * @since 0.1.0
 * @category commands
 */
export const root = Command.make("ahp").pipe(
  Command.withDescription("Agent Hooks Protocol tools: validate, dispatch, inspect, serve, demo, conformance, hook, bridge, auth"),
  Command.withSubcommands([
    Validate.command,
    Dispatch.command,
    Inspect.command,
    Serve.command,
    Demo.command,
    Conformance.command,
    Bridge.command,
    Auth.command,
    Command.make("hook").pipe(Command.withDescription("Run as a Claude Code or Codex hook (see `ahp hook --help`)"))
  ])
)

/**
 * Runs the command line on arguments (without the node and script paths).
 *
 * @since 0.1.0
 * @category running
 */
export const run = (argv: ReadonlyArray<string>) =>
  argv[2] === "hook"
    ? Effect.flatMap(Effect.promise(() => Hook.main(argv.slice(3), [process.execPath, argv[1]!, "hook"])), Io.exitWith)
    : cli(argv)

const cli = Command.run(root, { name: "ahp", version: "0.1.0" })
