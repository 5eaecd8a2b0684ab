/**
 * `ahp inspect`: one message to one backend, classified (see `@effect-ahp/tools/Inspect`).
 *
 * @since 0.1.0
 */
import * as CommandLine from "../CommandLine.js"
import { type Command, interrupted, load, unusable } from "../internal/command.js"

/**
 * The command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command = CommandLine.make({
  name: "inspect",
  summary: "Send one message to one backend and classify what came back",
  details: [
    "Classifies the answer as no-effect, deny, effects or failure (observe mode: delivered or",
    "not-delivered), with timings (a stdio backend's exchange includes starting its process);",
    "credentials are redacted."
  ],
  exitCodes: [
    [0, "the backend answered validly, or took the notification"],
    [1, "the backend failed (timeout, crash, malformed answer, …) or did not take the notification"],
    [2, `an invalid backend or event; ${unusable}`],
    interrupted
  ],
  options: {
    backend: CommandLine.text("backend", "FILE", "one backend of a registration, or a registration (JSON)"),
    event: CommandLine.text("event", "FILE", "the event to send: {\"type\": …, …the event's fields} (JSON)"),
    id: CommandLine.optionalText("id", "ID", "the backend to pick from a registration with several"),
    mode: CommandLine.choice(
      "mode",
      "MODE",
      ["intercept", "observe"] as const,
      "send a hooks/intercept request or a hooks/observe notification",
      "intercept"
    ),
    timeout: CommandLine.optionalInteger("timeout", "MS", "the deadline in milliseconds", {
      min: 1,
      note: "default: the subscription's, else 5000"
    }),
    json: CommandLine.flag("json", "print the report as one JSON object")
  },
  run: (options) => load(() => import("@effect-ahp/tools/Inspect"), (m) => m.run(options))
})
