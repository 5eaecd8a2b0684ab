/**
 * `ahp demo`: a scripted session through the example backends (see `@effect-ahp/tools/Demo`).
 *
 * @since 0.1.0
 */
import * as CommandLine from "../CommandLine.js"
import { auditOptions, type Command, interrupted, load } from "../internal/command.js"

/**
 * The command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command = CommandLine.make({
  name: "demo",
  summary: "Run a scripted agent session through the example backends and trace every boundary",
  exitCodes: [[0, "every decision is the expected one"], [1, "a decision differs from the expected one"], interrupted],
  options: {
    auditFile: CommandLine.optionalText(
      "audit-file",
      "FILE",
      "keep the audit log in this file",
      "default: a temporary file, removed"
    ),
    ...auditOptions
  },
  run: (options) => load(() => import("@effect-ahp/tools/Demo"), (m) => m.run(options))
})
