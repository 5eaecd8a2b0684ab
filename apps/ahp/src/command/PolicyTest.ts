/**
 * `ahp test`: policy test cases against the real backends (see `@effect-ahp/tools/PolicyTest`).
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
  name: "test",
  summary: "Run policy test cases against the real backends; print a pass/fail table",
  details: [
    "A case file holds a registration (inline, or a path relative to the case file), an event (or a",
    "host and its hook payload) and what to expect: decision, event parts, messages, failure codes.",
    "Each failure is shown as a diff of the differing paths; --record writes the outcomes as expectations."
  ],
  exitCodes: [
    [0, "every case passed (or, with --record, every case was recorded)"],
    [1, "a case failed"],
    [2, `a case file that cannot be read or is not a valid case, or a JUnit file that cannot be written; ${unusable}`],
    interrupted
  ],
  options: {
    junit: CommandLine.optionalText("junit", "FILE", "also write the results as JUnit XML to FILE"),
    record: CommandLine.flag("record", "write each case's current outcome as its expectation (rewrites the files)")
  },
  args: CommandLine.atLeastOne("FILE", "the case files (JSON)"),
  run: (options, files) =>
    load(() => import("@effect-ahp/tools/PolicyTest"), (m) => Effect.asVoid(m.run({ ...options, files })))
})
