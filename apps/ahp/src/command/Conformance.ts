/**
 * `ahp conformance`: the official AHP fixtures (see `@effect-ahp/tools/Conformance`).
 *
 * @since 0.1.0
 */
import * as CommandLine from "../CommandLine.js"
import { type Command, interrupted, load } from "../internal/command.js"

/**
 * The command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command = CommandLine.make({
  name: "conformance",
  summary: "Run the official AHP fixtures and print a summary table",
  exitCodes: [
    [0, "every check passes"],
    [1, "a check fails"],
    [2, "no fixtures found, or unreadable ones"],
    interrupted
  ],
  options: {
    fixtures: CommandLine.optionalText(
      "fixtures",
      "DIR",
      "the official data folder holding fixtures/draft/manifest.json",
      "default: ../shared/ahp"
    ),
    json: CommandLine.flag("json", "print the summary as one JSON object")
  },
  run: (options) => load(() => import("@effect-ahp/tools/Conformance"), (m) => m.run(options))
})
