/**
 * A Promise facade over `Hooks` for hosts that do not use Effect. One client owns one
 * runtime: its backends' connections (and any processes they start) live until `close`.
 *
 * @since 0.1.0
 */
import type { Event, Json } from "@effect-ahp/protocol"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as ManagedRuntime from "effect/ManagedRuntime"
import type * as DispatchResult from "./DispatchResult.js"
import * as Hooks from "./Hooks.js"
import type { Transports } from "./Transport.js"

/**
 * The part of an `AbortSignal` the client uses.
 *
 * @since 0.1.0
 * @category models
 */
export interface AbortSignalLike {
  readonly aborted: boolean
  addEventListener(type: "abort", listener: () => void, options?: { readonly once?: boolean }): void
  removeEventListener(type: "abort", listener: () => void): void
}

/**
 * Per-call options of the facade: the `Hooks` options, with an `AbortSignal` for
 * interruption.
 *
 * @since 0.1.0
 * @category models
 */
export interface DispatchOptions extends Omit<Hooks.DispatchOptions, "interrupt" | "observers"> {
  readonly signal?: AbortSignalLike | undefined
}

/**
 * A Hooks client for Promise-based hosts.
 *
 * @since 0.1.0
 * @category models
 */
export interface HooksClient {
  /** Runs one boundary call, typed by its event type; rejects only with `InvalidEvent` or `InvalidNarrowing`. */
  readonly dispatch: <T extends Event.EventType>(
    type: T,
    input: Event.InputOf<T>,
    options?: DispatchOptions
  ) => Promise<DispatchResult.DispatchResult<Event.EventOf<T>>>
  /** Runs one boundary call from untyped JSON (validated at run time only). */
  readonly dispatchUnknown: (
    type: Event.EventType,
    input: Json.JsonObject,
    options?: DispatchOptions
  ) => Promise<DispatchResult.DispatchResult>
  /** Stops every backend connection and process; safe to call more than once. */
  readonly close: () => Promise<void>
}

/** Resolves with the value, or rejects with the typed failure itself (not a wrapper). */
const settle = <A, E>(exit: Exit.Exit<A, E>): Promise<A> =>
  Exit.isSuccess(exit) ? Promise.resolve(exit.value) : Promise.reject(Cause.squash(exit.cause))

const aborted = (signal: AbortSignalLike): Effect.Effect<void> =>
  Effect.async<void>((resume) => {
    if (signal.aborted) return resume(Effect.void)
    const listener = () => resume(Effect.void)
    signal.addEventListener("abort", listener, { once: true })
    return Effect.sync(() => signal.removeEventListener("abort", listener))
  })

const effectiveOptions = (options: DispatchOptions | undefined): Hooks.DispatchOptions => {
  const { signal, ...rest } = options ?? {}
  return signal === undefined ? rest : { ...rest, interrupt: aborted(signal) }
}

/**
 * Creates a client from a registration document and a transports layer (for example
 * `NodeTransports.layerNode` from `@effect-ahp/node`). Rejects with a `ConfigurationError`
 * listing every problem when the registration is invalid.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = async (
  registration: unknown,
  transports: Layer.Layer<Transports>,
  options?: Hooks.Options
): Promise<HooksClient> => {
  const runtime = ManagedRuntime.make(Hooks.layerUnknown(registration, options).pipe(Layer.provide(transports)))
  const started = await runtime.runPromiseExit(Effect.void)
  if (Exit.isFailure(started)) {
    await runtime.dispose()
    return Promise.reject(Cause.squash(started.cause))
  }
  let closed: Promise<void> | undefined
  return {
    dispatch: (type, input, dispatchOptions) =>
      runtime.runPromiseExit(Hooks.dispatch(type, input, effectiveOptions(dispatchOptions))).then(settle),
    dispatchUnknown: (type, input, dispatchOptions) =>
      runtime.runPromiseExit(Hooks.dispatchUnknown(type, input, effectiveOptions(dispatchOptions))).then(settle),
    close: () => (closed ??= runtime.dispose())
  }
}
