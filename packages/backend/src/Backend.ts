/**
 * The backend model: a backend is the set of handlers registered in one `Handlers`
 * registry. Each handler is contributed by its own layer, so a backend is assembled from
 * independent pieces (`Backend.make(guard, redactor, audit)`), and every handler runs with
 * the services of its own layer's context.
 *
 * - `intercept(type, handler)` answers `hooks/intercept` requests for one interceptable
 *   event type with an ordered list of effects.
 * - `observe(selector, handler)` receives `hooks/observe` notifications for one event
 *   type, a family (`"tool.*"`) or every event (`"*"`).
 *
 * When several intercept handlers of one backend handle the same event type, all of them
 * run, one after another in registration order, and the response carries their effects
 * concatenated in that order (the harness then applies its own precedence rules, so a
 * `deny` from any of them still denies). Observe handlers matching an event also run one
 * after another in registration order; a failing observer never stops the next one.
 *
 * Registration order is the order in which the handler layers are built. `make` builds its
 * arguments one after another, left to right, so `make(a, b)` always registers `a` before
 * `b`. `Layer.mergeAll` builds layers concurrently: use it freely for handlers of different
 * event types, and `make` whenever the order of same-event handlers matters.
 *
 * @since 0.1.0
 */
import type { Boundaries, Capabilities, Event, HookEffect, Intercept, Json, JsonRpc } from "@effect-ahp/protocol"
import { Registration } from "@effect-ahp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Scope from "effect/Scope"

/**
 * The event types that may appear in a `hooks/intercept` request.
 *
 * @since 0.1.0
 * @category models
 */
export type InterceptableType = Event.InterceptableEvent["type"]

/**
 * The event families (`tool`, `session`, …): the part of an event type before the first dot.
 *
 * @since 0.1.0
 * @category models
 */
export type Family = Event.EventType extends infer T ? T extends `${infer F}.${string}` ? F : never : never

/**
 * Which events an observe handler receives: one event type, a whole family such as
 * `"tool.*"`, or every event (`"*"`).
 *
 * @since 0.1.0
 * @category models
 */
export type Selector = Event.EventType | `${Family}.*` | "*"

/**
 * The events a selector matches.
 *
 * @since 0.1.0
 * @category models
 */
export type EventsOf<S extends Selector> = S extends "*" ? Event.Event
  : S extends `${infer F}.*` ? Extract<Event.Event, { readonly type: `${F}.${string}` }>
  : S extends Event.EventType ? Event.EventOf<S>
  : never

/**
 * A decoded `hooks/intercept` request as a handler sees it: the typed event, the
 * capabilities this request grants, and the optional incoming decision state.
 *
 * @since 0.1.0
 * @category models
 */
export interface InterceptRequest<T extends InterceptableType = InterceptableType> {
  /** The JSON-RPC id (equal to `event.id`). */
  readonly id: JsonRpc.Id
  readonly event: Event.EventOf<T>
  /** What this request grants; the server refuses to send anything beyond it. */
  readonly capabilities: Capabilities.Capabilities
  readonly state?: Intercept.State
  readonly extensions?: { readonly [key: string]: Json.JsonValue }
}

/**
 * A registered intercept handler. Its effects are checked against the request's grants
 * before anything is sent.
 *
 * @since 0.1.0
 * @category models
 */
export interface InterceptHandler {
  readonly _tag: "Intercept"
  readonly eventType: InterceptableType
  readonly run: (request: InterceptRequest) => Effect.Effect<ReadonlyArray<HookEffect.HookEffect>, unknown>
}

/**
 * A registered observe handler.
 *
 * @since 0.1.0
 * @category models
 */
export interface ObserveHandler {
  readonly _tag: "Observe"
  readonly selector: Selector
  readonly run: (event: Event.Event) => Effect.Effect<void, unknown>
}

/**
 * Any registered handler.
 *
 * @since 0.1.0
 * @category models
 */
export type Handler = InterceptHandler | ObserveHandler

/**
 * The handler registry of one backend. Handler layers register into it while the backend
 * layer is built; servers read it for every message.
 *
 * @since 0.1.0
 * @category tags
 */
export class Handlers extends Context.Tag("@effect-ahp/backend/Handlers")<Handlers, {
  readonly register: (handler: Handler) => Effect.Effect<void>
  /** The intercept handlers for an event type, in registration order. */
  readonly intercepts: (eventType: string) => ReadonlyArray<InterceptHandler>
  /** The observe handlers whose selector matches an event type, in registration order. */
  readonly observers: (eventType: string) => ReadonlyArray<ObserveHandler>
}>() {}

/**
 * An empty registry.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeHandlers: Effect.Effect<Context.Tag.Service<Handlers>> = Effect.sync(() => {
  const registered: Array<Handler> = []
  return Handlers.of({
    register: (handler) => Effect.sync(() => registered.push(handler)),
    intercepts: (eventType) =>
      registered.filter((h): h is InterceptHandler => h._tag === "Intercept" && h.eventType === eventType),
    observers: (eventType) =>
      registered.filter((h): h is ObserveHandler =>
        h._tag === "Observe" && Registration.selectorMatches(h.selector, eventType)
      )
  })
})

/**
 * A backend with no handlers yet: the registry that handler layers register into.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Handlers> = Layer.effect(Handlers, makeHandlers)

/**
 * The effects an intercept handler may answer at the interceptable event `T`
 * (`Boundaries.EffectAt<T>` of the protocol package): its allowed kinds, modify targets with
 * their value types, flow operations and supplied-result type.
 *
 * @since 0.1.0
 * @category models
 */
export type EffectAt<T extends InterceptableType> = Boundaries.EffectAt<T>

const registerIntercept = <T extends InterceptableType, E, R>(
  eventType: T,
  handler: (request: InterceptRequest<T>) => Effect.Effect<ReadonlyArray<HookEffect.HookEffect>, E, R>
): Layer.Layer<never, never, Handlers | Exclude<R, Scope.Scope>> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const handlers = yield* Handlers
    const context = yield* Effect.context<Exclude<R, Scope.Scope>>()
    yield* handlers.register({
      _tag: "Intercept",
      eventType,
      run: (request) =>
        handler(request as unknown as InterceptRequest<T>).pipe(
          Effect.scoped,
          Effect.provide(context),
          Effect.withSpan("Backend.intercept", { attributes: { eventType } })
        )
    })
  }))

/**
 * A layer that contributes an intercept handler for one interceptable event type. The
 * handler receives the typed event and the request's capabilities and returns the ordered
 * effects (an empty list means "no change", never permission). Its result is typed by the
 * boundary (`EffectAt<T>`): an effect kind, modify target, value type or flow operation the
 * event does not accept does not compile. It runs with the services of the layer's own
 * context; each call gets its own `Scope`, closed when it returns.
 *
 * A failure or defect of the handler is answered with `backend_internal_error` (-32004),
 * without its text. Effects the request did not grant are never sent: the whole response
 * becomes an internal error (-32603).
 *
 * @example
 * ```ts
 * import { Backend } from "@effect-ahp/backend"
 * import { Effect } from "effect"
 *
 * const guard = Backend.intercept("tool.before", (request) =>
 *   Effect.succeed(
 *     String(request.event.tool.input["command"] ?? "").includes("rm -rf")
 *       ? [{ type: "deny" as const, reason: "rm -rf is not allowed" }]
 *       : []
 *   ))
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const intercept: <T extends InterceptableType, E, R>(
  eventType: T,
  handler: (request: InterceptRequest<T>) => Effect.Effect<ReadonlyArray<EffectAt<T>>, E, R>
) => Layer.Layer<never, never, Handlers | Exclude<R, Scope.Scope>> = registerIntercept as never

/**
 * `intercept` with an untyped result: the handler may return any wire effect, whatever the
 * boundary accepts. For backends that relay effects they do not choose (a scripted or
 * replaying backend, a conformance probe); the grant check before sending still applies.
 *
 * @since 0.1.0
 * @category constructors
 */
export const interceptAny: <T extends InterceptableType, E, R>(
  eventType: T,
  handler: (request: InterceptRequest<T>) => Effect.Effect<ReadonlyArray<HookEffect.HookEffect>, E, R>
) => Layer.Layer<never, never, Handlers | Exclude<R, Scope.Scope>> = registerIntercept

/**
 * A layer that contributes an observe handler for the events a selector matches: one event
 * type (`"tool.after"`), a family (`"tool.*"`) or every event (`"*"`). Observations are
 * notifications: nothing is ever answered, and a failure is only logged. The handler runs
 * with the services of the layer's own context; each call gets its own `Scope`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const observe = <S extends Selector, E, R>(
  selector: S,
  handler: (event: EventsOf<S>) => Effect.Effect<void, E, R>
): Layer.Layer<never, never, Handlers | Exclude<R, Scope.Scope>> =>
  Layer.effectDiscard(Effect.gen(function*() {
    const handlers = yield* Handlers
    const context = yield* Effect.context<Exclude<R, Scope.Scope>>()
    yield* handlers.register({
      _tag: "Observe",
      selector,
      run: (event) =>
        handler(event as EventsOf<S>).pipe(
          Effect.scoped,
          Effect.provide(context),
          Effect.withSpan("Backend.observe", { attributes: { eventType: event.type } })
        )
    })
  }))

type SuccessOf<L> = L extends Layer.Layer<infer A, infer _E, infer _R> ? A : never
type ErrorOf<L> = L extends Layer.Layer<infer _A, infer E, infer _R> ? E : never
type ContextOf<L> = L extends Layer.Layer<infer _A, infer _E, infer R> ? R : never

/**
 * A backend from handler layers, registered in argument order (each layer is built after
 * the previous one). The result provides the `Handlers` registry that servers need.
 *
 * @example
 * ```ts
 * import { Backend } from "@effect-ahp/backend"
 * import { Effect } from "effect"
 *
 * const guard = Backend.intercept("tool.before", () => Effect.succeed([]))
 * const audit = Backend.observe("tool.*", (event) => Effect.log(event.type))
 *
 * const backend = Backend.make(guard, audit)
 * ```
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <const Layers extends ReadonlyArray<Layer.Layer.Any>>(
  ...handlers: Layers
): Layer.Layer<
  Handlers | SuccessOf<Layers[number]>,
  ErrorOf<Layers[number]>,
  Exclude<ContextOf<Layers[number]>, Handlers>
> =>
  handlers.reduce(
    (backend: Layer.Layer<Handlers, unknown, unknown>, handler) =>
      Layer.provideMerge(handler as Layer.Layer<never, unknown, unknown>, backend),
    layer
  ) as never
