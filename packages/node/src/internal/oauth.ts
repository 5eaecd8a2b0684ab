/**
 * OAuth 2.0 client credentials for an explicit `oauth` binding: authorization server
 * metadata discovery (RFC 8414, then OpenID Connect, in MCP's order), a token request
 * bound to the protected resource (RFC 8707), and a token cache that expires shortly
 * before `expires_in` and can be invalidated after a 401.
 *
 * A token endpoint learned from metadata obeys the rules of a configured URL and cannot
 * downgrade its issuer: `https`, or plain `http` to a loopback host only when the issuer
 * itself is a plain-`http` loopback URL; no user information; the issuer's own origin,
 * unless its origin is listed in `tokenEndpointOrigins`. Otherwise the exchange fails with
 * `credential` before the client secret is sent anywhere.
 *
 * @internal
 */
import type * as TransportApi from "@effect-ahp/harness/Transport"
import { Json } from "@effect-ahp/protocol"
import type { Registration } from "@effect-ahp/protocol"
import type * as Undici from "undici"
import * as Clock from "effect/Clock"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as SynchronizedRef from "effect/SynchronizedRef"
import * as Credentials from "../Credentials.js"
import * as http from "./http.js"

/** @internal */
export interface TokenSource {
  readonly get: Effect.Effect<Redacted.Redacted<string>, TransportApi.TransportError>
  readonly invalidate: Effect.Effect<void>
}

/** @internal */
export interface OAuthConfig {
  readonly dispatcher: Undici.Dispatcher
  readonly credentials: Credentials.CredentialResolver["Type"]
  readonly maxBodyBytes: number
  readonly refreshMargin: Duration.Duration
  /** The endpoint's exchanges in flight: closing the endpoint also aborts a token request. */
  readonly inFlight?: http.InFlight | undefined
  /** Origins a token endpoint may have besides its issuer's (as `URL.origin` strings). */
  readonly tokenEndpointOrigins?: ReadonlySet<string> | undefined
}

interface Cached {
  readonly token: Redacted.Redacted<string>
  readonly expiresAt: number | undefined
}

const credentialFailure = (detail: string) => http.failure("credential", detail)

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

/** Sends `outgoing`; a 200 JSON object answer is its value, any other answer is none. */
const readJsonObject = (
  config: OAuthConfig,
  outgoing: http.Outgoing,
  what: string
): Effect.Effect<Option.Option<Json.JsonObject>, TransportApi.TransportError> =>
  Effect.flatMap(http.exchange(config.dispatcher, outgoing, config.maxBodyBytes, what, config.inFlight), (incoming) => {
    if (incoming.status !== 200 || !http.isJson(incoming)) return Effect.succeedNone
    if (incoming.body === undefined) return Effect.fail(http.oversized(what, config.maxBodyBytes))
    return Effect.succeed(Either.match(Json.parseBytes(incoming.body), {
      onLeft: () => Option.none(),
      onRight: (value) => Json.isObject(value) ? Option.some(value) : Option.none()
    }))
  })

const acceptJson = { accept: "application/json" } as const

const noOrigins: ReadonlySet<string> = new Set()

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
    return Either.left(credentialFailure("the token endpoint must use https (plain http only to a loopback issuer's host)"))
  }
  const url = target.right
  if (url.protocol !== "https:" && issuer.protocol === "https:") {
    return Either.left(credentialFailure("the token endpoint must use https like its issuer"))
  }
  if (url.origin !== issuer.origin && !allowed.has(url.origin)) {
    return Either.left(credentialFailure("the token endpoint is not on the issuer's origin, nor on one allowed by configuration"))
  }
  return Either.right(url)
}

const discover = (config: OAuthConfig, issuer: string) =>
  Effect.gen(function*() {
    const issuerUrl = yield* http.checkTarget(issuer, "OAuth issuer")
    for (const url of metadataUrls(issuerUrl)) {
      const metadata = yield* readJsonObject(
        config,
        { url: new URL(url), method: "GET", headers: acceptJson },
        "authorization server metadata"
      )
      if (Option.isNone(metadata)) continue
      if (metadata.value.issuer !== issuer) {
        return yield* credentialFailure("the authorization server metadata names a different issuer")
      }
      const endpoint = metadata.value.token_endpoint
      if (typeof endpoint !== "string") {
        return yield* credentialFailure("the authorization server metadata has no token endpoint")
      }
      return yield* checkTokenEndpoint(endpoint, issuerUrl, config.tokenEndpointOrigins ?? noOrigins)
    }
    return yield* credentialFailure("no authorization server metadata was found for the issuer")
  })

const requestToken = (config: OAuthConfig, oauth: Registration.OAuth, endpoint: URL) =>
  Effect.gen(function*() {
    const secret = oauth.clientSecretRef === undefined
      ? Option.none<Redacted.Redacted<string>>()
      : Option.some(
        yield* config.credentials.resolve({ kind: "ref", name: oauth.clientSecretRef }).pipe(
          Effect.mapError((error) => credentialFailure(`the OAuth client secret is unavailable: ${error.message}`))
        )
      )
    const form: Array<[string, string]> = [
      ["grant_type", "client_credentials"],
      ["client_id", oauth.clientId],
      ["resource", oauth.resource]
    ]
    if (Option.isSome(secret)) form.push(["client_secret", Redacted.value(secret.value)])
    if (oauth.scopes !== undefined && oauth.scopes.length > 0) form.push(["scope", oauth.scopes.join(" ")])
    const answer = yield* readJsonObject(config, {
      url: endpoint,
      method: "POST",
      headers: { ...acceptJson, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams(form).toString()
    }, "token endpoint")
    if (Option.isNone(answer)) return yield* credentialFailure("the token endpoint did not issue a token")
    const { access_token, expires_in, token_type } = answer.value
    if (typeof access_token !== "string" || !/^[\x21-\x7e]+$/.test(access_token)) {
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
    return { token: Redacted.make(access_token), expiresAt } satisfies Cached
  })

/**
 * A token source for the `client_credentials` flow. The token endpoint is discovered once
 * per endpoint; tokens are cached until shortly before they expire (or until invalidated;
 * a token without `expires_in` is kept until a 401 invalidates it).
 *
 * @internal
 */
export const clientCredentials = (config: OAuthConfig, oauth: Registration.OAuth): Effect.Effect<TokenSource> =>
  Effect.gen(function*() {
    const endpoint = yield* SynchronizedRef.make(Option.none<URL>())
    const cache = yield* SynchronizedRef.make(Option.none<Cached>())
    const tokenEndpoint = SynchronizedRef.modifyEffect(endpoint, (known) =>
      Option.match(known, {
        onSome: (url) => Effect.succeed([url, known] as const),
        onNone: () => Effect.map(discover(config, oauth.issuer), (url) => [url, Option.some(url)] as const)
      }))
    const get = SynchronizedRef.modifyEffect(cache, (cached) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        if (Option.isSome(cached) && (cached.value.expiresAt === undefined || now < cached.value.expiresAt)) {
          return [cached.value.token, cached] as const
        }
        const fresh = yield* Effect.flatMap(tokenEndpoint, (url) => requestToken(config, oauth, url))
        return [fresh.token, Option.some(fresh)] as const
      }))
    return { get, invalidate: SynchronizedRef.set(cache, Option.none()) }
  })
