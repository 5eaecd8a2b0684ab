/**
 * A recording decorator of the harness's `Transports`: every message the harness sends
 * through the real transports, and what came back (the response, the transport error, or
 * nothing because the exchange was interrupted at its deadline), with timings. `ahp
 * inspect` and `ahp demo` use it to show what each backend saw and answered; it changes
 * nothing about the exchanges themselves.
 *
 * @since 0.1.0
 */
import { Transport } from "@effect-ahp/harness"
import type { Json } from "@effect-ahp/protocol"
import { Clock, Context, Effect, Exit, Layer, Ref } from "effect"

/**
 * How one exchange ended.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Answered"; readonly response: Json.JsonValue }
  | { readonly _tag: "Delivered" }
  | { readonly _tag: "Failed"; readonly error: Transport.TransportError }
  | { readonly _tag: "Interrupted" }

/**
 * One message sent to a backend and how it ended.
 *
 * @since 0.1.0
 * @category models
 */
export interface Exchange {
  readonly backend: string
  /** `request` (`hooks/intercept`) or `notification` (`hooks/observe`). */
  readonly kind: "request" | "notification"
  readonly message: Json.JsonObject
  readonly outcome: Outcome
  /** Its position among the exchanges of its connection (1 for the first). */
  readonly sequence: number
  /** When it started, in milliseconds since the recorder was created. */
  readonly startedMs: number
  readonly durationMs: number
}

/**
 * The recorded exchanges.
 *
 * @since 0.1.0
 * @category tags
 */
export class Recorder extends Context.Tag("@effect-ahp/ahp/Recorder")<Recorder, {
  /** Every exchange so far, in the order they ended. */
  readonly exchanges: Effect.Effect<ReadonlyArray<Exchange>>
  /** What a backend's endpoint can tell for a diagnosis (a stdio child's redacted stderr tail). */
  readonly diagnostics: (backend: string) => Effect.Effect<string | undefined>
}>() {}

const outcomeOf = <A>(exit: Exit.Exit<A, Transport.TransportError>, answered: (a: A) => Outcome): Outcome => {
  if (Exit.isSuccess(exit)) return answered(exit.value)
  const failure = exit.cause._tag === "Fail" ? exit.cause.error : undefined
  return failure === undefined ? { _tag: "Interrupted" } : { _tag: "Failed", error: failure }
}

/**
 * Wraps the `Transports` in context, recording every exchange.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Transport.Transports | Recorder, never, Transport.Transports> = Layer.effectContext(
  Effect.gen(function*() {
    const inner = yield* Transport.Transports
    const log = yield* Ref.make<ReadonlyArray<Exchange>>([])
    const origin = yield* Clock.currentTimeMillis

    const recorded = <A>(
      sequence: number,
      backend: string,
      kind: Exchange["kind"],
      message: Json.JsonObject,
      send: Effect.Effect<A, Transport.TransportError>,
      answered: (a: A) => Outcome
    ) =>
      Effect.flatMap(Clock.currentTimeMillis, (start) =>
        send.pipe(
          Effect.onExit((exit) =>
            Effect.flatMap(Clock.currentTimeMillis, (end) =>
              Ref.update(log, (all) => [...all, {
                backend,
                kind,
                message,
                outcome: outcomeOf(exit, answered),
                sequence,
                startedMs: start - origin,
                durationMs: end - start
              }]))
          )
        ))

    const endpoints = new Map<string, Transport.Endpoint>()

    const transports = Transport.Transports.of({
      connect: (backend, options) =>
        Effect.map(inner.connect(backend, options), (endpoint) => {
          endpoints.set(backend.id, endpoint)
          let sent = 0
          return {
            start: endpoint.start,
            diagnostics: endpoint.diagnostics,
            request: (message) =>
              recorded(++sent, backend.id, "request", message, endpoint.request(message), (response) => ({
                _tag: "Answered",
                response
              })),
            notify: (message) =>
              recorded(
                ++sent,
                backend.id,
                "notification",
                message,
                endpoint.notify(message),
                () => ({ _tag: "Delivered" })
              )
          }
        })
    })
    return Context.make(Transport.Transports, transports).pipe(
      Context.add(
        Recorder,
        Recorder.of({
          exchanges: Ref.get(log),
          diagnostics: (backend) => endpoints.get(backend)?.diagnostics ?? Effect.succeed(undefined)
        })
      )
    )
  })
)
