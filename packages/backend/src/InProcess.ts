/**
 * Serving a backend in the same process as the harness: the backend becomes a pair of
 * plain Effect functions over JSON values (`JsonRpc.InProcessBackend`, the shape the
 * harness's in-process transport serves), so a harness can call it directly without a
 * process or a socket.
 *
 * Messages are not copied: the harness's in-process transport already isolates both
 * directions.
 *
 * @since 0.1.0
 */
import type { Json, JsonRpc } from "@effect-ahp/protocol"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type * as Scope from "effect/Scope"
import type * as Backend from "./Backend.js"
import * as Server from "./Server.js"

/**
 * The in-process backend over the `Server` in context.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: Effect.Effect<JsonRpc.InProcessBackend, never, Server.Server> = Effect.map(
  Server.Server,
  (server) => ({
    request: (message) => Effect.map(server.handle(message), Option.getOrElse((): Json.JsonValue => null)),
    notify: (message) => Effect.asVoid(server.handle(message))
  })
)

/**
 * Builds a backend layer in the current scope and returns it as an in-process backend.
 * Closing the scope releases the backend's resources.
 *
 * @example
 * ```ts
 * import { Backend, InProcess } from "@effect-ahp/backend"
 * import { Effect } from "effect"
 *
 * const guard = Backend.intercept("tool.before", () => Effect.succeed([{ type: "deny" as const, reason: "read-only" }]))
 *
 * const program = Effect.gen(function*() {
 *   const backend = yield* InProcess.fromLayer(Backend.make(guard))
 *   return yield* backend.request({ jsonrpc: "2.0", id: 1, method: "initialize", params: {} })
 * }).pipe(Effect.scoped)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromLayer = <E, R>(
  backend: Layer.Layer<Backend.Handlers, E, R>
): Effect.Effect<JsonRpc.InProcessBackend, E, R | Scope.Scope> =>
  Effect.flatMap(Layer.build(Server.layerBackend(backend)), (context) => Effect.provide(make, context))
