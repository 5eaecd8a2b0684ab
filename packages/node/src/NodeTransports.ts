/**
 * The `Transports` service for Node: stdio backends as child processes of
 * `node:child_process`, HTTP backends through an undici `Dispatcher`, credentials through
 * the `CredentialResolver`. `layerNode` also provides attachment uploads (`HttpUpload`)
 * and file sources (`AttachmentFiles`).
 *
 * Each binding is loaded when a backend of its kind is first connected, never before: a
 * process whose registration has only stdio backends never loads the HTTP binding, and
 * `layerOnDemand` builds the HTTP platform services (the undici dispatcher, the per-user
 * token store) then too, which suits a process started per event (a command hook).
 *
 * @since 0.1.0
 */
import type * as Attachment from "@effect-ahp/harness/Attachment"
import * as TransportApi from "@effect-ahp/harness/Transport"
import type * as Uploads from "@effect-ahp/harness/Uploads"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as AttachmentFiles from "./AttachmentFiles.js"
import * as Credentials from "./Credentials.js"
import type * as HttpAuth from "./HttpAuth.js"
import type * as HttpTransport from "./HttpTransport.js"
import type * as HttpUpload from "./HttpUpload.js"
import * as dispatcher from "./internal/dispatcher.js"
import type * as StdioTransport from "./StdioTransport.js"
import * as TokenStore from "./TokenStore.js"

/**
 * Options per binding.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly stdio?: StdioTransport.Options | undefined
  readonly http?: HttpTransport.Options | undefined
  /**
   * Secret values to redact from stdio backends' stderr tails and from every backend's
   * JSON-RPC error answers, on top of the values passed in stdio environments, the credential
   * an HTTP request carried and the variables named by the registration's `tokenEnv`s.
   */
  readonly secrets?: ReadonlyArray<string | Redacted.Redacted<string>> | undefined
}

/**
 * What the service needs from its environment.
 *
 * @since 0.1.0
 * @category models
 */
export type Requirements = Credentials.CredentialResolver | dispatcher.Dispatcher

/** What HTTP endpoints are provided with: the platform services and one shared `HttpAuth`. */
type HttpContext = Context.Context<Requirements | HttpAuth.HttpAuth>

interface HttpBinding {
  readonly connect: typeof HttpTransport.connect
  readonly context: HttpContext
}

const loadStdio = Effect.promise(() => import("./StdioTransport.js"))
const loadHttp = Effect.promise(() => Promise.all([import("./HttpTransport.js"), import("./HttpAuth.js")]))

/**
 * The HTTP binding over the platform services: one `HttpAuth` from `options.http`, the
 * dispatcher, the credential resolver and the token store, if any.
 */
const httpBinding = (
  options: HttpTransport.Options | undefined,
  platform: Context.Context<Requirements>,
  store: Option.Option<TokenStore.TokenStore["Type"]>
): Effect.Effect<HttpBinding> =>
  Effect.flatMap(loadHttp, ([HttpTransport, HttpAuthModule]) => {
    const withStore = Option.match(store, {
      onNone: () => platform,
      onSome: (found) => Context.add(platform, TokenStore.TokenStore, found)
    })
    return Effect.map(
      Effect.provide(HttpTransport.makeAuth(options), withStore),
      (auth): HttpBinding => ({
        connect: HttpTransport.connect,
        context: Context.add(platform, HttpAuthModule.HttpAuth, auth)
      })
    )
  })

/**
 * The service over a credential resolver and the HTTP binding, loaded (for
 * `layerOnDemand`, with its platform services built) by the first HTTP backend connected.
 */
const makeWith = (
  options: Options,
  resolver: Credentials.CredentialResolver["Type"],
  http: Effect.Effect<HttpBinding>
): Effect.Effect<TransportApi.Transports["Type"]> =>
  Effect.map(Effect.cached(loadStdio), (stdio) => {
    const configured = (options.secrets ?? []).map((secret) =>
      Redacted.isRedacted(secret) ? Redacted.value(secret) : secret
    )
    const tokenEnvs = new Set<string>()
    // Read when a tail is rendered, so a rotated value is redacted too; a resolver that
    // cannot answer at once (or at all) adds nothing.
    const secrets = () => [
      ...configured,
      ...[...tokenEnvs].flatMap((name) => {
        const resolved = Effect.runSyncExit(resolver.resolve({ kind: "env", name }))
        return Exit.isSuccess(resolved) ? [Redacted.value(resolved.value)] : []
      })
    ]
    return TransportApi.Transports.of({
      connect: (backend, connectOptions) => {
        const transport = backend.transport
        const auth = backend.authentication
        if (auth?.type === "bearer" && auth.tokenEnv !== undefined) tokenEnvs.add(auth.tokenEnv)
        if (transport.type === "in-process") return Effect.fail(TransportApi.notServed(backend))
        return transport.type === "stdio"
          ? Effect.flatMap(stdio, (StdioTransport) =>
            StdioTransport.connect(transport, options.stdio, { ...connectOptions, backend: backend.id, secrets }))
          : Effect.flatMap(http, ({ connect, context }) =>
            Effect.provide(connect(transport, auth, options.http, { backend: backend.id, secrets }), context))
      }
    })
  })

/**
 * Builds the service from the platform services it uses. Only those services are captured:
 * each endpoint lives in the scope of the `connect` call, never in a scope that happened to
 * be in context when the service was built. A stdio endpoint redacts from its stderr tails
 * the configured `secrets` and the values the `CredentialResolver` gives for the `tokenEnv`
 * of every backend connected through the service. HTTP endpoints share one `HttpAuth`
 * (built from `options.http` and the `TokenStore` in context, if any), so OAuth tokens and
 * what discovery learned are cached for as long as the service lives.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<TransportApi.Transports["Type"], never, Requirements> =>
  Effect.gen(function*() {
    const platform = Context.pick(Credentials.CredentialResolver, dispatcher.Dispatcher)(
      yield* Effect.context<Requirements>()
    )
    const store = yield* Effect.serviceOption(TokenStore.TokenStore)
    const http = yield* Effect.cached(httpBinding(options.http, platform, store))
    return yield* makeWith(options, Context.get(platform, Credentials.CredentialResolver), http)
  })

/**
 * The service, requiring the platform services and a credential resolver.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<TransportApi.Transports, never, Requirements> => Layer.effect(TransportApi.Transports, make(options))

/** Options of the layers that bring their own platform services. */
interface NodeOptions extends Options {
  /** Values for `tokenRef` / `clientSecretRef` references (none by default). */
  readonly credentialRefs?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
}

/** The configured secrets with the values of the credential references, which are secrets too. */
const withReferenceSecrets = (options: NodeOptions): Options => ({
  ...options,
  secrets: [...(options.secrets ?? []), ...Object.values(options.credentialRefs ?? {})]
})

/**
 * The service alone, needing nothing: the credential resolver is
 * `Credentials.layerEnv(credentialRefs)` (its values redacted from stdio stderr tails), and
 * the HTTP platform services — a keep-alive undici dispatcher (never following redirects)
 * and the per-user `TokenStore.layerConfig()` of OAuth logins — are built when the first
 * HTTP backend is connected, for the lifetime of the layer. For a process started per event
 * (a command hook): it loads and builds only what the backends it connects use.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerOnDemand = (options: NodeOptions = {}): Layer.Layer<TransportApi.Transports> =>
  Layer.scoped(
    TransportApi.Transports,
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const resolver = yield* Credentials.CredentialResolver
      const http = yield* Effect.cached(
        Effect.flatMap(loadHttp, ([HttpTransport]) =>
          Effect.flatMap(
            Layer.buildWithScope(Layer.merge(HttpTransport.layerDispatcher, TokenStore.layerConfig()), scope),
            (built) =>
              httpBinding(
                options.http,
                Context.add(Context.pick(dispatcher.Dispatcher)(built), Credentials.CredentialResolver, resolver),
                Option.some(Context.get(built, TokenStore.TokenStore))
              )
          ))
      )
      return yield* makeWith(withReferenceSecrets(options), resolver, http)
    })
  ).pipe(Layer.provide(Credentials.layerEnv(options.credentialRefs)))

/**
 * The service with the Node platform: a keep-alive undici dispatcher (never follows
 * redirects), `Credentials.layerEnv(credentialRefs)`, whose values are also redacted
 * from stdio stderr tails, and the per-user `TokenStore.layerConfig()` of OAuth logins; with
 * them the attachment upload client (`HttpUpload`, authorizing through an `HttpAuth` of the
 * same `options.http`) and file sources (`AttachmentFiles`). The HTTP modules are loaded
 * when the layer is built.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNode = (
  options: NodeOptions & {
    /** Options of the upload client. */
    readonly upload?: HttpUpload.Options | undefined
  } = {}
): Layer.Layer<TransportApi.Transports | Uploads.Uploads | Attachment.Files> =>
  Layer.unwrapEffect(
    Effect.map(
      Effect.promise(() => Promise.all([import("./HttpTransport.js"), import("./HttpUpload.js")])),
      ([HttpTransport, HttpUpload]) =>
        Layer.mergeAll(
          layer(withReferenceSecrets(options)),
          HttpUpload.layer({ ...options.http, ...options.upload }),
          AttachmentFiles.layer
        ).pipe(
          Layer.provide(
            Layer.mergeAll(
              HttpTransport.layerDispatcher,
              Credentials.layerEnv(options.credentialRefs),
              TokenStore.layerConfig()
            )
          )
        )
    )
  )
