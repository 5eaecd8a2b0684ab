/**
 * `ahp validate`: validates AHP documents (see `@effect-ahp/tools/Validate`).
 *
 * @since 0.1.0
 */
import * as Validate from "@effect-ahp/tools/Validate"
import * as CommandLine from "../CommandLine.js"
import { type Command, interrupted, unusable } from "../internal/command.js"

/**
 * The command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command = CommandLine.make({
  name: "validate",
  summary: "Validate AHP registrations, wire messages and event files (.json, .jsonl)",
  details: [
    "Every problem is reported with its JSON Pointer; a .json file holds one document, a .jsonl file",
    "one message per line. The kind of each document is inferred unless --kind names it: a document",
    "with a \"type\" and no \"jsonrpc\" is an event file, as `ahp dispatch --event` reads it."
  ],
  exitCodes: [[0, "every file is valid"], [1, "a file is invalid"], [2, `${unusable}, not JSON`], interrupted],
  options: {
    kind: CommandLine.optionalChoice("kind", "KIND", Validate.kinds, "validate every file as this kind"),
    json: CommandLine.flag("json", "print one JSON object with every verdict")
  },
  args: CommandLine.atLeastOne("FILE", "the documents to validate"),
  run: ({ json, kind }, files) => Validate.run({ files, json, kind })
})
