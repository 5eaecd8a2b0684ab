/**
 * `ahp bridge` as the command line runs it: the hook package's `Bridge.run` with the
 * command line's OpenTelemetry export; a bridge that cannot start says why on stderr and
 * exits with 2.
 *
 * @since 0.1.0
 */
import * as Bridge from "@effect-ahp/hook/Bridge"
import { Console, Effect } from "effect"
import * as Audit from "./Audit.js"
import * as Io from "./Io.js"

/**
 * Runs the bridge until interrupted.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: Bridge.BridgeOptions): Effect.Effect<void, never, Io.ExitCode> =>
  Bridge.run({ ...options, telemetry: options.telemetry ?? Audit.telemetry }).pipe(
    Effect.catchTag(
      "BridgeError",
      (error) => Effect.zipRight(Console.error(`ahp bridge: ${error.message}`), Io.exitWith(Io.exitCodes.failure))
    )
  )
