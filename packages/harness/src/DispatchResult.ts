/**
 * The result of one boundary call (`Hooks.dispatch`): the effective event, the settled
 * decision, the failed routes, the observation deliveries and whether the call was
 * interrupted, with `observationsDone` for deliveries that run in a host scope. `make` is
 * the one way the harness builds a result; the `DispatchResult` Schema gives its JSON form.
 *
 * @since 0.1.0
 */
import { Json } from "@effect-ahp/protocol"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Observation from "./Observation.js"
import * as RouteFailure from "./RouteFailure.js"
import * as Settlement from "./Settlement.js"

/**
 * The data of one boundary call's result, as a Schema whose encoding is the documented JSON
 * form `ahp dispatch` prints: the effective event, the decision's members
 * (`Settlement.DecisionJson`), the failed routes, the observation deliveries and whether
 * the call was interrupted.
 *
 * @since 0.1.0
 * @category schemas
 */
export const DispatchResult = Schema.transform(
  Schema.Struct({
    event: Json.AnyObject,
    ...Settlement.DecisionJson.fields,
    errors: Schema.Array(RouteFailure.FromJson),
    observations: Schema.Array(Observation.Observation),
    interrupted: Schema.Boolean
  }),
  Schema.Struct({
    event: Json.AnyObject,
    decision: Settlement.DecisionFromSelf,
    errors: Schema.Array(Schema.typeSchema(RouteFailure.FromJson)),
    observations: Schema.Array(Observation.Observation),
    interrupted: Schema.Boolean
  }),
  {
    strict: true,
    decode: ({ effects, decision, errors, event, interrupted, messages, observations, state }) => ({
      event,
      decision: Settlement.fromJson({ effects, decision, state, messages }),
      errors,
      observations,
      interrupted
    }),
    encode: ({ decision, errors, event, interrupted, observations }) => ({
      event,
      ...Settlement.toJson(decision),
      errors,
      observations,
      interrupted
    })
  }
)

/**
 * The result of one boundary call. `E` is the effective event's type: `Event.EventOf<T>`
 * from `dispatch(type, …)` (the event was validated against the boundary's Schema on entry
 * and every accepted edit against its target's), a JSON object from `dispatchUnknown`.
 *
 * @since 0.1.0
 * @category models
 */
export interface DispatchResult<E = Json.JsonObject> extends Omit<Schema.Schema.Type<typeof DispatchResult>, "event"> {
  /** The effective event after accepted edits. */
  readonly event: E
  /** The final observation outcomes (immediate unless deliveries run in a host scope; owned by the call, so closing that scope early yields the pending ones as `interrupted`). */
  readonly observationsDone: Effect.Effect<ReadonlyArray<Observation.Observation>>
}

/**
 * A result from its parts; `observationsDone` defaults to the observations given (the
 * deliveries already ended).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (parts: {
  readonly event: Json.JsonObject
  readonly decision: Settlement.Decision
  readonly errors: ReadonlyArray<RouteFailure.RouteFailure>
  readonly observations: ReadonlyArray<Observation.Observation>
  readonly interrupted: boolean
  readonly observationsDone?: Effect.Effect<ReadonlyArray<Observation.Observation>> | undefined
}): DispatchResult => ({
  event: parts.event,
  decision: parts.decision,
  errors: parts.errors,
  observations: parts.observations,
  interrupted: parts.interrupted,
  observationsDone: parts.observationsDone ?? Effect.succeed(parts.observations)
})
