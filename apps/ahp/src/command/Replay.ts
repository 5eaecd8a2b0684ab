/**
 * `ahp replay`: the events of a decision audit file, dispatched again (see `@effect-ahp/tools/Replay`).
 *
 * @since 0.1.0
 */
import { Effect } from "effect"
import * as CommandLine from "../CommandLine.js"
import { type Command, interrupted, load, unusable } from "../internal/command.js"

/**
 * The command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command = CommandLine.make({
  name: "replay",
  summary: "Re-dispatch the events of a decision audit file and report every decision that changed",
  details: [
    "Reads the records written with --audit-content (others are reported as skipped) line by line and",
    "dispatches each event through the registration (--registration, else $AHP_REGISTRATION_FILE, else",
    ".ahp/registration.json)."
  ],
  exitCodes: [
    [0, "no decision changed"],
    [1, "a decision changed"],
    [2, `an audit file or registration that cannot be used, or a line that is not an audit record; ${unusable}`],
    interrupted
  ],
  options: {
    registration: CommandLine.optionalText(
      "registration",
      "FILE",
      "the registration to replay against",
      "default: $AHP_REGISTRATION_FILE, else .ahp/registration.json"
    )
  },
  args: CommandLine.exactlyOne("AUDIT.jsonl", "the decision audit file (JSON Lines)"),
  run: (options, file) =>
    load(() => import("@effect-ahp/tools/Replay"), (m) => Effect.asVoid(m.run({ ...options, file })))
})
