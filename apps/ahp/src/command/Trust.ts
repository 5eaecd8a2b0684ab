/**
 * `ahp trust [FILE…]`: trusts project registrations for `ahp hook`, lists or revokes them
 * (see `@effect-ahp/tools/TrustRegistrations`).
 *
 * @since 0.1.0
 */
import * as Args from "@effect/cli/Args"
import * as CommandLine from "../CommandLine.js"
import { type Command, interrupted, load, unusable } from "../internal/command.js"

/**
 * The command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command = CommandLine.make({
  name: "trust",
  summary: "Trust a project registration so that `ahp hook` may run it; list or revoke trusted ones",
  details: [
    "A project's .ahp/registration.json runs only once you trusted its exact text: the SHA-256 is kept in",
    "ahp/trusted-registrations.json under XDG_STATE_HOME or ~/.local/state (mode 0600). A change to the",
    "file untrusts it; until then the hook uses your own ~/.ahp/registration.json and tells you why."
  ],
  exitCodes: [
    [0, "the files were trusted or revoked, or the list printed"],
    [1, "--revoke named a file that was not trusted"],
    [2, `a file that cannot be trusted (not yours alone), a trust file that cannot be written; ${unusable}`],
    interrupted
  ],
  options: {
    list: CommandLine.flag("list", "list the trusted registrations and whether each is unchanged"),
    revoke: CommandLine.flag("revoke", "forget the files instead of trusting them")
  },
  args: Args.text({ name: "FILE" }).pipe(
    Args.withDescription("the registrations to trust (or, with --revoke, to forget)"),
    Args.repeated
  ),
  run: (options, files) =>
    load(() => import("@effect-ahp/tools/TrustRegistrations"), (m) => m.run({ ...options, files }))
})
