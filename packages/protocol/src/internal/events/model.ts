/**
 * Model events: `model.request.before`, `model.response.after`, `model.error`,
 * `model.switch.before` and `model.switch.after`.
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { closed, NonEmpty } from "../../Common.js"
import * as Content from "../../Content.js"
import * as Json from "../../Json.js"
import { ClosedIdentity, crossField, Currency, envelope, forbidden, NonNegativeNumber, optional, type Problem, struct } from "./fields.js"
import { Attempt, AttemptUsage, EventError, Executed, Execution, Model } from "./shared.js"

const attempt = { turn: optional(ClosedIdentity), model: Model, attempt: Attempt }

/** @internal */
export const ModelRequestBefore = struct({
  ...envelope,
  type: Schema.Literal("model.request.before"),
  ...attempt,
  items: Content.Messages,
  params: Json.AnyObject,
  usage: forbidden("a model request has no usage yet; usage belongs to model.response.after"),
  execution: forbidden("a model request precedes execution; execution belongs to model.response.after"),
  finishReason: forbidden("a model request has no finishReason; it belongs to model.response.after"),
  latencyMs: forbidden("a model request has no latency yet; latencyMs belongs to model.response.after"),
  error: forbidden("a model request carries no error; failures are model.error events")
}).annotations({ identifier: "ModelRequestBefore" })

/** @internal */
export const ModelResponseAfter = crossField(
  struct({
    ...envelope,
    type: Schema.Literal("model.response.after"),
    ...attempt,
    execution: Execution,
    items: Content.Messages,
    usage: optional(AttemptUsage),
    finishReason: NonEmpty,
    latencyMs: optional(NonNegativeNumber),
    error: forbidden("a model response carries no error; failures are model.error events")
  }),
  (event) => {
    if (event.execution.status !== "skipped") return []
    const problems: Array<Problem> = []
    if (event.execution.reason !== "supplied_result") {
      problems.push({ path: ["execution", "reason"], message: "must be supplied_result when a model response was skipped" })
    }
    if (event.usage !== undefined) {
      problems.push({ path: ["usage"], message: "must be absent when execution was skipped (a supplied result has no usage)" })
    }
    if (event.latencyMs !== undefined) {
      problems.push({ path: ["latencyMs"], message: "must be absent when execution was skipped" })
    }
    return problems
  },
  ({ latencyMs, usage, ...event }) =>
    event.execution.status === "skipped"
      ? { ...event, execution: { status: "skipped", reason: "supplied_result" } as const }
      : { ...event, ...(usage === undefined ? {} : { usage }), ...(latencyMs === undefined ? {} : { latencyMs }) }
).annotations({ identifier: "ModelResponseAfter" })

/** @internal */
export const ModelError = struct({
  ...envelope,
  type: Schema.Literal("model.error"),
  ...attempt,
  execution: Executed.annotations({ message: () => "must be {\"status\": \"executed\"}: a model error follows a real attempt" }),
  error: EventError,
  usage: optional(AttemptUsage),
  latencyMs: optional(NonNegativeNumber),
  recovery: optional(NonEmpty),
  finishReason: forbidden("a model error has no finishReason; it belongs to model.response.after")
}).annotations({ identifier: "ModelError" })

const Pricing = Schema.Struct({
  currency: Currency,
  inputPerMillionTokens: optional(NonNegativeNumber),
  outputPerMillionTokens: optional(NonNegativeNumber)
}).annotations({ identifier: "Pricing", ...closed })

/** @internal */
export const ModelSwitchBefore = struct({
  ...envelope,
  type: Schema.Literal("model.switch.before"),
  turn: optional(ClosedIdentity),
  current: Model,
  proposed: Model,
  reason: NonEmpty,
  pricing: optional(Pricing),
  previous: forbidden("a proposed switch has no previous model; previous belongs to model.switch.after")
}).annotations({ identifier: "ModelSwitchBefore" })

/** @internal */
export const ModelSwitchAfter = struct({
  ...envelope,
  type: Schema.Literal("model.switch.after"),
  turn: optional(ClosedIdentity),
  previous: Model,
  current: Model,
  reason: NonEmpty,
  proposed: forbidden("a completed switch has no proposed model; proposed belongs to model.switch.before")
}).annotations({ identifier: "ModelSwitchAfter" })
