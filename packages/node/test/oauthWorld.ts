import { HttpTransport, OAuthLogin } from "@effect-ahp/node"
import type { Registration } from "@effect-ahp/protocol"
import * as Undici from "@effect/platform-node/Undici"
import { Effect, Layer } from "effect"
import * as crypto from "node:crypto"
import * as nodeHttp from "node:http"
import type * as net from "node:net"

/** A request seen by a `loopback` server. */
export interface Seen {
  readonly method: string
  readonly path: string
  readonly authorization: string | undefined
  readonly body: string
}

/** What a `loopback` server answers: a status with JSON, raw bytes, or never. */
export interface Reply {
  readonly status: number
  readonly json?: unknown
  readonly raw?: Buffer | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
  /** Send the headers and never finish the body. */
  readonly hang?: boolean | undefined
}

/** A plain-HTTP server on 127.0.0.1 answering with `answer` and recording every request. */
export const loopback = (answer: (seen: Seen) => Reply) =>
  Effect.acquireRelease(
    Effect.async<{ readonly server: nodeHttp.Server; readonly origin: string; readonly seen: Array<Seen> }>(
      (resume) => {
        const seen: Array<Seen> = []
        const server = nodeHttp.createServer((req, res) => {
          let body = ""
          req.setEncoding("utf8").on("data", (chunk: string) => (body += chunk)).on("end", () => {
            const request = {
              method: req.method ?? "",
              path: req.url ?? "",
              authorization: req.headers.authorization,
              body
            }
            seen.push(request)
            const reply = answer(request)
            const bytes = reply.raw ?? Buffer.from(reply.json === undefined ? "" : JSON.stringify(reply.json))
            res.writeHead(reply.status, { "content-type": "application/json", ...reply.headers })
            if (reply.hang === true) return void res.write(bytes.subarray(0, 1))
            res.end(bytes)
          })
        })
        server.listen(0, "127.0.0.1", () =>
          resume(
            Effect.succeed({ server, origin: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`, seen })
          ))
      }
    ),
    ({ server }) =>
      Effect.async<void>((resume) => {
        server.closeAllConnections()
        server.close(() => resume(Effect.void))
      })
  )

/**
 * A dispatcher (for the scope) that reaches the given origins (e.g. `https://issuer.test`)
 * at loopback servers, so tests can stand for https hosts without certificates.
 */
export const routedDispatcher = (routes: Readonly<Record<string, string>>) =>
  Effect.map(
    Effect.acquireRelease(Effect.sync(() => new Undici.Agent()), (agent) => Effect.promise(() => agent.destroy())),
    (agent) =>
      agent.compose((dispatch) => (options, handler) => {
        const routed = routes[String(options.origin)]
        return dispatch(routed === undefined ? options : { ...options, origin: routed }, handler)
      })
  )

export const clientSecret = "client-secret-value"
export const resourceUrl = "https://rs.test/hooks"
export const issuer = "https://as.test"
export const metadataUrl = "https://rs.test/.well-known/oauth-protected-resource/hooks"

/** A person's login to the resource server with authorization code and PKCE. */
export const pkceBinding: Registration.OAuth = {
  type: "oauth",
  issuer,
  resource: resourceUrl,
  clientId: "person",
  flow: "authorization_code_pkce",
  scopes: ["hooks"]
}

/** How the world's servers behave; every field has a well-behaved default. */
export interface WorldOptions {
  /** The protected resource's URL (default `resourceUrl`). */
  readonly resource?: string | undefined
  /** The `WWW-Authenticate` value of the resource's 401 (default: names `metadataUrl`). */
  readonly challenge?: string | undefined
  /** The resource's answer at a metadata path (default: the path-specific one answers). */
  readonly resourceMetadata?: ((path: string) => Reply | undefined) | undefined
  /** Fields over the authorization server's metadata. */
  readonly issuerMetadata?: Readonly<Record<string, unknown>> | undefined
  /** The resource answers 401 even to valid tokens. */
  readonly alwaysUnauthorized?: boolean | undefined
  /** `expires_in` of issued tokens (default 3600). */
  readonly expiresIn?: number | undefined
  /** The authorization endpoint redirects with this error instead of a code. */
  readonly denyWith?: string | undefined
}

/**
 * A protected resource at `https://rs.test/hooks` and its authorization server
 * `https://as.test`, both on loopback behind a routed dispatcher. The server issues
 * `at-N` access tokens (and `rt-N` refresh tokens for codes and refreshes), checks client
 * secrets, PKCE verifiers and redirect URIs, and rotates refresh tokens; the resource
 * accepts every access token issued for it.
 */
export const world = (options: WorldOptions = {}) =>
  Effect.gen(function*() {
    const traffic: Array<string> = []
    let issued = 0
    const accessTokens = new Set<string>()
    let refreshToken: string | undefined = undefined
    const codes = new Map<
      string,
      { readonly challenge: string; readonly redirectUri: string; readonly resource: string }
    >()
    const grants: Array<URLSearchParams> = []
    const token = (withRefresh: boolean, resource: string | null): Reply => {
      issued++
      const access = `at-${issued}`
      if (resource !== null && resource.startsWith(protectedOrigin)) accessTokens.add(access)
      refreshToken = withRefresh ? `rt-${issued}` : undefined
      return {
        status: 200,
        json: {
          access_token: access,
          token_type: "Bearer",
          expires_in: options.expiresIn ?? 3600,
          ...(withRefresh ? { refresh_token: refreshToken } : {})
        }
      }
    }
    const protectedOrigin = new URL(options.resource ?? resourceUrl).origin
    const invalid: Reply = { status: 400, json: { error: "invalid_grant" } }
    const as = yield* loopback(({ body, method, path }) => {
      traffic.push(`${method} ${issuer}${path.split("?")[0]}`)
      const url = new URL(path, "http://x")
      if (method === "GET" && url.pathname === "/.well-known/oauth-authorization-server") {
        return {
          status: 200,
          json: {
            issuer,
            token_endpoint: `${issuer}/token`,
            authorization_endpoint: `${issuer}/authorize`,
            code_challenge_methods_supported: ["S256"],
            ...options.issuerMetadata
          }
        }
      }
      if (method === "GET" && url.pathname === "/authorize") {
        const q = url.searchParams
        const target = new URL(q.get("redirect_uri")!)
        target.searchParams.set("state", q.get("state") ?? "")
        if (options.denyWith !== undefined) {
          target.searchParams.set("error", options.denyWith)
        } else {
          const code = `code-${codes.size + 1}`
          codes.set(code, {
            challenge: q.get("code_challenge")!,
            redirectUri: target.href.split("?")[0]!,
            resource: q.get("resource")!
          })
          target.searchParams.set("code", code)
        }
        return { status: 302, headers: { location: target.href } }
      }
      if (method === "POST" && url.pathname === "/token") {
        const form = new URLSearchParams(body)
        grants.push(form)
        if (form.has("client_secret") && form.get("client_secret") !== clientSecret) return invalid
        switch (form.get("grant_type")) {
          case "client_credentials":
            return form.get("client_secret") === clientSecret ? token(false, form.get("resource")) : invalid
          case "authorization_code": {
            const code = codes.get(form.get("code") ?? "")
            codes.delete(form.get("code") ?? "")
            const verifier = form.get("code_verifier") ?? ""
            const ok = code !== undefined && code.redirectUri === form.get("redirect_uri") &&
              code.resource === form.get("resource") &&
              crypto.createHash("sha256").update(verifier).digest("base64url") === code.challenge
            return ok ? token(true, form.get("resource")) : invalid
          }
          case "refresh_token":
            return refreshToken !== undefined && form.get("refresh_token") === refreshToken
              ? token(true, form.get("resource"))
              : invalid
        }
        return invalid
      }
      return { status: 404 }
    })
    const resource = new URL(options.resource ?? resourceUrl)
    const specific = `/.well-known/oauth-protected-resource${resource.pathname}`
    const challenge = options.challenge ??
      `Bearer resource_metadata="${resource.origin}${specific}", scope="hooks"`
    const rs = yield* loopback(({ authorization, body, method, path }) => {
      traffic.push(`${method} ${resource.origin}${path}`)
      if (method === "GET") {
        const custom = options.resourceMetadata?.(path)
        if (custom !== undefined) return custom
        return path === specific
          ? { status: 200, json: { resource: resource.href, authorization_servers: [issuer] } }
          : { status: 404 }
      }
      const bearer = authorization?.replace(/^Bearer /, "")
      if (options.alwaysUnauthorized === true || bearer === undefined || !accessTokens.has(bearer)) {
        return { status: 401, headers: { "www-authenticate": challenge } }
      }
      const id = (JSON.parse(body) as { id: unknown }).id
      return { status: 200, json: { jsonrpc: "2.0", id, result: { protocolVersion: "draft", effects: [] } } }
    })
    const dispatcher = yield* routedDispatcher({ [resource.origin]: rs.origin, [issuer]: as.origin })
    return {
      rs,
      as,
      dispatcher,
      dispatcherLayer: Layer.succeed(HttpTransport.Dispatcher, dispatcher),
      grants,
      /** Every request either server saw, in order, as `METHOD https://host/path`. */
      traffic
    }
  })

/** A world as `world` builds it. */
export type World = Effect.Effect.Success<ReturnType<typeof world>>

/**
 * A browser double: it "visits" the authorization URL at the world's server, and follows
 * the redirect to the harness's loopback listener after `tamper` had its say.
 */
export const browser = (w: World, opened: Array<string>, tamper: (redirect: URL) => URL = (u) => u) =>
  Layer.succeed(
    OAuthLogin.Browser,
    OAuthLogin.Browser.of({
      open: (url) =>
        Effect.promise(async () => {
          opened.push(url)
          const visit = await fetch(url.replace(issuer, w.as.origin), { redirect: "manual" })
          const location = visit.headers.get("location")
          if (location !== null) await fetch(tamper(new URL(location)).href)
        })
    })
  )

/** A browser double that never comes back. */
export const silentBrowser = (opened: Array<string>) =>
  Layer.succeed(OAuthLogin.Browser, OAuthLogin.Browser.of({ open: (url) => Effect.sync(() => void opened.push(url)) }))
