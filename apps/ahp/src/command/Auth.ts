/**
 * `ahp auth login|logout|status`: OAuth logins for HTTP backends (see `@effect-ahp/tools/Auth`).
 *
 * @since 0.1.0
 */
import type { Action } from "@effect-ahp/tools/Auth"
import { didYouMean } from "@effect-ahp/tools/Suggest"
import * as Args from "@effect/cli/Args"
import * as HelpDoc from "@effect/cli/HelpDoc"
import { Effect } from "effect"
import * as CommandLine from "../CommandLine.js"
import { type Command, interrupted, load } from "../internal/command.js"

const actions = ["login", "logout", "status"] as const

const fail = (message: string) => Effect.fail(HelpDoc.p(message))

const action = CommandLine.atLeastOne("ACTION [BACKEND]", "login BACKEND, logout BACKEND or status").pipe(
  Args.mapEffect(([name, backend, ...rest]): Effect.Effect<Action, HelpDoc.HelpDoc> => {
    if (name !== "login" && name !== "logout" && name !== "status") {
      return fail(`ACTION must be one of ${actions.join(", ")}, got "${name}"${didYouMean(name ?? "", actions)}`)
    }
    const extra = name === "status" ? backend : rest[0]
    if (extra !== undefined) return fail(`unexpected argument "${extra}"`)
    if (name === "status") return Effect.succeed({ _tag: name })
    return backend === undefined ? fail(`${name} needs the BACKEND's id`) : Effect.succeed({ _tag: name, backend })
  })
)

/**
 * The command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command: Command = CommandLine.make({
  name: "auth",
  summary: "OAuth logins for HTTP backends: login BACKEND, logout BACKEND, status",
  details: [
    "login opens the browser (authorization code with PKCE, redirect to 127.0.0.1) and keeps the token in",
    "the per-user token file (AHP_OAUTH_TOKENS, else ahp/oauth-tokens.json under XDG_STATE_HOME or",
    "~/.local/state, mode 0600). A backend without an oauth binding needs --issuer and --client-id."
  ],
  exitCodes: [
    [0, "logged in, logged out, or the status printed"],
    [1, "the login failed, or logout found no login"],
    [2, "a usage error, a registration that cannot be read or used, or an unknown backend"],
    interrupted
  ],
  options: {
    registration: CommandLine.text("registration", "FILE", "the registration document (JSON)"),
    issuer: CommandLine.optionalText(
      "issuer",
      "URL",
      "for a backend without an oauth binding: the login client's issuer"
    ),
    clientId: CommandLine.optionalText(
      "client-id",
      "ID",
      "for a backend without an oauth binding: the login client's id"
    ),
    scope: CommandLine.optionalText("scope", "SCOPES", "space-separated scopes the login client may request"),
    timeout: CommandLine.integer("timeout", "SECONDS", "how long login waits for the browser's answer", {
      min: 1,
      default: 300
    }),
    noBrowser: CommandLine.flag("no-browser", "login only prints the URL to open")
  },
  args: action,
  run: (options, action) => load(() => import("@effect-ahp/tools/Auth"), (m) => m.run(options, action))
})
