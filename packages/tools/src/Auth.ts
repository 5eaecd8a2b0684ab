/**
 * `ahp auth login BACKEND`, `ahp auth logout BACKEND` and `ahp auth status`, each with
 * `--registration REG.json`: interactive OAuth logins (authorization code with PKCE) for the
 * registration's HTTP backends, kept in the per-user token file (`AHP_OAUTH_TOKENS`, or
 * `ahp/oauth-tokens.json` under `XDG_STATE_HOME` or `HOME/.local/state`, mode 0600).
 *
 * A backend with an `oauth` binding whose flow is `authorization_code_pkce` needs nothing
 * more. A backend without a binding is discovered (RFC 9728) and needs the login client:
 * `--issuer URL --client-id ID [--scope "S …"]`. `login` prints the authorization URL on
 * stderr and opens the browser (not with `--no-browser`), then waits for the redirect on
 * 127.0.0.1 (`--timeout` seconds, 300 by default). Tokens are never printed.
 *
 * Exit codes: 0 on success; 1 when the login (or the token file) fails, or `logout` finds
 * no login; 2 for a registration that cannot be read or used and for an unknown backend,
 * printed as the documented failure objects.
 *
 * @since 0.1.0
 */
import { Credentials, HttpTransport, OAuthLogin, TokenStore } from "@effect-ahp/node"
import { Decoder, Registration } from "@effect-ahp/protocol"
import type * as FileSystem from "@effect/platform/FileSystem"
import { Console, Effect, Either, Layer, Option } from "effect"
import * as Io from "./Io.js"

/**
 * What every subcommand takes: the registration and, for backends found by discovery, the
 * login client.
 *
 * @since 0.1.0
 * @category models
 */
export interface Common {
  readonly registration: string
  readonly issuer: Option.Option<string>
  readonly clientId: Option.Option<string>
  readonly scopes: ReadonlyArray<string>
}

/**
 * The services the subcommands use.
 *
 * @since 0.1.0
 * @category models
 */
export type Services =
  | OAuthLogin.Browser
  | TokenStore.TokenStore
  | HttpTransport.Dispatcher
  | Credentials.CredentialResolver
  | FileSystem.FileSystem
  | Io.ExitCode

const decodeRegistration = Decoder.lazy(() => Decoder.make(Registration.Registration))

const readBackends = (file: string) =>
  Effect.flatMap(Io.readJson(file, "registration"), (value) =>
    Either.match(decodeRegistration(value), {
      onLeft: (issues) =>
        Effect.fail(
          new Io.ConfigError({
            file,
            issues: issues.map((i) => ({ code: "invalid", path: i.path, message: i.message }))
          })
        ),
      onRight: (registration) => Effect.succeed(registration.hooks)
    }))

const findBackend = (file: string, id: string) =>
  Effect.flatMap(readBackends(file), (backends) => {
    const backend = backends.find((b) => b.id === id)
    return backend === undefined
      ? Effect.fail(
        new Io.ConfigError({
          file,
          issues: [{ code: "unknown-backend", path: "/hooks", message: `the registration has no backend ${id}` }]
        })
      )
      : Effect.succeed(backend)
  })

const optionsOf = (common: Common, timeoutSeconds?: number): OAuthLogin.Options => ({
  clients: Option.isSome(common.issuer) && Option.isSome(common.clientId)
    ? [{
      issuer: common.issuer.value,
      clientId: common.clientId.value,
      flow: "authorization_code_pkce",
      scopes: common.scopes
    }]
    : [],
  ...(timeoutSeconds === undefined ? {} : { timeout: `${timeoutSeconds} seconds` as const })
})

const expiry = (expiresAt: number | undefined) =>
  expiresAt === undefined ? "does not say when it expires" : `is used until ${new Date(expiresAt).toISOString()}`

const failed = (message: string) => Effect.zipRight(Console.error(message), Io.exitWith(1))

const reported = <R>(self: Effect.Effect<void, Io.InputError | Io.ConfigError | OAuthLogin.LoginError, R>) =>
  Effect.catchAll(self, (error) => error._tag === "LoginError" ? failed(error.message) : Io.reportFailure(error))

/**
 * `ahp auth login BACKEND`: logs in and stores the token.
 *
 * @since 0.1.0
 * @category running
 */
export const login = (
  options: Common & { readonly backend: string; readonly timeoutSeconds: number }
): Effect.Effect<
  void,
  never,
  OAuthLogin.Browser | TokenStore.TokenStore | HttpTransport.Dispatcher | Credentials.CredentialResolver | Io.ExitCode
> =>
  reported(Effect.gen(function*() {
    const backend = yield* findBackend(options.registration, options.backend)
    const done = yield* OAuthLogin.login(backend, optionsOf(options, options.timeoutSeconds))
    const key = done.target.key
    yield* Console.log(
      `logged in for ${backend.id} (issuer ${key.issuer}, resource ${key.resource}, client ${key.clientId}); the token ${
        expiry(done.expiresAt)
      }${done.refreshable ? " and is refreshed when it expires" : ""}`
    )
  }))

/**
 * `ahp auth logout BACKEND`: removes the backend's stored logins.
 *
 * @since 0.1.0
 * @category running
 */
export const logout = (options: Common & { readonly backend: string }) =>
  reported(Effect.gen(function*() {
    const backend = yield* findBackend(options.registration, options.backend)
    const removed = yield* OAuthLogin.logout(backend, optionsOf(options))
    if (removed === 0) return yield* failed(`there is no login for ${backend.id}`)
    yield* Console.log(`logged out of ${backend.id}`)
  }))

/**
 * `ahp auth status`: one line per HTTP backend: its logins, or none.
 *
 * @since 0.1.0
 * @category running
 */
export const status = (options: Common) =>
  reported(Effect.gen(function*() {
    const backends = (yield* readBackends(options.registration)).filter((b) => b.transport.type === "http")
    if (backends.length === 0) {
      return yield* Console.log(`${options.registration} has no HTTP backend: there is nothing to log in to`)
    }
    const logins = yield* OAuthLogin.status(backends, optionsOf(options))
    const now = Date.now()
    for (const backend of backends) {
      const mine = logins.filter((l) => l.backend === backend.id)
      if (mine.length === 0) yield* Console.log(`${backend.id}: not logged in`)
      for (const l of mine) {
        const state = l.expiresAt === undefined || l.expiresAt > now
          ? "logged in"
          : l.refreshable
          ? "logged in (expired; refreshed at the next call)"
          : "expired: log in again"
        yield* Console.log(`${backend.id}: ${state} (issuer ${l.key.issuer}, client ${l.key.clientId})`)
      }
    }
  }))

/**
 * The browser of the command line: the URL is printed on stderr, then (unless `print`
 * only) the system browser is asked to open it; a browser that cannot be started leaves the
 * printed URL to the user.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerBrowser = (printOnly: boolean): Layer.Layer<OAuthLogin.Browser> =>
  Layer.succeed(
    OAuthLogin.Browser,
    OAuthLogin.Browser.of({
      open: (url) =>
        Effect.zipRight(
          Console.error(`Open this URL in a browser to log in:\n  ${url}`),
          printOnly
            ? Effect.void
            : Effect.flatMap(OAuthLogin.Browser, (system) => Effect.ignore(system.open(url))).pipe(
              Effect.provide(OAuthLogin.layerBrowserSystem)
            )
        )
    })
  )

/**
 * The platform services of the subcommands (the file system and exit code come from `bin`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  printOnly: boolean
): Layer.Layer<
  OAuthLogin.Browser | TokenStore.TokenStore | HttpTransport.Dispatcher | Credentials.CredentialResolver
> =>
  Layer.mergeAll(
    layerBrowser(printOnly),
    TokenStore.layerConfig(),
    HttpTransport.layerDispatcher,
    Credentials.layerEnv()
  )

/**
 * What `ahp auth` is given: its options, then `login BACKEND`, `logout BACKEND` or `status`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Invocation {
  readonly registration: string
  readonly issuer: Option.Option<string>
  readonly clientId: Option.Option<string>
  /** Space-separated scopes the login client may request. */
  readonly scope: Option.Option<string>
  readonly timeout: number
  readonly noBrowser: boolean
}

/**
 * What `ahp auth` is asked to do (the command line checks the words: `login BACKEND`,
 * `logout BACKEND` or `status`).
 *
 * @since 0.1.0
 * @category models
 */
export type Action =
  | { readonly _tag: "login" | "logout"; readonly backend: string }
  | { readonly _tag: "status" }

/**
 * Runs `ahp auth ACTION [BACKEND]`.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: Invocation, action: Action) => {
  const common: Common = {
    registration: options.registration,
    issuer: options.issuer,
    clientId: options.clientId,
    scopes: Option.match(options.scope, {
      onNone: () => [],
      onSome: (text) => text.split(/\s+/).filter((s) => s !== "")
    })
  }
  switch (action._tag) {
    case "status":
      return Effect.provide(status(common), layer(true))
    case "login":
      return Effect.provide(
        login({ ...common, backend: action.backend, timeoutSeconds: options.timeout }),
        layer(options.noBrowser)
      )
    case "logout":
      return Effect.provide(logout({ ...common, backend: action.backend }), layer(true))
  }
}
