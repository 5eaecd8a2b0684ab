/**
 * The decision audit: one `Record` per settled call, handed to an `Audit` service after
 * the decision is settled. Hooks with no Audit (the reference's default, `none`) do no
 * audit work at all.
 *
 * The service built by `make` keeps the audit off the decision's critical path: a call
 * only offers its entry to a bounded queue (`capacity`, default 1024 entries), which never
 * waits — when the queue is full the entry is dropped and counted (`dropped`), so a slow
 * sink can never delay or change a decision. A background fiber turns entries into records
 * (hashing the effective input before and after with SHA-256) and writes them to the sink;
 * closing the service's scope writes every entry still queued.
 *
 * A record holds no event content and no credentials unless `content: true`, which adds
 * the event as dispatched (for replay). Route failure details are never recorded.
 *
 * @since 0.1.0
 */
import { Common, HookEffect, Intercept, Json } from "@effect-ahp/protocol"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Layer from "effect/Layer"
import * as Queue from "effect/Queue"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import * as Attachment from "./Attachment.js"
import * as Chain from "./Chain.js"
import * as Observation from "./Observation.js"
import { Code } from "./RouteFailure.js"
import type * as Settlement from "./Settlement.js"
import * as Tracing from "./Tracing.js"

/**
 * What one interceptor's exchange came to: `accepted` (its response published effects),
 * `no-effect` (an accepted response without effects), `rejected` (the response failed
 * validation or staging: `code` says why) or `failed` (preparation or transport: `code`).
 *
 * @since 0.1.0
 * @category models
 */
export const InterceptorOutcome = Schema.Literal(...Chain.outcomes)

/**
 * One accepted effect, without its content: type, and target and operation where it has them.
 *
 * @since 0.1.0
 * @category models
 */
export const EffectSummary = Schema.Struct({
  type: HookEffect.Kind,
  target: Common.optional(Schema.String),
  operation: Common.optional(Schema.String)
})

/**
 * One called interceptor, in chain order.
 *
 * @since 0.1.0
 * @category models
 */
export const Interceptor = Schema.Struct({
  backend: Schema.String,
  subscription: Schema.String,
  transport: Schema.Literal("stdio", "http", "in-process"),
  latencyMs: Schema.Number,
  outcome: InterceptorOutcome,
  code: Common.optional(Code),
  failurePolicy: Schema.Literal("fail-open", "fail-closed"),
  /** Whether this interceptor's failure denied the call (fail-closed). */
  syntheticDenial: Schema.Boolean,
  effects: Schema.Array(EffectSummary)
})

/**
 * The settled decision.
 *
 * @since 0.1.0
 * @category models
 */
export const Settled = Schema.Struct({
  decision: Intercept.Permission,
  /** Whether the denial (if any) is a fail-closed synthetic one rather than a backend's deny. */
  syntheticDenial: Schema.Boolean,
  denialCode: Common.optional(Schema.String),
  flow: Schema.Literal("none", "stop", "continue"),
  resultSupplied: Schema.Boolean,
  interrupted: Schema.Boolean,
  /** The interceptor that stopped decision-making (deny, stop or fail-closed), if one did. */
  stoppedAt: Schema.NullOr(Schema.Struct({ backend: Schema.String, subscription: Schema.String }))
})

/**
 * One audit record: one settled call. Hashes are `sha256:` and the hex digest of the
 * event's JSON text (members in the order the event has them).
 *
 * @since 0.1.0
 * @category models
 */
export const Record = Schema.Struct({
  version: Schema.Literal(1),
  /** When the call was settled (ISO 8601). */
  time: Schema.String,
  event: Schema.Struct({
    id: Schema.String,
    type: Schema.String,
    source: Schema.String,
    sessionId: Common.optional(Schema.String),
    turnId: Common.optional(Schema.String),
    callId: Common.optional(Schema.String),
    traceContext: Common.optional(Tracing.TraceContext)
  }),
  interceptors: Schema.Array(Interceptor),
  settlement: Settled,
  observers: Schema.Array(Schema.Struct({
    backend: Schema.String,
    subscription: Schema.String,
    outcome: Observation.Outcome,
    code: Common.optional(Schema.String)
  })),
  inputHash: Schema.Struct({ before: Schema.String, after: Schema.String }),
  /** Only with `content: true`: the event as dispatched, for replay. */
  content: Common.optional(
    Schema.Struct({
      event: Json.Value.annotations({ jsonSchema: { type: "object", description: "the event as dispatched" } })
    })
  )
}).annotations({
  identifier: "AuditRecord",
  description: "One settled Agent Hooks Protocol call (effect-ahp decision audit)"
})

/**
 * @since 0.1.0
 * @category models
 */
export type Record = typeof Record.Type

/**
 * What a settled call hands to the audit (built into a `Record` off the critical path).
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  /** The event as validated, before the first interceptor. */
  readonly before: Json.JsonObject
  /** The effective event after accepted edits. */
  readonly after: Json.JsonObject
  readonly steps: ReadonlyArray<Chain.Step>
  readonly decision: Settlement.Decision
  readonly observations: ReadonlyArray<Observation.Observation>
  readonly interrupted: boolean
  readonly settledAt: number
}

/**
 * What an audit service does: `record` never waits and never fails.
 *
 * @since 0.1.0
 * @category models
 */
export interface Service {
  readonly record: (entry: Entry) => Effect.Effect<void>
  /** How many entries were dropped because the queue was full. */
  readonly dropped: Effect.Effect<number>
}

/**
 * The audit that records nothing: the `Audit` reference's default.
 *
 * @since 0.1.0
 * @category constants
 */
export const none: Service = { record: () => Effect.void, dropped: Effect.succeed(0) }

/**
 * The Audit service, a `Context.Reference` whose default (`none`) records nothing, so that
 * `Hooks` needs no audit. `Hooks` uses the Audit it was built with (provided to its layer)
 * or, when it was built without one, the Audit in the calling fiber's context, so an Audit
 * merged beside `Hooks` records too.
 *
 * @since 0.1.0
 * @category tags
 */
export class Audit extends Context.Reference<Audit>()("@effect-ahp/harness/Audit", {
  defaultValue: (): Service => none
}) {}

/**
 * The SHA-256 of a JSON value's text, as `sha256:<hex>`.
 *
 * @since 0.1.0
 * @category hashing
 */
export const hash = (value: Json.JsonValue): Effect.Effect<string> =>
  Effect.map(Attachment.sha256(new TextEncoder().encode(Json.stringify(value))), (hex) => `sha256:${hex}`)

const idOf = (value: Json.JsonValue | undefined): string | undefined =>
  Json.isObject(value) && typeof value.id === "string" ? value.id : undefined

/** The step that stopped decision-making: an accepted deny or stop, or a fail-closed failure. */
const stopper = (steps: ReadonlyArray<Chain.Step>): Chain.Step | undefined =>
  steps.find((s) =>
    s.failure?.syntheticDenial === true ||
    s.effects.some((e) => e.type === "deny" || (e.type === "flow" && e.operation === "stop"))
  )

/**
 * A settled call without its hashes and content: the event's identity, the interceptors,
 * the settlement and the observers, as the record and the call's live span (`ahp.call`)
 * carry them.
 *
 * @since 0.1.0
 * @category models
 */
export type Summary = Pick<Record, "event" | "interceptors" | "settlement" | "observers">

/**
 * The summary of a settled call (computed synchronously: no hashing).
 *
 * @since 0.1.0
 * @category constructors
 */
export const summarize = (entry: Omit<Entry, "settledAt">): Summary => {
  const event = entry.before
  const traceContext = Tracing.traceContextOf(event)
  const sessionId = idOf(event.session)
  const turnId = idOf(event.turn)
  const callId = idOf(event.call)
  const stopped = entry.interrupted ? undefined : stopper(entry.steps)
  const denial = entry.decision.denial
  return {
    event: {
      id: String(event.id),
      type: String(event.type),
      source: String(event.source),
      ...(sessionId !== undefined ? { sessionId } : {}),
      ...(turnId !== undefined ? { turnId } : {}),
      ...(callId !== undefined ? { callId } : {}),
      ...(traceContext !== undefined ? { traceContext } : {})
    },
    interceptors: entry.steps.map(Chain.summarize),
    settlement: {
      decision: entry.decision.permission,
      syntheticDenial: denial?.synthetic ?? false,
      ...(denial?.code !== undefined ? { denialCode: denial.code } : {}),
      flow: entry.decision.flow,
      resultSupplied: entry.decision.candidate !== undefined,
      interrupted: entry.interrupted,
      stoppedAt: stopped === undefined
        ? null
        : { backend: stopped.route.backend.id, subscription: stopped.route.label }
    },
    observers: entry.observations.map((o) => ({
      backend: o.backend,
      subscription: o.subscription,
      outcome: o.outcome,
      ...(o.code !== undefined ? { code: o.code } : {})
    }))
  }
}

/**
 * The record of a settled call; `content` adds the event as dispatched.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toRecord = (entry: Entry, options?: { readonly content?: boolean | undefined }): Effect.Effect<Record> =>
  Effect.map(Effect.zip(hash(entry.before), hash(entry.after)), ([before, after]): Record => ({
    version: 1,
    time: new Date(entry.settledAt).toISOString(),
    ...summarize(entry),
    inputHash: { before, after },
    ...(options?.content === true ? { content: { event: entry.before } } : {})
  }))

/**
 * Options of an audit service.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Whether records carry the event (for replay). Default false. */
  readonly content?: boolean | undefined
  /** How many entries may wait for the sink; more are dropped and counted. Default 1024. */
  readonly capacity?: number | undefined
}

/**
 * An audit service writing records through `write` on a background fiber of the current
 * scope; closing the scope writes what is still queued. A failing `write` loses that
 * record only (the sink reports its own errors).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = Effect.fn("Audit.make")(function*(
  write: (records: ReadonlyArray<Record>) => Effect.Effect<void>,
  options?: Options
) {
  const queue = yield* Queue.dropping<Entry>(options?.capacity ?? 1024)
  const dropped = yield* Ref.make(0)
  // Opened when an entry is queued. The writer takes entries only while it cannot be
  // interrupted (a blocking take interrupted as it is handed an entry would lose it).
  const queued = yield* Effect.makeLatch(false)
  const drain = Effect.flatMap(
    Queue.takeAll(queue),
    (entries) =>
      Effect.flatMap(
        Effect.forEach(entries, (entry) => toRecord(entry, options)),
        (records) => records.length === 0 ? Effect.void : write(records)
      )
  )
  const writer = yield* Effect.forkDaemon(
    Effect.forever(Effect.zipRight(queued.await, Effect.uninterruptible(Effect.zipRight(queued.close, drain))))
  )
  yield* Effect.addFinalizer(() => Effect.zipRight(Fiber.interrupt(writer), drain))
  return Audit.of({
    record: (entry) =>
      Effect.flatMap(
        Queue.offer(queue, entry),
        (taken) => taken ? queued.open : Ref.update(dropped, (n) => n + 1)
      ),
    dropped: Ref.get(dropped)
  })
})

/**
 * The Audit layer of `make`: records written through `write` on a background fiber owned
 * by the layer's scope (closing it writes what is still queued).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  write: (records: ReadonlyArray<Record>) => Effect.Effect<void>,
  options?: Options
): Layer.Layer<Audit> => Layer.scoped(Audit, make(write, options))

/**
 * One audit service writing to several: each call is handed to every one of them (none
 * waits); `dropped` is the sum.
 *
 * @since 0.1.0
 * @category combinators
 */
export const combine = (services: ReadonlyArray<Audit["Type"]>): Audit["Type"] =>
  Audit.of({
    record: (entry) => Effect.forEach(services, (service) => service.record(entry), { discard: true }),
    dropped: Effect.map(Effect.forEach(services, (service) => service.dropped), (counts) =>
      counts.reduce((a, b) => a + b, 0))
  })
