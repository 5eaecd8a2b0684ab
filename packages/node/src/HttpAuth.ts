/**
 * Authorization for HTTP endpoints — event endpoints and upload endpoints alike, each on
 * its own: what to send in the `Authorization` header, and what to do after a `401`.
 *
 * An `Authorizer` is asked for a credential before the first attempt; after a `401` its
 * `challenge` either hands out a credential for the single retry or fails. A second `401`
 * is the caller's `unauthorized`. Per binding:
 *
 * - `bearer`: the token is resolved for every attempt (it may have been rotated).
 * - `oauth` + `client_credentials`: a token from the issuer's token endpoint, bound to the
 *   configured resource, cached (per issuer, resource, client and scopes) until shortly
 *   before it expires; after a `401` the rejected token is dropped and a new one acquired.
 * - `oauth` + `authorization_code_pkce`: the token `ahp auth login <backend>` stored in the
 *   `TokenStore`, refreshed with its refresh token once it has expired (or been rejected).
 *   Without a usable login the call fails with `credential`, naming that command.
 * - no binding: the first attempt carries no credential. A `401` starts protected-resource
 *   discovery (RFC 9728: the challenge's `resource_metadata`, otherwise the well-known
 *   locations), whose resource must be the endpoint; the first authorization server it
 *   names for which a `Client` is configured is used (exact issuer match; none: the call
 *   fails, there is no anonymous fallback); its metadata is discovered (RFC 8414 / OpenID
 *   Connect) and a token obtained for the discovered resource with that client's flow.
 *   Scopes a challenge asks for must be among the client's `scopes`. The endpoint is then
 *   known to be protected, so later attempts send the token at once.
 *
 * Everything learned from servers is untrusted (see `internal/oauth`): discovered URLs
 * must be `https` unless what they were learned from is plain-`http` loopback, cannot lead
 * to loopback or private addresses from a public one (a host name of a `resource_metadata`
 * URL is looked up first: see `lookupHost`), token endpoints stay on their
 * issuer's origin unless `tokenEndpointOrigins` says otherwise. A client secret is sent to
 * a checked token endpoint only. Every failure is a `TransportError` (`credential`, or the
 * exchange's own reason) whose detail holds no secret and no server text. The caller's
 * deadline bounds all of it: the work is interruptible throughout.
 *
 * @since 0.1.0
 */
import type * as TransportApi from "@effect-ahp/harness/Transport"
import type { Registration } from "@effect-ahp/protocol"
import type * as Undici from "@effect/platform-node/Undici"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as Credentials from "./Credentials.js"
import * as http from "./internal/http.js"
import * as oauth from "./internal/oauth.js"
import * as TokenStore from "./TokenStore.js"

/**
 * An OAuth client this harness has with an authorization server: the local trust policy
 * for discovery. Only issuers listed here are ever used for a discovered resource.
 *
 * @since 0.1.0
 * @category models
 */
export interface Client {
  /** The issuer, compared exactly with the ones a protected resource names. */
  readonly issuer: string
  readonly clientId: string
  readonly flow: "client_credentials" | "authorization_code_pkce"
  /** The client secret's reference, resolved through the `CredentialResolver`. */
  readonly clientSecretRef?: string | undefined
  /** The scopes this client may request (none by default). */
  readonly scopes?: ReadonlyArray<string> | undefined
}

/**
 * Tuning and local policy. Every field is optional.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /**
   * The clients used for discovered resources. None by default: discovery then uses a login
   * stored for the resource (`ahp auth login`), if there is one, and fails otherwise.
   */
  readonly clients?: ReadonlyArray<Client> | undefined
  /** The largest metadata or token answer read, in bytes (64 KiB by default). */
  readonly maxMetadataBytes?: number | undefined
  /** How long before `expires_in` an access token is replaced (30 s by default). */
  readonly tokenRefreshMargin?: Duration.DurationInput | undefined
  /**
   * Origins (or URLs, of which the origin counts) where a token endpoint learned from an
   * issuer's metadata may be besides the issuer's own origin. None by default.
   */
  readonly tokenEndpointOrigins?: ReadonlyArray<string> | undefined
  /**
   * How the host name of a challenge's `resource_metadata` URL is looked up before it is
   * fetched, when that URL is on another host than its public endpoint: every address must
   * be public, as for a literal address (`dns.lookup` by default). `false` skips the lookup,
   * for a dispatcher that resolves names elsewhere (through a proxy, say).
   */
  readonly lookupHost?: ((hostname: string) => Promise<ReadonlyArray<string>>) | false | undefined
}

/**
 * The default options.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  maxMetadataBytes: 64 * 1024,
  tokenRefreshMargin: Duration.seconds(30)
} as const

/**
 * The endpoint an authorizer is for.
 *
 * @since 0.1.0
 * @category models
 */
export interface Target {
  /** The endpoint's URL (already checked by the caller). */
  readonly url: URL
  /** Its explicit binding; none: discovery after a 401. */
  readonly authentication: Registration.Authentication | undefined
  /** The backend's id (named in errors, e.g. the login command). */
  readonly backend: string
  /** Event and upload endpoints are authorized independently. */
  readonly purpose: "event" | "upload"
}

/**
 * What an endpoint answered with its `401`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Rejection {
  /** The `WWW-Authenticate` value(s). */
  readonly wwwAuthenticate: string | ReadonlyArray<string> | undefined
  /** The credential the rejected attempt carried. */
  readonly credential: Option.Option<Redacted.Redacted<string>>
}

/**
 * How an endpoint's requests are authorized.
 *
 * @since 0.1.0
 * @category models
 */
export interface Authorizer {
  /** The credential for a first attempt (none: send without `Authorization`). */
  readonly credential: Effect.Effect<Option.Option<Redacted.Redacted<string>>, TransportApi.TransportError>
  /**
   * The credential for a first attempt when it is known without running anything (none:
   * send without `Authorization`); `undefined` when `credential` must be run. Optional.
   */
  readonly credentialNow?: (() => Option.Option<Redacted.Redacted<string>> | undefined) | undefined
  /** After a 401: the credential for the single retry, or the failure that ends the call. */
  readonly challenge: (rejection: Rejection) => Effect.Effect<Redacted.Redacted<string>, TransportApi.TransportError>
}

/**
 * A call that needs an interactive login this user does not have (or whose refresh was
 * refused). The message names the command that fixes it.
 *
 * @since 0.1.0
 * @category errors
 */
export class LoginRequired
  extends Schema.TaggedError<LoginRequired>("@effect-ahp/node/LoginRequired")("LoginRequired", {
    backend: Schema.String,
    reason: Schema.Literal("missing", "expired", "refused")
  })
{
  override get message(): string {
    const what = this.reason === "missing"
      ? "there is no OAuth login"
      : this.reason === "expired"
      ? "the OAuth login has expired"
      : "the OAuth login was refused"
    return `${what} for backend ${this.backend}: run \`ahp auth login ${this.backend}\``
  }
}

/**
 * The service: authorizers that share one token cache (per issuer, resource, client and
 * scopes) and what discovery learned, for as long as the service lives.
 *
 * @since 0.1.0
 * @category tags
 */
export class HttpAuth extends Context.Tag("@effect-ahp/node/HttpAuth")<HttpAuth, {
  readonly authorizer: (target: Target, inFlight?: http.InFlight) => Authorizer
}>() {}

/**
 * What `make` needs.
 *
 * @since 0.1.0
 * @category models
 */
export interface Services {
  readonly dispatcher: Undici.Dispatcher
  readonly credentials: Credentials.CredentialResolver["Type"]
  /** Where interactive logins are kept; none: `authorization_code_pkce` fails. */
  readonly store: Option.Option<TokenStore.TokenStore["Type"]>
}

/** How a resource is reached: issuer, resource, client, the scopes to request. */
interface Grant {
  readonly key: TokenStore.Key
  readonly scopes: ReadonlyArray<string>
  readonly flow: Client["flow"]
  readonly clientSecretRef: string | undefined
}

const usableToken = /^[\x21-\x7e]+$/

/** Whether a token may be sent: still fresh, and not the one an endpoint just rejected. */
const sendable = (
  token: { readonly accessToken: Redacted.Redacted<string>; readonly expiresAt?: number | undefined },
  now: number,
  rejected: Option.Option<Redacted.Redacted<string>>
): boolean =>
  oauth.isFresh(token, now) &&
  !(Option.isSome(rejected) && Redacted.value(rejected.value) === Redacted.value(token.accessToken))

const grantKey = (grant: Grant): string =>
  JSON.stringify([grant.key.issuer, grant.key.resource, grant.key.clientId, grant.flow, [...grant.scopes].sort()])

/**
 * Builds the service.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (services: Services, options: Options = {}): Effect.Effect<HttpAuth["Type"]> =>
  Effect.sync(() => {
    const base: oauth.OAuthConfig = {
      dispatcher: services.dispatcher,
      maxMetadataBytes: options.maxMetadataBytes ?? defaults.maxMetadataBytes,
      refreshMargin: Duration.decode(options.tokenRefreshMargin ?? defaults.tokenRefreshMargin),
      tokenEndpointOrigins: oauth.originsOf(options.tokenEndpointOrigins ?? []),
      resolve: options.lookupHost
    }
    const clients = options.clients ?? []
    /** Issuer metadata, by issuer (only successes are kept). */
    const servers = new Map<string, oauth.AuthorizationServer>()
    /** Tokens by grant, each behind its own lock. */
    const tokens = new Map<string, SynchronizedRef.SynchronizedRef<Option.Option<oauth.Token>>>()
    /** What discovery learned, by purpose and endpoint. */
    const discovered = new Map<string, Grant>()

    const server = (config: oauth.OAuthConfig, issuer: string) =>
      Effect.suspend(() => {
        const known = servers.get(issuer)
        return known !== undefined
          ? Effect.succeed(known)
          : Effect.tap(oauth.discoverIssuer(config, issuer), (found) => Effect.sync(() => servers.set(issuer, found)))
      })

    const secretOf = (grant: Grant) =>
      grant.clientSecretRef === undefined
        ? Effect.succeedNone
        : services.credentials.resolve({ kind: "ref", name: grant.clientSecretRef }).pipe(
          Effect.mapError((error) =>
            oauth.credentialFailure(`the OAuth client secret is unavailable: ${error.message}`)
          ),
          Effect.asSome
        )

    const form = (grant: Grant, fields: ReadonlyArray<readonly [string, string]>) =>
      Effect.map(secretOf(grant), (secret) =>
        oauth.tokenForm(fields, {
          clientId: grant.key.clientId,
          resource: grant.key.resource,
          scopes: grant.scopes,
          secret
        }))

    const cell = (grant: Grant) => {
      const key = grantKey(grant)
      let ref = tokens.get(key)
      if (ref === undefined) {
        ref = SynchronizedRef.unsafeMake(Option.none())
        tokens.set(key, ref)
      }
      return ref
    }

    /** A client-credentials token, from the cache unless it is stale or is the one rejected. */
    const clientCredentials = (
      config: oauth.OAuthConfig,
      grant: Grant,
      rejected: Option.Option<Redacted.Redacted<string>>
    ) =>
      SynchronizedRef.modifyEffect(cell(grant), (cached) =>
        Effect.gen(function*() {
          const now = yield* Clock.currentTimeMillis
          if (Option.isSome(cached) && sendable(cached.value, now, rejected)) {
            return [cached.value.accessToken, cached] as const
          }
          const found = yield* server(config, grant.key.issuer)
          const fields = yield* form(grant, [["grant_type", "client_credentials"]])
          const fresh = yield* oauth.requestToken(config, found.tokenEndpoint, fields)
          return [fresh.accessToken, Option.some(fresh)] as const
        }))

    /** The stored login's token, refreshed when it is stale or is the one rejected. */
    const login = (
      config: oauth.OAuthConfig,
      grant: Grant,
      backend: string,
      rejected: Option.Option<Redacted.Redacted<string>>
    ) =>
      SynchronizedRef.modifyEffect(cell(grant), (cached) =>
        Effect.gen(function*() {
          if (Option.isNone(services.store)) {
            return yield* http.failure(
              "unsupported",
              "the OAuth authorization_code_pkce flow needs a token store for logins, and none is configured"
            )
          }
          const store = services.store.value
          const storeFailure = (error: TokenStore.TokenStoreError) => oauth.credentialFailure(error.message)
          /** The stored entry, and whether its token may be sent as it is. */
          const usable = (entry: Option.Option<TokenStore.Entry>) =>
            Option.isNone(entry)
              ? loginFailure(backend, "missing")
              : Effect.map(
                Clock.currentTimeMillis,
                (now) => [entry.value, sendable(entry.value, now, rejected)] as const
              )
          const [stored, sendableNow] = yield* usable(yield* Effect.mapError(store.get(grant.key), storeFailure))
          if (sendableNow) return [stored.accessToken, cached] as const
          // Refreshed under the store's lock: another process may have refreshed it meanwhile.
          return yield* store.modify(grant.key, (current) =>
            Effect.gen(function*() {
              const [entry, fresh] = yield* usable(current)
              if (fresh) return [[entry.accessToken, cached] as const, undefined] as const
              const refresh = entry.refreshToken
              if (refresh === undefined) return yield* loginFailure(backend, "expired")
              const found = yield* server(config, grant.key.issuer)
              const fields = yield* form(grant, [["grant_type", "refresh_token"], [
                "refresh_token",
                Redacted.value(refresh)
              ]])
              const token = yield* oauth.requestToken(config, found.tokenEndpoint, fields).pipe(
                Effect.catchIf((error) => error.reason === "credential", () => loginFailure(backend, "refused"))
              )
              const replaced: TokenStore.Entry = {
                ...entry,
                accessToken: token.accessToken,
                refreshToken: token.refreshToken ?? refresh,
                expiresAt: token.expiresAt
              }
              return [[token.accessToken, Option.some(token)] as const, replaced] as const
            })).pipe(Effect.catchTag("TokenStoreError", (error) => Effect.fail(storeFailure(error))))
        }))

    const tokenFor = (
      config: oauth.OAuthConfig,
      grant: Grant,
      backend: string,
      rejected: Option.Option<Redacted.Redacted<string>>
    ) =>
      grant.flow === "client_credentials"
        ? clientCredentials(config, grant, rejected)
        : login(config, grant, backend, rejected)

    /**
     * The logins stored for a resource, as clients of the `authorization_code_pkce` flow:
     * a person who ran `ahp auth login` for exactly this resource and issuer chose them.
     */
    const storedClients = (resource: string) =>
      Option.match(services.store, {
        onNone: () => Effect.succeed<ReadonlyArray<Client>>([]),
        onSome: (store) =>
          store.list.pipe(
            Effect.mapError((error) => oauth.credentialFailure(error.message)),
            Effect.map((entries) =>
              entries.filter((entry) => entry.resource === resource).map((entry): Client => ({
                issuer: entry.issuer,
                clientId: entry.clientId,
                flow: "authorization_code_pkce",
                scopes: entry.scopes
              }))
            )
          )
      })

    /**
     * Discovery after a 401 on an endpoint without a binding: a configured client of one of
     * the resource's authorization servers, else a stored login for the resource.
     */
    const discover = (config: oauth.OAuthConfig, target: Target, challenge: oauth.Challenge) =>
      Effect.gen(function*() {
        const resource = yield* oauth.discoverResource(config, target.url, challenge)
        const configured = oauth.selectClient(resource, challenge, clients)
        const selected = Either.isRight(configured)
          ? configured.right
          : yield* Either.mapLeft(
            oauth.selectClient(resource, challenge, yield* storedClients(resource.resource)),
            () =>
              oauth.credentialFailure(
                Option.isSome(services.store)
                  ? `${configured.left}, and there is no OAuth login for it: run \`ahp auth login ${target.backend} --issuer ISSUER --client-id ID\``
                  : configured.left
              )
          )
        return {
          key: selected.key,
          scopes: selected.scopes,
          flow: selected.client.flow,
          clientSecretRef: selected.client.clientSecretRef
        } satisfies Grant
      })

    const authorizer = (target: Target, inFlight?: http.InFlight): Authorizer => {
      const config: oauth.OAuthConfig = inFlight === undefined ? base : { ...base, inFlight }
      const auth = target.authentication
      if (auth?.type === "bearer") return bearer(services.credentials, auth)
      if (auth?.type === "oauth") {
        const grant: Grant = {
          key: { issuer: auth.issuer, resource: auth.resource, clientId: auth.clientId },
          scopes: auth.scopes ?? [],
          flow: auth.flow,
          clientSecretRef: auth.clientSecretRef
        }
        return {
          credential: Effect.asSome(tokenFor(config, grant, target.backend, Option.none())),
          challenge: (rejection) => tokenFor(config, grant, target.backend, rejection.credential)
        }
      }
      const place = `${target.purpose} ${target.url.href}`
      return {
        // Nothing discovered for this place: the first attempt carries no credential.
        credentialNow: () => discovered.has(place) ? undefined : Option.none(),
        credential: Effect.suspend(() => {
          const known = discovered.get(place)
          return known === undefined
            ? Effect.succeedNone
            : Effect.asSome(tokenFor(config, known, target.backend, Option.none()))
        }),
        challenge: (rejection) =>
          Effect.gen(function*() {
            yield* Effect.sync(() => discovered.delete(place))
            const grant = yield* discover(config, target, oauth.parseChallenges(rejection.wwwAuthenticate))
            const token = yield* tokenFor(config, grant, target.backend, rejection.credential)
            yield* Effect.sync(() => discovered.set(place, grant))
            return token
          })
      }
    }
    return HttpAuth.of({ authorizer })
  })

const loginFailure = (backend: string, reason: LoginRequired["reason"]) =>
  Effect.fail(oauth.credentialFailure(new LoginRequired({ backend, reason }).message))

const bearer = (credentials: Credentials.CredentialResolver["Type"], binding: Registration.Bearer): Authorizer => {
  const reference: Credentials.Reference = binding.tokenEnv !== undefined
    ? { kind: "env", name: binding.tokenEnv }
    : { kind: "ref", name: binding.tokenRef ?? "" }
  const resolve = credentials.resolve(reference).pipe(
    Effect.mapError((error) => oauth.credentialFailure(`the bearer token is unavailable: ${error.message}`)),
    Effect.filterOrFail(
      (token) => usableToken.test(Redacted.value(token)),
      () => oauth.credentialFailure(`the bearer token from ${Credentials.describe(reference)} is not usable`)
    )
  )
  return { credential: Effect.asSome(resolve), challenge: () => resolve }
}
