/**
 * `ahp serve`: an example policy backend over stdio or HTTP (see `@effect-ahp/tools/Serve`).
 *
 * @since 0.1.0
 */
import { exampleNames } from "@effect-ahp/tools/Examples"
import { Option } from "effect"
import * as CommandLine from "../CommandLine.js"
import { type Command, load } from "../internal/command.js"

/**
 * The command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command = CommandLine.make({
  name: "serve",
  summary: "Serve an example policy backend over stdio or HTTP",
  details: [
    "--stdio reads one JSON-RPC message per line on stdin and answers on stdout; --http PORT",
    "serves on 127.0.0.1 (0 picks a free port) and first prints `listening on <url>`."
  ],
  exitCodes: [
    [0, "stdin ended (--stdio)"],
    [2, "neither or both of --stdio and --http, or the port cannot be listened on"],
    [130, "stopped (Ctrl-C or SIGTERM)"]
  ],
  options: {
    stdio: CommandLine.flag("stdio", "serve over stdin/stdout (JSON lines)"),
    http: CommandLine.optionalInteger("http", "PORT", "serve over HTTP on this port", { min: 0 }),
    host: CommandLine.optionalText("host", "HOST", "the HTTP interface", "default: 127.0.0.1"),
    auditFile: CommandLine.optionalText(
      "audit-file",
      "FILE",
      "where the audit example appends its lines",
      "default: ahp-audit.jsonl"
    ),
    delayMs: CommandLine.integer("delay-ms", "MS", "how long the slow example waits", { min: 0, default: 2000 }),
    audit: CommandLine.optionalText(
      "audit",
      "FILE",
      "append the backend's own record of each call (event identity, latency, effects answered) to FILE"
    ),
    auditContent: CommandLine.flag("audit-content", "include each event in its record")
  },
  args: CommandLine.oneArgOf("EXAMPLE", exampleNames, "the example backend"),
  run: (options, name) =>
    load(() => import("@effect-ahp/tools/Serve"), (m) =>
      m.run({
        ...options,
        name,
        host: Option.getOrElse(options.host, () => "127.0.0.1"),
        auditFile: Option.getOrElse(options.auditFile, () => m.defaultOptions.auditFile)
      }))
})
