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
import {
  ClosedIdentity,
  crossField,
  Currency,
  envelope,
  forbidden,
  NonNegativeNumber,
  optional,
  type Problem,
  struct
} from "./fields.js"
import { Attempt, AttemptUsage, EventError, Executed, Execution, Model } from "./shared.js"

const attempt = { turn: optional(ClosedIdentity), model: Model, attempt: Attempt }

/** @internal */
export const ModelRequestBefore = struct({
  ...envelope,
  type: Schema.Literal("model.request.before"),
  ...attempt,
  items: Content.Messages,
  params: Json.AnyObject,
  usage: forbidden("must be absent: usage belongs to model.response.after"),
  execution: forbidden("must be absent: execution belongs to model.response.after"),
  finishReason: forbidden("must be absent: finishReason belongs to model.response.after"),
  latencyMs: forbidden("must be absent: latencyMs belongs to model.response.after"),
  error: forbidden("must be absent: a failed attempt is reported by model.error")
}).annotations({ identifier: "ModelRequestBefore" })

/** @internal */
export const ModelResponseAfter = crossField(
  Schema.Struct({
    ...envelope,
    type: Schema.Literal("model.response.after"),
    ...attempt,
    execution: Execution,
    items: Content.Messages,
    usage: optional(AttemptUsage),
    finishReason: NonEmpty,
    latencyMs: optional(NonNegativeNumber),
    error: forbidden("must be absent: a failed attempt is reported by model.error")
  }),
  (event) => {
    if (event.execution.status !== "skipped") return []
    const problems: Array<Problem> = []
    if (event.execution.reason !== "supplied_result") {
      problems.push({ path: ["execution", "reason"], message: "must be supplied_result when the response was skipped" })
    }
    if (event.usage !== undefined) {
      problems.push({ path: ["usage"], message: "must be absent when execution was skipped (no usage is fabricated)" })
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
  execution: Executed.annotations({ message: () => "must be executed: a model error follows a real attempt" }),
  error: EventError,
  usage: optional(AttemptUsage),
  latencyMs: optional(NonNegativeNumber),
  recovery: optional(NonEmpty),
  finishReason: forbidden("must be absent: finishReason belongs to model.response.after")
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
  previous: forbidden("must be absent: previous belongs to model.switch.after")
}).annotations({ identifier: "ModelSwitchBefore" })

/** @internal */
export const ModelSwitchAfter = struct({
  ...envelope,
  type: Schema.Literal("model.switch.after"),
  turn: optional(ClosedIdentity),
  previous: Model,
  current: Model,
  reason: NonEmpty,
  proposed: forbidden("must be absent: proposed belongs to model.switch.before")
}).annotations({ identifier: "ModelSwitchAfter" })
