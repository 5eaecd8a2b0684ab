/**
 * `ahp bridge`: the warm path for Claude Code and Codex hooks (see `@effect-ahp/hook/Bridge`).
 *
 * @since 0.1.0
 */
import { Option } from "effect"
import * as CommandLine from "../CommandLine.js"
import { auditOptions, type Command, load } from "../internal/command.js"

/**
 * The command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command = CommandLine.make({
  name: "bridge",
  summary: "Keep a registration's backends running and answer Claude Code and Codex hooks fast",
  details: [
    "Holds the backends warm across tool calls. `ahp hook` forwards to it over a local socket it finds",
    "from the registration's path; --http PORT also serves Claude Code's http hook type at",
    "/hooks/claude-code. The registration is looked up as `ahp hook` does and reloaded when it changes."
  ],
  exitCodes: [
    [
      2,
      "a usage error, no registration found, a socket or port that cannot be listened on, or an audit file that cannot be opened"
    ],
    [130, "stopped (Ctrl-C or SIGTERM)"]
  ],
  options: {
    registration: CommandLine.optionalText(
      "registration",
      "FILE",
      "the registration",
      "default: looked up as `ahp hook` does"
    ),
    http: CommandLine.optionalInteger(
      "http",
      "PORT",
      "also serve Claude Code's http hook type on this port (0 picks a free one)",
      { min: 0 }
    ),
    host: CommandLine.optionalText("host", "HOST", "the HTTP interface", "default: 127.0.0.1"),
    socket: CommandLine.optionalText(
      "socket",
      "PATH",
      "the local socket",
      "default: the one `ahp hook` looks for, from the registration's path"
    ),
    noSocket: CommandLine.flag("no-socket", "do not listen on a local socket"),
    verbose: CommandLine.flag("verbose", "log a trace of every call on stderr"),
    ...auditOptions
  },
  run: (options) =>
    load(
      () => import("@effect-ahp/tools/Bridge"),
      (m) => m.run({ ...options, host: Option.getOrElse(options.host, () => "127.0.0.1") })
    )
})
