/**
 * The `Transports` service for Node: stdio backends as child processes of
 * `node:child_process`, HTTP backends through an undici `Dispatcher`, credentials through
 * the `CredentialResolver`. `layerNode` also provides attachment uploads (`HttpUpload`)
 * and file sources (`AttachmentFiles`).
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
import * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as AttachmentFiles from "./AttachmentFiles.js"
import * as Credentials from "./Credentials.js"
import * as HttpAuth from "./HttpAuth.js"
import * as HttpTransport from "./HttpTransport.js"
import * as HttpUpload from "./HttpUpload.js"
import * as StdioTransport from "./StdioTransport.js"
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
export type Requirements = Credentials.CredentialResolver | HttpTransport.Dispatcher

/**
 * Builds the service from the platform services it uses. Only those services are captured:
 * each endpoint lives in the scope of the `connect` call, never in a scope that happened to
 * be in context when the service was built. A stdio endpoint redacts from its stderr tails
 * the configured `secrets` and the values the `CredentialResolver` gives for the `tokenEnv`
 * of every backend connected through the service. HTTP endpoints share one
 * `HttpAuth` (built from `options.http` and the `TokenStore` in context, if any), so OAuth
 * tokens and what discovery learned are cached for as long as the service lives.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options = {}): Effect.Effect<TransportApi.Transports["Type"], never, Requirements> =>
  Effect.map(
    Effect.zipWith(
      Effect.context<Requirements>(),
      HttpTransport.makeAuth(options.http),
      (context, auth) =>
        Context.add(
          Context.pick(Credentials.CredentialResolver, HttpTransport.Dispatcher)(context),
          HttpAuth.HttpAuth,
          auth
        )
    ),
    (context) => {
      const configured = (options.secrets ?? []).map((secret) =>
        Redacted.isRedacted(secret) ? Redacted.value(secret) : secret
      )
      const resolver = Context.get(context, Credentials.CredentialResolver)
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
          const endpoint: Effect.Effect<TransportApi.Endpoint, never, Requirements | Scope.Scope> =
            transport.type === "stdio"
              ? StdioTransport.connect(transport, options.stdio, { ...connectOptions, backend: backend.id, secrets })
              : HttpTransport.connect(transport, backend.authentication, options.http, { backend: backend.id, secrets })
          return Effect.provide(endpoint, context)
        }
      })
    }
  )

/**
 * The service, requiring the platform services and a credential resolver.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  options: Options = {}
): Layer.Layer<TransportApi.Transports, never, Requirements> => Layer.effect(TransportApi.Transports, make(options))

/**
 * The service with the Node platform: a keep-alive undici dispatcher (never follows
 * redirects), `Credentials.layerEnv(credentialRefs)`, whose values are also redacted
 * from stdio stderr tails, and the per-user `TokenStore.layerConfig()` of OAuth logins; with
 * them the attachment upload client (`HttpUpload`, authorizing through an `HttpAuth` of the same `options.http`) and
 * file sources (`AttachmentFiles`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerNode = (
  options: Options & {
    /** Values for `tokenRef` / `clientSecretRef` references (none by default). */
    readonly credentialRefs?: Readonly<Record<string, string | Redacted.Redacted<string>>> | undefined
    /** Options of the upload client. */
    readonly upload?: HttpUpload.Options | undefined
  } = {}
): Layer.Layer<TransportApi.Transports | Uploads.Uploads | Attachment.Files> =>
  Layer.mergeAll(
    layer({ ...options, secrets: [...(options.secrets ?? []), ...Object.values(options.credentialRefs ?? {})] }),
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
