/**
 * The `ahp` program: its commands (each declared in its own module under `command/`) and
 * the exit-code convention they share. A command's implementation is imported only when
 * that command runs, so `ahp validate` loads neither the harness nor the transports, and
 * `ahp serve` not the harness.
 *
 * @since 0.1.0
 */
import packageJson from "../package.json" with { type: "json" }
import * as Auth from "./command/Auth.js"
import * as Bridge from "./command/Bridge.js"
import * as Conformance from "./command/Conformance.js"
import * as Demo from "./command/Demo.js"
import * as Dispatch from "./command/Dispatch.js"
import * as Hook from "./command/Hook.js"
import * as Inspect from "./command/Inspect.js"
import * as PolicyTest from "./command/PolicyTest.js"
import * as Replay from "./command/Replay.js"
import * as Serve from "./command/Serve.js"
import * as Trust from "./command/Trust.js"
import * as Validate from "./command/Validate.js"
import * as Command from "./internal/command.js"

/**
 * What a parsed command line runs: sets the exit code, never fails.
 *
 * @since 0.1.0
 * @category models
 */
export type Run = Command.Run

/**
 * The example backends `ahp serve` knows.
 *
 * @since 0.1.0
 * @category models
 */
export { type ExampleName, exampleNames } from "@effect-ahp/tools/Examples"

/**
 * The program: its commands and the exit-code convention they share.
 *
 * @since 0.1.0
 * @category commands
 */
export const program: Command.Program = {
  name: "ahp",
  version: packageJson.version,
  summary: "Agent Hooks Protocol tools",
  commands: [
    Validate.command,
    Dispatch.command,
    Inspect.command,
    Serve.command,
    Demo.command,
    PolicyTest.command,
    Replay.command,
    Conformance.command,
    Hook.command,
    Bridge.command,
    Auth.command,
    Trust.command
  ],
  exitCodes: [
    [0, "the command did its job (a deny decision included)"],
    [1, "it ran and found problems in its subject: invalid documents, failing checks, a failing backend"],
    [2, "it could not do what was asked: usage error, unreadable file, not JSON, invalid registration or event"],
    Command.interrupted
  ]
}
