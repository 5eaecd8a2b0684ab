/**
 * Serving a backend over HTTP (the AHP HTTP binding): every JSON-RPC message is the body of
 * a `POST` with `Content-Type: application/json`.
 *
 * | Request | Answer |
 * | --- | --- |
 * | a path other than `path` (when set) | 404 |
 * | a method other than `POST` | 405 with `Allow: POST` |
 * | a content type other than `application/json` (charset, if given, `utf-8`) | 415 |
 * | a body larger than `maxBodyBytes` | 413 |
 * | a request (a message with an `id`) | 200, `application/json`, the JSON-RPC response (success or error) |
 * | a body that is not UTF-8 JSON | 200 with the `-32700` parse error (id `null`) |
 * | a body nested deeper than `Json.maxDepth` (512) levels | 200 with `-32600` (id `null`) |
 * | a JSON array (a batch) | 200 with `-32600` (id `null`) |
 * | a notification | 204 with no body, whatever its content (never a JSON-RPC body) |
 * | a defect while handling the request | 200 with `-32603` (never an empty 500) |
 *
 * With `upload` set, `serve` also answers the upload binding on `upload.path`
 * (`Attachments.route`: raw octets in, a `201` receipt out) and keeps the uploaded bytes in
 * a bounded in-memory store (`upload.maxStoredBytes`, default 64 MiB, oldest evicted
 * first) that the backend's handlers read by reference (`Attachments.read`).
 *
 * Every request is bounded before work is done on it: in size (`maxBodyBytes`, checked
 * against `Content-Length` first and while reading), in time (`serve`'s
 * `requestTimeoutMs`: headers and body must arrive within it), and in nesting depth (one
 * linear pass over the body before anything is built). Parsing is linear in the body, so
 * no request holds the server (and every other client) for long.
 *
 * @since 0.1.0
 */
import { Json } from "@effect-ahp/protocol"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServer from "@effect/platform/HttpServer"
import type { ServeError } from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as NodeHttp from "node:http"
import * as Attachments from "./Attachments.js"
import type * as Backend from "./Backend.js"
import { readBody } from "./internal/body.js"
import * as Server from "./Server.js"

/**
 * What the HTTP handler accepts.
 *
 * @since 0.1.0
 * @category models
 */
export interface AppOptions {
  /** The only path served (for example `/hooks`); any path when absent. */
  readonly path?: string
  /** The largest accepted body in bytes (default 16 MiB). */
  readonly maxBodyBytes?: number
}

/**
 * Where and how to serve.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options extends AppOptions {
  /** The port to listen on; `0` picks a free one (see `Address`). */
  readonly port: number
  /** The interface to bind (default `127.0.0.1`: plain HTTP belongs on loopback). */
  readonly host?: string
  /**
   * The time a client has to send a whole request, headers and body (default 30 s); a
   * slower one gets 408 and its connection is closed.
   */
  readonly requestTimeoutMs?: number
  /** Serves attachment uploads on this path (see `Attachments.route`). */
  readonly upload?: UploadOptions | undefined
}

/**
 * The upload route of a served backend.
 *
 * @since 0.1.0
 * @category models
 */
export interface UploadOptions extends Attachments.RouteOptions {
  /** The path uploads are posted to (for example `/uploads`); it must differ from `path`. */
  readonly path: string
  /** The capacity of the server's attachment store (default 64 MiB). */
  readonly maxStoredBytes?: number | undefined
}

/**
 * The default `maxBodyBytes`: 16 MiB.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultMaxBodyBytes = 16 * 1024 * 1024

/**
 * The default `requestTimeoutMs`: 30 s.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultRequestTimeoutMs = 30_000

/**
 * The address a served backend is bound to, and the URL a harness posts to.
 *
 * @since 0.1.0
 * @category tags
 */
export class Address extends Context.Tag("@effect-ahp/backend/HttpAddress")<Address, {
  readonly hostname: string
  readonly port: number
  /** `http://<hostname>:<port><path>` (path `/` when any path is served). */
  readonly url: string
  /** `http://<hostname>:<port><upload path>`, when uploads are served. */
  readonly uploadUrl: string | undefined
}>() {}

const isJsonContentType = (header: string | undefined): boolean => {
  if (header === undefined) return false
  const [mediaType, ...parameters] = header.split(";").map((part) => part.trim().toLowerCase())
  return mediaType === "application/json" && parameters.every((parameter) => {
    const [name, value] = parameter.split("=").map((s) => s.trim())
    return name !== "charset" || value === "utf-8" || value === "\"utf-8\""
  })
}

const pathOf = (url: string): string => {
  const query = url.indexOf("?")
  return query === -1 ? url : url.slice(0, query)
}

const status = (code: number) => HttpServerResponse.empty({ status: code })

/**
 * The HTTP handler of the `Server` in context, for mounting in any `@effect/platform`
 * HTTP server or router.
 *
 * @since 0.1.0
 * @category constructors
 */
export const app = (options?: AppOptions): HttpApp.Default<never, Server.Server> => {
  const max = options?.maxBodyBytes ?? defaultMaxBodyBytes
  return Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    if (options?.path !== undefined && pathOf(request.url) !== options.path) return status(404)
    if (request.method !== "POST") return HttpServerResponse.empty({ status: 405, headers: { allow: "POST" } })
    if (!isJsonContentType(request.headers["content-type"])) return status(415)
    const declared = Number(request.headers["content-length"] ?? "0")
    if (Number.isFinite(declared) && declared > max) return status(413)
    const body = yield* readBody(request.stream, max).pipe(Effect.option)
    if (Option.isNone(body)) return status(400)
    if (Option.isNone(body.value)) return status(413)
    const server = yield* Server.Server
    const response = yield* server.reply(body.value.value)
    return Option.match(response, {
      onNone: () => status(204),
      onSome: (text) => HttpServerResponse.text(text, { contentType: "application/json" })
    })
  }).pipe(
    Effect.catchAllCause((cause) =>
      Cause.isInterruptedOnly(cause) ? Effect.failCause(cause) : Effect.as(
        Effect.logError("handling an HTTP request failed", cause),
        HttpServerResponse.text(Json.stringify(Server.internalErrorResponse(null)), { contentType: "application/json" })
      )
    )
  )
}

const formatUrl = (hostname: string, port: number, path: string): string =>
  `http://${hostname.includes(":") ? `[${hostname}]` : hostname}:${port}${path}`

/**
 * Serves a backend over HTTP for the lifetime of the layer, on Node's HTTP server. The
 * layer provides the bound `Address` (use port `0` to pick a free port) and the server's
 * `Attachments` store, which the backend's handlers may also use (it is provided to them).
 *
 * @example
 * ```ts
 * import { Backend, Http } from "@effect-ahp/backend"
 * import { NodeRuntime } from "@effect/platform-node"
 * import { Effect, Layer } from "effect"
 *
 * const guard = Backend.intercept("tool.before", () => Effect.succeed([]))
 *
 * Layer.launch(Http.serve(Backend.make(guard), { port: 8787, path: "/hooks" })).pipe(NodeRuntime.runMain)
 * ```
 *
 * @since 0.1.0
 * @category serving
 */
export const serve = <E, R>(
  backend: Layer.Layer<Backend.Handlers, E, R>,
  options: Options
): Layer.Layer<Address | Attachments.Attachments, E | ServeError, Exclude<R, Attachments.Attachments>> => {
  const upload = options.upload
  const address = Layer.effect(
    Address,
    Effect.map(HttpServer.HttpServer, (server) => {
      const hostname = server.address._tag === "TcpAddress" ? server.address.hostname : server.address.path
      const port = server.address._tag === "TcpAddress" ? server.address.port : 0
      return Address.of({
        hostname,
        port,
        url: formatUrl(hostname, port, options.path ?? "/"),
        uploadUrl: upload === undefined ? undefined : formatUrl(hostname, port, upload.path)
      })
    })
  )
  const hooks = app(options)
  const uploads = upload === undefined ? undefined : Attachments.route(upload)
  const routed: HttpApp.Default<never, Server.Server | Attachments.Attachments> = uploads === undefined ?
    hooks :
    Effect.flatMap(
      HttpServerRequest.HttpServerRequest,
      (request): HttpApp.Default<never, Server.Server | Attachments.Attachments> =>
        pathOf(request.url) === upload!.path ? uploads : hooks
    )
  const store = Attachments.layerMemory({ maxStoredBytes: upload?.maxStoredBytes })
  return Layer.mergeAll(HttpServer.serve(routed), address).pipe(
    Layer.provide(Server.layerBackend(Layer.provide(backend, store))),
    Layer.provideMerge(store),
    Layer.provide(NodeHttpServer.layerServer(() => {
      const requestTimeout = options.requestTimeoutMs ?? defaultRequestTimeoutMs
      // Node checks for expired requests every `connectionsCheckingInterval` (30 s by default).
      return NodeHttp.createServer({ requestTimeout, connectionsCheckingInterval: Math.min(1_000, requestTimeout) })
    }, {
      port: options.port,
      host: options.host ?? "127.0.0.1"
    }))
  )
}
