/**
 * Interactive OAuth login (`authorization_code_pkce`) for a person's harness: what
 * `ahp auth login`, `ahp auth logout` and `ahp auth status` do.
 *
 * `login` finds what to log in to — the backend's `oauth` binding, or, for an HTTP backend
 * without a binding, protected-resource discovery (a credential-free `hooks/capabilities`
 * request whose `401` leads to RFC 9728 metadata, and the first authorization server it
 * names for which an `authorization_code_pkce` client is configured). It then discovers the
 * issuer's metadata (exact issuer, PKCE `S256` advertised), listens for the redirect on
 * `127.0.0.1` at an ephemeral port (RFC 8252 loopback redirect), opens the authorization
 * URL through the `Browser` service, checks the `state` of the redirect, exchanges the code
 * with its PKCE verifier for a token bound to the resource (RFC 8707) and stores it in the
 * `TokenStore` under issuer, resource and client. The listener is closed when the login
 * ends, however it ends; the login gives up after `timeout` (5 minutes by default).
 *
 * At dispatch, `HttpAuth` uses the stored token and refreshes it once it has expired.
 *
 * @since 0.1.0
 */
import type { Registration } from "@effect-ahp/protocol"
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Runtime from "effect/Runtime"
import * as Schema from "effect/Schema"
import * as childProcess from "node:child_process"
import * as crypto from "node:crypto"
import * as nodeHttp from "node:http"
import type * as net from "node:net"
import * as Credentials from "./Credentials.js"
import type * as HttpAuth from "./HttpAuth.js"
import * as HttpTransport from "./HttpTransport.js"
import * as http from "./internal/http.js"
import * as oauth from "./internal/oauth.js"
import * as TokenStore from "./TokenStore.js"

/**
 * Why a login (or finding what to log in to) failed. The detail holds no token, secret or
 * server text.
 *
 * @since 0.1.0
 * @category errors
 */
export class LoginError extends Schema.TaggedError<LoginError>("@effect-ahp/node/LoginError")("LoginError", {
  backend: Schema.String,
  reason: Schema.Literal("unsupported", "discovery", "browser", "denied", "state", "timeout", "token", "store"),
  detail: Schema.String
}) {
  override get message(): string {
    return `login for backend ${this.backend} failed (${this.reason}): ${this.detail}`
  }
}

/**
 * Opens a URL in the user's browser.
 *
 * @since 0.1.0
 * @category tags
 */
export class Browser extends Context.Tag("@effect-ahp/node/OAuthLogin/Browser")<Browser, {
  readonly open: (url: string) => Effect.Effect<void, LoginError>
}>() {}

/**
 * The system's browser: `open` on macOS, `rundll32 url.dll` on Windows, `xdg-open`
 * elsewhere, started detached. A launcher that cannot be started is a `browser` error.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerBrowserSystem: Layer.Layer<Browser> = Layer.succeed(
  Browser,
  Browser.of({
    open: (url) =>
      Effect.async<void, LoginError>((resume) => {
        const [command, args] = process.platform === "darwin"
          ? ["open", [url]]
          : process.platform === "win32"
          ? ["rundll32", ["url.dll,FileProtocolHandler", url]]
          : ["xdg-open", [url]]
        const child = childProcess.spawn(command, args, { stdio: "ignore", detached: true })
        child.once("error", () =>
          resume(
            Effect.fail(new LoginError({ backend: "", reason: "browser", detail: `${command} could not be started` }))
          ))
        child.once("spawn", () => {
          child.unref()
          resume(Effect.void)
        })
      })
  })
)

/**
 * Options of `login`, `logout` and `status`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends HttpAuth.Options {
  /** How long the login waits for the redirect (5 minutes by default). */
  readonly timeout?: Duration.DurationInput | undefined
}

/**
 * What a login is for: issuer, resource and client, the scopes it asks for and the client
 * secret's reference (a confidential client).
 *
 * @since 0.1.0
 * @category models
 */
export interface Target {
  readonly backend: string
  readonly key: TokenStore.Key
  readonly scopes: ReadonlyArray<string>
  readonly clientSecretRef: string | undefined
}

/**
 * The outcome of a login: what the token is for and when it expires; never the token.
 *
 * @since 0.1.0
 * @category models
 */
export interface LoggedIn {
  readonly target: Target
  readonly expiresAt: number | undefined
  readonly refreshable: boolean
}

const configOf = (dispatcher: HttpTransport.Dispatcher["Type"], options: Options): oauth.OAuthConfig => ({
  dispatcher,
  maxMetadataBytes: options.maxMetadataBytes ?? 64 * 1024,
  refreshMargin: Duration.decode(options.tokenRefreshMargin ?? Duration.seconds(30)),
  tokenEndpointOrigins: oauth.originsOf(options.tokenEndpointOrigins ?? []),
  resolve: options.lookupHost
})

const pkceClients = (options: Options) => (options.clients ?? []).filter((c) => c.flow === "authorization_code_pkce")

const unsupported = (backend: string, detail: string) => new LoginError({ backend, reason: "unsupported", detail })

/**
 * What a backend's login is for: its `oauth` binding with `authorization_code_pkce`, or, for
 * an HTTP backend without a binding, what discovery finds (which sends one credential-free
 * `hooks/capabilities` request). Other bindings and transports need no login.
 *
 * @since 0.1.0
 * @category constructors
 */
export const target = (
  backend: Registration.Backend,
  options: Options = {}
): Effect.Effect<Target, LoginError, HttpTransport.Dispatcher> =>
  Effect.gen(function*() {
    const auth = backend.authentication
    if (backend.transport.type !== "http") return yield* unsupported(backend.id, "only HTTP backends use OAuth")
    if (auth?.type === "bearer") return yield* unsupported(backend.id, "the backend uses a bearer token, not a login")
    if (auth?.type === "oauth") {
      if (auth.flow !== "authorization_code_pkce") {
        return yield* unsupported(backend.id, "the backend uses OAuth client credentials, which need no login")
      }
      return {
        backend: backend.id,
        key: { issuer: auth.issuer, resource: auth.resource, clientId: auth.clientId },
        scopes: auth.scopes ?? [],
        clientSecretRef: auth.clientSecretRef
      }
    }
    const config = configOf(yield* HttpTransport.Dispatcher, options)
    const discovery = (error: { readonly detail: string }) =>
      new LoginError({ backend: backend.id, reason: "discovery", detail: error.detail })
    const url = yield* Effect.mapError(http.checkTarget(backend.transport.url, "backend"), discovery)
    const probe = yield* Effect.mapError(
      http.exchange(
        config.dispatcher,
        {
          url,
          method: "POST",
          headers: { "content-type": "application/json", accept: "application/json" },
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: "ahp-auth-login",
            method: "hooks/capabilities",
            params: { protocolVersion: "draft" }
          })
        },
        config.maxMetadataBytes,
        "backend"
      ),
      discovery
    )
    if (probe.status !== 401) {
      return yield* unsupported(backend.id, `the endpoint did not ask for authentication (HTTP ${probe.status})`)
    }
    const challenge = oauth.parseChallenges(probe.headers["www-authenticate"])
    const resource = yield* Effect.mapError(oauth.discoverResource(config, url, challenge), discovery)
    const selected = yield* Either.mapLeft(
      oauth.selectClient(resource, challenge, pkceClients(options)),
      (detail) => new LoginError({ backend: backend.id, reason: "discovery", detail })
    )
    return {
      backend: backend.id,
      key: selected.key,
      scopes: selected.scopes,
      clientSecretRef: selected.client.clientSecretRef
    }
  })

const base64url = (bytes: Buffer): string => bytes.toString("base64url")

/** The redirect's query parameters, once one with the right state arrived. */
type Redirect = { readonly code: string } | { readonly error: string }

/**
 * A listener on 127.0.0.1 at an ephemeral port for the redirect to `/callback`, closed
 * with the scope. The first redirect decides: a wrong `state` fails with `state`, an
 * `error` parameter with `denied`; later ones are refused (409). Other paths get 404, and
 * what is not the browser's top-level redirect — a request carrying an `Origin` (403) or a
 * `Host` other than the listener's own address (421, DNS rebinding) — is refused; all of
 * these are ignored. Answers never redirect.
 */
const listen = (backend: string, state: string) =>
  Effect.gen(function*() {
    const received = yield* Deferred.make<Redirect, LoginError>()
    const runtime = yield* Effect.runtime<never>()
    const complete = (result: Effect.Effect<Redirect, LoginError>) =>
      Runtime.runSync(runtime)(Deferred.complete(received, result))
    let decided = false
    const server = yield* Effect.acquireRelease(
      Effect.async<nodeHttp.Server, LoginError>((resume) => {
        const server = nodeHttp.createServer((req, res) => {
          const url = new URL(req.url ?? "/", "http://127.0.0.1")
          if (req.method !== "GET" || url.pathname !== "/callback") return void res.writeHead(404).end()
          const answer = (status: number, text: string) =>
            res.writeHead(status, { "content-type": "text/plain; charset=utf-8", connection: "close" }).end(text)
          if (req.headers.origin !== undefined) return answer(403, "Refused: a request from a web page.")
          if (req.headers.host !== `127.0.0.1:${(server.address() as net.AddressInfo).port}`) {
            return answer(421, "Refused: not addressed to this listener.")
          }
          if (decided) return answer(409, "This login is already over. You can close this window.")
          decided = true
          const params = url.searchParams
          if (params.get("state") !== state) {
            answer(400, "The login failed: the answer does not belong to this login. You can close this window.")
            const forged = new LoginError({ backend, reason: "state", detail: "the redirect's state does not match" })
            return complete(Effect.fail(forged))
          }
          const error = params.get("error")
          const code = params.get("code")
          if (error !== null || code === null || code === "") {
            answer(400, "The login did not succeed. You can close this window.")
            return complete(
              Effect.succeed({ error: error !== null && /^[a-z_]{1,64}$/.test(error) ? error : "no code" })
            )
          }
          answer(200, "You are logged in. You can close this window.")
          complete(Effect.succeed({ code }))
        })
        server.once("error", () =>
          resume(
            Effect.fail(new LoginError({ backend, reason: "browser", detail: "the redirect listener could not start" }))
          ))
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const port = (server.address() as net.AddressInfo).port
    return { redirectUri: `http://127.0.0.1:${port}/callback`, received: Deferred.await(received) }
  })

/**
 * Logs in for a target (see `target`) and stores the token.
 *
 * @since 0.1.0
 * @category login
 */
export const loginTarget = (
  login: Target,
  options: Options = {}
): Effect.Effect<
  LoggedIn,
  LoginError,
  Browser | TokenStore.TokenStore | HttpTransport.Dispatcher | Credentials.CredentialResolver
> =>
  Effect.scoped(Effect.gen(function*() {
    const backend = login.backend
    const fail = (reason: LoginError["reason"]) => (error: { readonly detail?: string; readonly message: string }) =>
      new LoginError({ backend, reason, detail: error.detail ?? error.message })
    const config = configOf(yield* HttpTransport.Dispatcher, options)
    const server = yield* Effect.mapError(oauth.discoverIssuer(config, login.key.issuer), fail("discovery"))
    if (server.authorizationEndpoint === undefined) {
      return yield* new LoginError({
        backend,
        reason: "discovery",
        detail: "the authorization server metadata has no usable authorization endpoint"
      })
    }
    if (!server.codeChallengeMethods.includes("S256")) {
      return yield* new LoginError({
        backend,
        reason: "discovery",
        detail: "the authorization server does not advertise PKCE with S256"
      })
    }
    const secret = login.clientSecretRef === undefined
      ? Option.none<Redacted.Redacted<string>>()
      : Option.some(
        yield* Effect.mapError(
          (yield* Credentials.CredentialResolver).resolve({ kind: "ref", name: login.clientSecretRef }),
          fail("token")
        )
      )
    const verifier = base64url(crypto.randomBytes(32))
    const state = base64url(crypto.randomBytes(24))
    const { received, redirectUri } = yield* listen(backend, state)
    const authorize = new URL(server.authorizationEndpoint.href)
    for (
      const [name, value] of [
        ["response_type", "code"],
        ["client_id", login.key.clientId],
        ["redirect_uri", redirectUri],
        ["code_challenge", base64url(crypto.createHash("sha256").update(verifier).digest())],
        ["code_challenge_method", "S256"],
        ["state", state],
        ["resource", login.key.resource],
        ...(login.scopes.length > 0 ? [["scope", login.scopes.join(" ")]] : [])
      ] as const
    ) authorize.searchParams.set(name, value)
    yield* Effect.mapError(
      (yield* Browser).open(authorize.href),
      (error) => new LoginError({ backend, reason: error.reason, detail: error.detail })
    )
    const redirect = yield* Effect.timeoutFail(received, {
      duration: options.timeout ?? Duration.minutes(5),
      onTimeout: () =>
        new LoginError({ backend, reason: "timeout", detail: "no answer came back from the browser in time" })
    })
    if ("error" in redirect) {
      return yield* new LoginError({
        backend,
        reason: "denied",
        detail: `the authorization server answered ${redirect.error}`
      })
    }
    const token = yield* Effect.mapError(
      oauth.requestToken(
        config,
        server.tokenEndpoint,
        oauth.tokenForm([
          ["grant_type", "authorization_code"],
          ["code", redirect.code],
          ["redirect_uri", redirectUri],
          ["code_verifier", verifier]
        ], { clientId: login.key.clientId, resource: login.key.resource, scopes: login.scopes, secret })
      ),
      fail("token")
    )
    yield* Effect.mapError(
      (yield* TokenStore.TokenStore).put({
        ...login.key,
        scopes: login.scopes,
        accessToken: token.accessToken,
        refreshToken: token.refreshToken,
        expiresAt: token.expiresAt
      }),
      fail("store")
    )
    return { target: login, expiresAt: token.expiresAt, refreshable: token.refreshToken !== undefined }
  }))

/**
 * Logs in for a backend: `target`, then `loginTarget`.
 *
 * @since 0.1.0
 * @category login
 */
export const login = (
  backend: Registration.Backend,
  options: Options = {}
): Effect.Effect<
  LoggedIn,
  LoginError,
  Browser | TokenStore.TokenStore | HttpTransport.Dispatcher | Credentials.CredentialResolver
> => Effect.flatMap(target(backend, options), (found) => loginTarget(found, options))

/**
 * Whether a stored token may belong to a backend, without asking any server: its `oauth`
 * binding's key; without a binding, a configured `authorization_code_pkce` client's issuer
 * and client for the backend's URL as resource (or its origin, as discovery accepts).
 *
 * @since 0.1.0
 * @category login
 */
export const belongsTo = (backend: Registration.Backend, options: Options = {}) => (entry: TokenStore.Key): boolean => {
  const auth = backend.authentication
  if (backend.transport.type !== "http") return false
  if (auth?.type === "oauth") {
    return auth.flow === "authorization_code_pkce" &&
      TokenStore.sameKey(entry, { issuer: auth.issuer, resource: auth.resource, clientId: auth.clientId })
  }
  if (auth !== undefined) return false
  const url = http.checkTarget(backend.transport.url, "backend")
  if (Either.isLeft(url) || !URL.canParse(entry.resource)) return false
  const resource = new URL(entry.resource)
  resource.hash = ""
  const endpoint = new URL(url.right.href)
  endpoint.hash = ""
  const matches = resource.href === endpoint.href || resource.href === `${endpoint.origin}/`
  return matches && pkceClients(options).some((c) => c.issuer === entry.issuer && c.clientId === entry.clientId)
}

/**
 * Removes a backend's stored logins (see `belongsTo`); succeeds with how many there were.
 *
 * @since 0.1.0
 * @category login
 */
export const logout = (
  backend: Registration.Backend,
  options: Options = {}
): Effect.Effect<number, LoginError, TokenStore.TokenStore> =>
  Effect.gen(function*() {
    const store = yield* TokenStore.TokenStore
    const storeFailure = (error: TokenStore.TokenStoreError) =>
      new LoginError({ backend: backend.id, reason: "store", detail: error.message })
    const entries = yield* Effect.mapError(store.list, storeFailure)
    let removed = 0
    for (const entry of entries.filter(belongsTo(backend, options))) {
      if (yield* Effect.mapError(store.remove(entry), storeFailure)) removed++
    }
    return removed
  })

/**
 * A stored login, as `status` reports it: never the token.
 *
 * @since 0.1.0
 * @category models
 */
export interface Status {
  readonly backend: string
  readonly key: TokenStore.Key
  readonly scopes: ReadonlyArray<string>
  readonly expiresAt: number | undefined
  readonly refreshable: boolean
}

/**
 * The stored logins of each backend (see `belongsTo`), in registration order.
 *
 * @since 0.1.0
 * @category login
 */
export const status = (
  backends: ReadonlyArray<Registration.Backend>,
  options: Options = {}
): Effect.Effect<ReadonlyArray<Status>, LoginError, TokenStore.TokenStore> =>
  Effect.gen(function*() {
    const entries = yield* Effect.mapError(
      Effect.flatMap(TokenStore.TokenStore, (store) => store.list),
      (error) => new LoginError({ backend: "", reason: "store", detail: error.message })
    )
    return backends.flatMap((backend) =>
      entries.filter(belongsTo(backend, options)).map((entry) => ({
        backend: backend.id,
        key: { issuer: entry.issuer, resource: entry.resource, clientId: entry.clientId },
        scopes: entry.scopes,
        expiresAt: entry.expiresAt,
        refreshable: entry.refreshToken !== undefined
      }))
    )
  })
