/**
 * The Node transports, loaded on first use: the stdio binding is imported when a stdio
 * backend is first connected, the HTTP binding (undici and the credential resolver) when an
 * HTTP backend is, and not at all otherwise. A command hook starts a process per tool call,
 * so it pays only for the transports the matching subscriptions use.
 *
 * @since 0.1.0
 */
import { Transport } from "@effect-ahp/harness"
import type { StdioTransport } from "@effect-ahp/node"
import { Effect, Layer } from "effect"

/**
 * Options of the stdio binding.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly stdio?: StdioTransport.Options | undefined
}

const loadHttp = Effect.promise(() =>
  Promise.all([
    import("@effect-ahp/node/HttpTransport"),
    import("@effect-ahp/node/Credentials"),
    import("@effect-ahp/node/TokenStore")
  ])
)

/**
 * The `Transports` service importing each binding on first use. The HTTP dispatcher and
 * authorization (`HttpAuth`, with the per-user store of `ahp auth login` tokens) are built
 * once, for the lifetime of the layer.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: Options = {}): Layer.Layer<Transport.Transports> =>
  Layer.scoped(
    Transport.Transports,
    Effect.gen(function*() {
      const scope = yield* Effect.scope
      const http = yield* Effect.cached(
        Effect.flatMap(loadHttp, ([HttpTransport, Credentials, TokenStore]) => {
          const platform = Layer.mergeAll(
            HttpTransport.layerDispatcher,
            Credentials.layerEnv(),
            TokenStore.layerConfig()
          )
          return Effect.map(
            Layer.buildWithScope(Layer.provideMerge(HttpTransport.layerAuth(), platform), scope),
            (context) => ({ HttpTransport, context })
          )
        })
      )
      return Transport.Transports.of({
        connect: (backend, connectOptions) => {
          const transport = backend.transport
          if (transport.type === "in-process") return Effect.fail(Transport.notServed(backend))
          return transport.type === "stdio"
            ? Effect.flatMap(
              Effect.promise(() => import("@effect-ahp/node/StdioTransport")),
              (StdioTransport) =>
                StdioTransport.connect(transport, options.stdio, { ...connectOptions, backend: backend.id })
            )
            : Effect.flatMap(http, ({ HttpTransport, context }) =>
              Effect.provide(
                HttpTransport.connect(transport, backend.authentication, {}, { backend: backend.id }),
                context
              ))
        }
      })
    })
  )
