/** What a transport call ended with, as the contract compares it: the value, or the failure's reason (and status). */
import type * as TransportApi from "@effect-ahp/harness/Transport"
import type { Json } from "@effect-ahp/protocol"
import { Effect, Either } from "effect"

/** A call's outcome: its value (`undefined` for a notification), or its failure's reason and HTTP status, if any. */
export type Outcome = { readonly ok: Json.JsonValue | undefined } | {
  readonly reason: string
  readonly status?: number
}

/** Runs `exchange` and keeps its outcome. */
export const outcomeOf = <A extends Json.JsonValue | void>(
  exchange: Effect.Effect<A, TransportApi.TransportError>
): Effect.Effect<Outcome> =>
  Effect.map(
    Effect.either(exchange),
    Either.match({
      onLeft: (e): Outcome => e.status === undefined ? { reason: e.reason } : { reason: e.reason, status: e.status },
      onRight: (value): Outcome => ({ ok: value ?? undefined })
    })
  )
