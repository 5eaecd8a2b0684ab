/**
 * `ahp dispatch`: one boundary call through the real harness (see `@effect-ahp/tools/Dispatch`).
 *
 * @since 0.1.0
 */
import * as CommandLine from "../CommandLine.js"
import { auditOptions, type Command, load, unusable } from "../internal/command.js"

/**
 * The command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command = CommandLine.make({
  name: "dispatch",
  summary: "Run one boundary call through the real harness and transports; print the result as JSON",
  details: [
    "Starts the registered backends, sends them the event, settles the decision, delivers the",
    "observations, stops every process it started, and prints one JSON object on stdout (logs go to",
    "stderr). id, time and source are filled in when the event has none."
  ],
  exitCodes: [
    [0, "the call completed, whatever the decision (a deny included)"],
    [2, `an invalid registration, event, grant or state (the JSON on stdout says which); ${unusable}`],
    [130, "interrupted: the result is printed with \"interrupted\": true after every backend is stopped"]
  ],
  options: {
    registration: CommandLine.text("registration", "FILE", "the registration document (JSON)"),
    event: CommandLine.text("event", "FILE", "the boundary input: {\"type\": …, …the event's fields} (JSON)"),
    capabilities: CommandLine.optionalText(
      "capabilities",
      "FILE",
      "the host's grant: a capability manifest, or a map from event type to capabilities",
      "default: everything each boundary permits"
    ),
    state: CommandLine.optionalText("state", "FILE", "the pending state before the first interceptor (JSON)"),
    elicitationSchema: CommandLine.optionalText(
      "elicitation-schema",
      "FILE",
      "the form schema an edit of an elicitation answer must satisfy (JSON)"
    ),
    source: CommandLine.optionalText(
      "source",
      "URI",
      "the harness URI for an event without source",
      "default: urn:effect-ahp:harness"
    ),
    observationTimeoutMs: CommandLine.integer(
      "observation-timeout",
      "MS",
      "the bound of each observation delivery, in milliseconds",
      { min: 1, default: 5000 }
    ),
    noWaitObservers: CommandLine.flag(
      "no-wait-observers",
      "print the result once the decision is settled (observations still complete before exit)"
    ),
    ...auditOptions,
    pretty: CommandLine.flag("pretty", "indent the JSON output")
  },
  run: (options) => load(() => import("@effect-ahp/tools/Dispatch"), (m) => m.main(options))
})
