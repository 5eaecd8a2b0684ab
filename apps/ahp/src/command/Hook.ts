/**
 * `ahp hook …`: the Claude Code and Codex command hook, declared here for its help. The
 * hook parses its own arguments (`@effect-ahp/hook/Args`, no command-line library: it runs on
 * every tool call), so every word after `hook` is handed to it as it is; `-h` and `--help`
 * show this help (the launcher hands them to the command line, `../bin.ts`).
 *
 * @since 0.1.0
 */
import * as Args from "@effect-ahp/hook/Args"
import * as Io from "@effect-ahp/tools/Io"
import { Effect } from "effect"
import * as CommandLine from "../CommandLine.js"
import { type Command, load } from "../internal/command.js"

/**
 * The command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command = CommandLine.external({
  name: "hook",
  summary: "Run as a Claude Code or Codex command hook; install or uninstall it in the host's settings",
  help: Args.synopsis,
  helpAfter: true,
  options: {
    registration: CommandLine.optionalText(
      "registration",
      "FILE",
      "the registration",
      "else $AHP_REGISTRATION_FILE, else .ahp/registration.json in the project or a parent folder, else ~/.ahp/registration.json"
    ),
    timeout: CommandLine.optionalText(
      "timeout",
      "SECONDS",
      "the timeout the host's settings give this hook; the hook answers before it"
    ),
    failClosed: CommandLine.flag(
      "fail-closed",
      "deny blocking events when the registration is missing or unusable (also $AHP_HOOK_FAIL_CLOSED=1)"
    ),
    source: CommandLine.optionalText("source", "URI", "the source of the events", "default: urn:effect-ahp:<host>"),
    verbose: CommandLine.flag(
      "verbose",
      "a one-line trace per backend and the decision on stderr (also $AHP_HOOK_VERBOSE=1)"
    ),
    noBridge: CommandLine.flag("no-bridge", "never forward to a running `ahp bridge` (also $AHP_BRIDGE=0)"),
    audit: CommandLine.optionalText(
      "audit",
      "FILE",
      "append the call's decision audit record to FILE (JSON Lines); the call is then settled by this hook, not forwarded to a bridge"
    ),
    auditContent: CommandLine.flag("audit-content", "include the event in the audit record (to replay the call)"),
    project: CommandLine.flag("project", "install into the project's settings (the default)"),
    user: CommandLine.flag("user", "install into the user's settings"),
    settings: CommandLine.optionalText("settings", "FILE", "the settings file to edit instead"),
    command: CommandLine.optionalText("command", "CMD", "the command the installed entries run", "default: this ahp"),
    bridgeHttp: CommandLine.optionalText(
      "bridge-http",
      "PORT",
      "install Claude Code's http hook entries posting to `ahp bridge --http PORT` (SessionStart keeps the command hook)"
    )
  },
  exitCodes: [
    [0, "the hook call was answered (whatever the decision, or no opinion), or the settings were updated"],
    [1, "doctor: the hooks are not installed here, or the registration they would use is missing or not used"],
    [2, "a usage error, or a settings file that cannot be read as a JSON object or written"]
  ],
  run: (argv) =>
    load(() => import("@effect-ahp/hook/Command"), (m) =>
      Effect.flatMap(
        Effect.promise(() =>
          m.main(argv, [process.execPath, process.argv[1] ?? "ahp", "hook"], () =>
            import("../internal/cold.js").then((c) => c.cold()))
        ),
        Io.exitWith
      ))
})
