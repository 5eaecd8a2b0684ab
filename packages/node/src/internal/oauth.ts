/**
 * The OAuth 2.0 pieces of HTTP endpoint authentication:
 *
 * - `WWW-Authenticate` challenges (`Bearer` parameters: `resource_metadata`, `scope`);
 * - RFC 9728 protected-resource discovery: the challenge's `resource_metadata`, otherwise
 *   the well-known locations in MCP's order (path-specific, then origin root), with the
 *   resource identifier validated as RFC 9728 §3.3 requires;
 * - authorization server metadata (RFC 8414, then OpenID Connect, in MCP's order) whose
 *   `issuer` must equal the expected issuer exactly;
 * - token requests (client credentials, authorization code, refresh) bound to the protected
 *   resource (RFC 8707).
 *
 * Everything learned from a server is untrusted. A discovered URL obeys the rules of a
 * configured URL (`http.checkTarget`), cannot downgrade from `https` to plain `http`, and
 * cannot lead to a loopback or private address unless the URL it was learned from is on
 * one itself: a literal address, or (for the metadata URL a challenge names, on another
 * host) a host name that resolves to one. A token endpoint must also be on its issuer's origin unless
 * `tokenEndpointOrigins` allows its own; otherwise the exchange fails with `credential`
 * before a client secret, code or refresh token is sent anywhere. Metadata and token
 * answers are read up to `maxMetadataBytes`. Details never contain tokens, secrets or text
 * the servers sent.
 *
 * @internal
 */
import type * as TransportApi from "@effect-ahp/harness/Transport"
import { Json } from "@effect-ahp/protocol"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as dns from "node:dns"
import * as net from "node:net"
import type * as Undici from "undici"
import * as http from "./http.js"

/** @internal */
export interface OAuthConfig {
  readonly dispatcher: Undici.Dispatcher
  /** The largest metadata or token answer read, in bytes. */
  readonly maxMetadataBytes: number
  readonly refreshMargin: Duration.Duration
  /** The endpoint's exchanges in flight: closing the endpoint also aborts OAuth requests. */
  readonly inFlight?: http.InFlight | undefined
  /** Origins a token endpoint may have besides its issuer's (as `URL.origin` strings). */
  readonly tokenEndpointOrigins?: ReadonlySet<string> | undefined
  /** Where discovered host names are looked up (default: the system resolver); false: nowhere. */
  readonly resolve?: Resolver | false | undefined
}

/** @internal */
export const credentialFailure = (detail: string) => http.failure("credential", detail)

// ---------------------------------------------------------------------------------------
// Challenges
// ---------------------------------------------------------------------------------------

/**
 * What a `Bearer` challenge says.
 *
 * @internal
 */
export interface Challenge {
  readonly resourceMetadata: string | undefined
  readonly scopes: ReadonlyArray<string> | undefined
}

const tchar = /[!#$%&'*+\-.^_`|~0-9A-Za-z]/

/**
 * The parameters of the `Bearer` challenge(s) among the `WWW-Authenticate` values (RFC 9110
 * §11.6.1 syntax: `scheme param=token, param="quoted", …`, several challenges separated by
 * commas). A value that cannot be parsed is ignored from where it stops making sense;
 * parameters of other schemes are ignored.
 *
 * @internal
 */
export const parseChallenges = (values: string | ReadonlyArray<string> | undefined): Challenge => {
  const params = new Map<string, string>()
  for (const value of values === undefined ? [] : typeof values === "string" ? [values] : values) {
    let i = 0
    let scheme: string | undefined = undefined
    const skip = (chars: RegExp) => {
      while (i < value.length && chars.test(value[i]!)) i++
    }
    const token = (): string => {
      const start = i
      while (i < value.length && tchar.test(value[i]!)) i++
      return value.slice(start, i)
    }
    while (i < value.length) {
      skip(/[\s,]/)
      const name = token()
      if (name === "") break
      skip(/[ \t]/)
      if (value[i] !== "=") {
        // A new challenge: its scheme, possibly followed by its first parameter.
        scheme = name.toLowerCase()
        continue
      }
      i++
      skip(/[ \t]/)
      let param: string
      if (value[i] === "\"") {
        i++
        let text = ""
        while (i < value.length && value[i] !== "\"") {
          if (value[i] === "\\" && i + 1 < value.length) i++
          text += value[i]
          i++
        }
        i++
        param = text
      } else {
        const start = i
        while (i < value.length && !/[\s,]/.test(value[i]!)) i++
        param = value.slice(start, i)
      }
      const key = name.toLowerCase()
      if (scheme === "bearer" && !params.has(key)) params.set(key, param)
    }
  }
  const scope = params.get("scope")
  return {
    resourceMetadata: params.get("resource_metadata"),
    scopes: scope === undefined ? undefined : scope.split(" ").filter((s) => s !== "")
  }
}

// ---------------------------------------------------------------------------------------
// Destination rules for discovered URLs
// ---------------------------------------------------------------------------------------

/**
 * Loopback, private, link-local, shared (carrier-grade NAT), unspecified and IPv6
 * unique-local addresses: where a URL learned from a public server must never lead.
 */
const localAddresses = (() => {
  const list = new net.BlockList()
  for (
    const [prefix, bits] of [
      ["0.0.0.0", 8],
      ["10.0.0.0", 8],
      ["100.64.0.0", 10],
      ["127.0.0.0", 8],
      ["169.254.0.0", 16],
      ["172.16.0.0", 12],
      ["192.168.0.0", 16]
    ] as const
  ) list.addSubnet(prefix, bits, "ipv4")
  for (const [prefix, bits] of [["::", 127], ["fc00::", 7], ["fe80::", 10]] as const) {
    list.addSubnet(prefix, bits, "ipv6")
  }
  return list
})()

/**
 * Whether an IP address (without brackets) is loopback or private; an IPv4-mapped IPv6
 * address is judged by its IPv4 address. Text that is not an IP address is not local.
 *
 * @internal
 */
export const isLocalAddress = (address: string): boolean => {
  const family = net.isIP(address)
  if (family === 4) return localAddresses.check(address, "ipv4")
  if (family !== 6) return false
  const dotted = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address)
  if (dotted !== null) return localAddresses.check(dotted[1]!, "ipv4")
  const hex = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(address)
  if (hex !== null) {
    const [high, low] = [parseInt(hex[1]!, 16), parseInt(hex[2]!, 16)]
    return localAddresses.check(`${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`, "ipv4")
  }
  return localAddresses.check(address, "ipv6")
}

/** A URL's host name without the brackets of an IPv6 literal. */
const unbracketed = (hostname: string): string => hostname.startsWith("[") ? hostname.slice(1, -1) : hostname

/** Whether a URL host is loopback or private (by name or literal address). */
const isLocal = (hostname: string): boolean =>
  hostname === "localhost" || hostname.endsWith(".localhost") || isLocalAddress(unbracketed(hostname))

/** Looks a host name up: every address it resolves to. @internal */
export type Resolver = (hostname: string) => Promise<ReadonlyArray<string>>

/** The system resolver (`dns.lookup`, every address). @internal */
export const systemResolver: Resolver = (hostname) =>
  dns.promises.lookup(hostname, { all: true, verbatim: true }).then((found) => found.map((entry) => entry.address))

/**
 * Checks where a discovered URL's host name resolves, when what it was learned from
 * (`anchor`) is public: every address must be public, as `checkDiscovered` requires of
 * literal addresses. A name that does not resolve is refused too. No lookup is made for a
 * literal address, a local anchor, the anchor's own host (reached anyway), or without a
 * resolver. The request made afterwards resolves the name again: a name whose answer
 * changes in between (DNS rebinding) is not caught here.
 *
 * @internal
 */
export const checkResolved = (
  resolve: Resolver | false,
  url: URL,
  anchor: URL,
  what: string
): Effect.Effect<void, TransportApi.TransportError> => {
  const hostname = unbracketed(url.hostname)
  if (
    resolve === false || url.hostname === anchor.hostname || isLocal(anchor.hostname) || net.isIP(hostname) !== 0
  ) return Effect.void
  return Effect.tryPromise(() => resolve(hostname)).pipe(
    Effect.orElseSucceed((): ReadonlyArray<string> => []),
    Effect.flatMap((addresses) =>
      addresses.length === 0
        ? Effect.fail(credentialFailure(`the ${what}'s host name does not resolve`))
        : addresses.some(isLocalAddress)
        ? Effect.fail(credentialFailure(`the ${what}'s host name resolves to a loopback or private address`))
        : Effect.void
    )
  )
}

/**
 * Checks a URL learned from a server against the URL it was learned from (`anchor`): the
 * rules of a configured URL, no downgrade from `https`, and no loopback or private host
 * unless the anchor's host is one. Every refusal is `credential`.
 *
 * @internal
 */
export const checkDiscovered = (
  url: string,
  anchor: URL,
  what: string
): Either.Either<URL, TransportApi.TransportError> => {
  const target = http.checkTarget(url, what)
  if (Either.isLeft(target)) {
    return Either.left(credentialFailure(`the ${what} must be an https URL (plain http only on loopback)`))
  }
  const parsed = target.right
  if (parsed.protocol !== "https:" && anchor.protocol === "https:") {
    return Either.left(credentialFailure(`the ${what} must use https like the URL it was learned from`))
  }
  if (isLocal(parsed.hostname) && !isLocal(anchor.hostname)) {
    return Either.left(credentialFailure(`the ${what} points to a loopback or private address`))
  }
  return Either.right(parsed)
}

/**
 * The origins of a list of URLs (or origins), as `URL.origin` gives them; entries that are
 * not URLs are left out.
 *
 * @internal
 */
export const originsOf = (urls: ReadonlyArray<string>): ReadonlySet<string> => {
  const origins = new Set<string>()
  for (const url of urls) {
    if (URL.canParse(url)) origins.add(new URL(url).origin)
  }
  return origins
}

const noOrigins: ReadonlySet<string> = new Set()

/**
 * Checks a token endpoint learned from `issuer`'s metadata: the rules of a configured URL
 * (`http.checkTarget`), no downgrade from the issuer's `https`, and the issuer's origin
 * unless `allowed` lists its own. Every refusal is `credential`.
 *
 * @internal
 */
export const checkTokenEndpoint = (
  endpoint: string,
  issuer: URL,
  allowed: ReadonlySet<string>
): Either.Either<URL, TransportApi.TransportError> => {
  const target = http.checkTarget(endpoint, "token endpoint")
  if (Either.isLeft(target)) {
    return Either.left(
      credentialFailure("the token endpoint must use https (plain http only to a loopback issuer's host)")
    )
  }
  const url = target.right
  if (url.protocol !== "https:" && issuer.protocol === "https:") {
    return Either.left(credentialFailure("the token endpoint must use https like its issuer"))
  }
  if (url.origin !== issuer.origin && !allowed.has(url.origin)) {
    return Either.left(
      credentialFailure("the token endpoint is not on the issuer's origin, nor on one allowed by configuration")
    )
  }
  return Either.right(url)
}

// ---------------------------------------------------------------------------------------
// Metadata
// ---------------------------------------------------------------------------------------

const acceptJson = { accept: "application/json" } as const

/** Sends `outgoing`; a 200 JSON object answer is its value, any other answer is none. */
const readJsonObject = (
  config: OAuthConfig,
  outgoing: http.Outgoing,
  what: string
): Effect.Effect<Option.Option<Json.JsonObject>, TransportApi.TransportError> =>
  Effect.flatMap(
    http.exchange(config.dispatcher, outgoing, config.maxMetadataBytes, what, config.inFlight),
    (incoming) => {
      if (incoming.status !== 200 || !http.isJson(incoming)) return Effect.succeedNone
      if (incoming.body === undefined) return Effect.fail(http.oversized(what, config.maxMetadataBytes))
      return Effect.succeed(Either.match(Json.parseBytes(incoming.body), {
        onLeft: () => Option.none(),
        onRight: (value) => Json.isObject(value) ? Option.some(value) : Option.none()
      }))
    }
  )

const getJson = (config: OAuthConfig, url: URL, what: string) =>
  readJsonObject(config, { url, method: "GET", headers: acceptJson }, what)

/** The resource identifier of a URL: without fragment (and as `URL.href` normalizes it). */
const resourceOf = (url: URL): string => {
  const copy = new URL(url.href)
  copy.hash = ""
  return copy.href
}

/** Whether `value` names the resource `expected` (compared as normalized URLs). */
const sameResource = (value: string, expected: string): boolean =>
  URL.canParse(value) && resourceOf(new URL(value)) === expected

/**
 * The RFC 9728 well-known locations of an endpoint's metadata in MCP's order: the path
 * inserted after the well-known prefix (when there is a path), then the origin root.
 *
 * @internal
 */
export const protectedResourceUrls = (endpoint: URL): Array<{ readonly url: string; readonly root: boolean }> => {
  const path = endpoint.pathname === "/" ? "" : endpoint.pathname.replace(/\/$/, "")
  const root = `${endpoint.origin}/.well-known/oauth-protected-resource`
  return path === "" ? [{ url: root, root: true }] : [{ url: `${root}${path}`, root: false }, { url: root, root: true }]
}

/**
 * What a protected resource's metadata says, once validated.
 *
 * @internal
 */
export interface ProtectedResource {
  /** The resource identifier tokens are requested for (RFC 8707). */
  readonly resource: string
  /** The authorization servers it names, in its order. */
  readonly authorizationServers: ReadonlyArray<string>
}

/**
 * Validates protected-resource metadata fetched for `endpoint`: its `resource` must be the
 * endpoint's URL (or, for metadata found at the origin root, the origin), and it must name
 * at least one authorization server.
 */
const validateResource = (
  metadata: Json.JsonObject,
  endpoint: URL,
  root: boolean
): Either.Either<ProtectedResource, TransportApi.TransportError> => {
  const resource = metadata.resource
  const expected = resourceOf(endpoint)
  const origin = `${endpoint.origin}/`
  if (typeof resource !== "string" || !(sameResource(resource, expected) || (root && sameResource(resource, origin)))) {
    return Either.left(
      credentialFailure("the protected resource metadata names a different resource than the endpoint")
    )
  }
  const servers = metadata.authorization_servers
  if (!Array.isArray(servers) || servers.length === 0 || !servers.every((s) => typeof s === "string")) {
    return Either.left(credentialFailure("the protected resource metadata names no authorization server"))
  }
  return Either.right({ resource, authorizationServers: servers as ReadonlyArray<string> })
}

/**
 * RFC 9728 discovery for an endpoint after a 401: the challenge's `resource_metadata` when
 * present (and only it), otherwise the well-known locations in order; a location that does
 * not answer 200 with a JSON object is skipped. Fails with `credential` when no valid
 * metadata is found or the metadata found is invalid.
 *
 * @internal
 */
export const discoverResource = (
  config: OAuthConfig,
  endpoint: URL,
  challenge: Challenge
): Effect.Effect<ProtectedResource, TransportApi.TransportError> =>
  Effect.gen(function*() {
    if (challenge.resourceMetadata !== undefined) {
      const what = "protected resource metadata URL"
      const url = yield* checkDiscovered(challenge.resourceMetadata, endpoint, what)
      yield* checkResolved(config.resolve ?? systemResolver, url, endpoint, what)
      const metadata = yield* getJson(config, url, "protected resource metadata")
      if (Option.isNone(metadata)) {
        return yield* credentialFailure("the protected resource metadata named by the challenge is unavailable")
      }
      return yield* validateResource(metadata.value, endpoint, false)
    }
    for (const { root, url } of protectedResourceUrls(endpoint)) {
      const metadata = yield* getJson(config, new URL(url), "protected resource metadata")
      if (Option.isSome(metadata)) return yield* validateResource(metadata.value, endpoint, root)
    }
    return yield* credentialFailure("the endpoint is protected but publishes no protected resource metadata")
  })

/**
 * What `selectClient` needs of a configured client.
 *
 * @internal
 */
export interface LocalClient {
  readonly issuer: string
  readonly clientId: string
  readonly scopes?: ReadonlyArray<string> | undefined
}

/**
 * A client selected for a resource, and what a token is requested for.
 *
 * @internal
 */
export interface Selected<C> {
  readonly client: C
  readonly key: { readonly issuer: string; readonly resource: string; readonly clientId: string }
  readonly scopes: ReadonlyArray<string>
}

/**
 * The local client for a discovered resource: the first authorization server it names (in
 * its order) for which `clients` has one (exact issuer match), provided every scope the
 * challenge asks for is among the client's `scopes`. With it, what a token is requested
 * for: issuer, resource, client, and the scopes (the challenge's, else the client's).
 *
 * @internal
 */
export const selectClient = <C extends LocalClient>(
  resource: ProtectedResource,
  challenge: Challenge,
  clients: ReadonlyArray<C>
): Either.Either<Selected<C>, string> => {
  const client = resource.authorizationServers
    .map((issuer) => clients.find((c) => c.issuer === issuer))
    .find((c) => c !== undefined)
  if (client === undefined) {
    return Either.left("the endpoint's protected resource names no authorization server with a configured OAuth client")
  }
  const permitted = client.scopes ?? []
  if (challenge.scopes !== undefined && !challenge.scopes.every((s) => permitted.includes(s))) {
    return Either.left("the endpoint asks for scopes the configured OAuth client may not request")
  }
  return Either.right({
    client,
    key: { issuer: client.issuer, resource: resource.resource, clientId: client.clientId },
    scopes: challenge.scopes ?? permitted
  })
}

/**
 * The metadata locations to try for an issuer, in order: RFC 8414 (path inserted after
 * the well-known prefix), OpenID Connect with path insertion, OpenID Connect appended.
 *
 * @internal
 */
export const metadataUrls = (issuer: URL): Array<string> => {
  const path = issuer.pathname === "/" ? "" : issuer.pathname.replace(/\/$/, "")
  const urls = [
    `${issuer.origin}/.well-known/oauth-authorization-server${path}`,
    `${issuer.origin}/.well-known/openid-configuration${path}`,
    `${issuer.origin}${path}/.well-known/openid-configuration`
  ]
  return urls.filter((url, i) => urls.indexOf(url) === i)
}

/**
 * What an authorization server's metadata says, once validated.
 *
 * @internal
 */
export interface AuthorizationServer {
  readonly issuer: string
  readonly tokenEndpoint: URL
  /** Absent when the metadata names none (or one that breaks the rules of discovered URLs). */
  readonly authorizationEndpoint: URL | undefined
  readonly codeChallengeMethods: ReadonlyArray<string>
}

/**
 * Fetches and validates an issuer's metadata: the first location answering a JSON object
 * decides; its `issuer` must equal `issuer` exactly and its token endpoint pass
 * `checkTokenEndpoint`.
 *
 * @internal
 */
export const discoverIssuer = (
  config: OAuthConfig,
  issuer: string
): Effect.Effect<AuthorizationServer, TransportApi.TransportError> =>
  Effect.gen(function*() {
    const issuerUrl = yield* http.checkTarget(issuer, "OAuth issuer")
    for (const url of metadataUrls(issuerUrl)) {
      const metadata = yield* getJson(config, new URL(url), "authorization server metadata")
      if (Option.isNone(metadata)) continue
      const found = metadata.value
      if (found.issuer !== issuer) {
        return yield* credentialFailure("the authorization server metadata names a different issuer")
      }
      if (typeof found.token_endpoint !== "string") {
        return yield* credentialFailure("the authorization server metadata has no token endpoint")
      }
      const tokenEndpoint = yield* checkTokenEndpoint(
        found.token_endpoint,
        issuerUrl,
        config.tokenEndpointOrigins ?? noOrigins
      )
      const authorization = typeof found.authorization_endpoint === "string"
        ? Either.getRight(checkDiscovered(found.authorization_endpoint, issuerUrl, "authorization endpoint"))
        : Option.none()
      const methods = found.code_challenge_methods_supported
      return {
        issuer,
        tokenEndpoint,
        authorizationEndpoint: Option.getOrUndefined(authorization),
        codeChallengeMethods: Array.isArray(methods) ? methods.filter((m): m is string => typeof m === "string") : []
      } satisfies AuthorizationServer
    }
    return yield* credentialFailure("no authorization server metadata was found for the issuer")
  })

// ---------------------------------------------------------------------------------------
// Tokens
// ---------------------------------------------------------------------------------------

/**
 * A token issued by a token endpoint.
 *
 * @internal
 */
export interface Token {
  readonly accessToken: Redacted.Redacted<string>
  readonly refreshToken: Redacted.Redacted<string> | undefined
  /** When to stop using it (`expires_in` less the refresh margin), in epoch milliseconds. */
  readonly expiresAt: number | undefined
}

const usable = /^[\x21-\x7e]+$/

/**
 * Whether a token can still be used at `now`.
 *
 * @internal
 */
export const isFresh = (token: { readonly expiresAt?: number | undefined }, now: number): boolean =>
  token.expiresAt === undefined || now < token.expiresAt

/**
 * Sends a token request (`application/x-www-form-urlencoded`) to a checked token endpoint
 * and validates the answer: a usable bearer access token, an optional refresh token.
 *
 * @internal
 */
export const requestToken = (
  config: OAuthConfig,
  endpoint: URL,
  form: ReadonlyArray<readonly [string, string]>
): Effect.Effect<Token, TransportApi.TransportError> =>
  Effect.gen(function*() {
    const answer = yield* readJsonObject(config, {
      url: endpoint,
      method: "POST",
      headers: { ...acceptJson, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form.map(([k, v]): [string, string] => [k, v])).toString()
    }, "token endpoint")
    if (Option.isNone(answer)) return yield* credentialFailure("the token endpoint did not issue a token")
    const { access_token, expires_in, refresh_token, token_type } = answer.value
    if (typeof access_token !== "string" || !usable.test(access_token)) {
      return yield* credentialFailure("the token endpoint answered without a usable access token")
    }
    if (typeof token_type !== "string" || token_type.toLowerCase() !== "bearer") {
      return yield* credentialFailure("the token endpoint issued a token that is not a bearer token")
    }
    const now = yield* Clock.currentTimeMillis
    const lifetime = typeof expires_in === "number" && expires_in > 0 ? expires_in * 1000 : undefined
    const expiresAt = lifetime === undefined
      ? undefined
      : now + lifetime - Math.min(Duration.toMillis(config.refreshMargin), lifetime / 2)
    return {
      accessToken: Redacted.make(access_token),
      refreshToken: typeof refresh_token === "string" && usable.test(refresh_token)
        ? Redacted.make(refresh_token)
        : undefined,
      expiresAt
    } satisfies Token
  })

/**
 * The form of a token request: its grant fields, then the client, the resource (RFC 8707),
 * the scopes when there are any, and the client secret when there is one.
 *
 * @internal
 */
export const tokenForm = (
  grant: ReadonlyArray<readonly [string, string]>,
  client: {
    readonly clientId: string
    readonly resource: string
    readonly scopes: ReadonlyArray<string>
    readonly secret: Option.Option<Redacted.Redacted<string>>
  }
): Array<readonly [string, string]> => {
  const form: Array<readonly [string, string]> = [...grant, ["client_id", client.clientId], [
    "resource",
    client.resource
  ]]
  if (client.scopes.length > 0) form.push(["scope", client.scopes.join(" ")])
  if (Option.isSome(client.secret)) form.push(["client_secret", Redacted.value(client.secret.value)])
  return form
}
