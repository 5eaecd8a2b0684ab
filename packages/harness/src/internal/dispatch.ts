/**
 * One boundary call after its input was validated, as a pipeline: `prepare` (the call's
 * routes, allowance and attachment preparation), `chain` (the one entry to the serial
 * interceptor chain, raced against the call's interruption), `observe` (the deliveries,
 * awaited or in a host scope) and `settle` (the one result builder, which puts the
 * decision on the call's span and hands it to the audit). `Hooks` builds the `Service` once
 * and runs `run` per call.
 *
 * @internal
 */
import type { Capabilities, Elicitation, Event, Intercept, Json } from "@effect-ahp/protocol"
import { Json as J } from "@effect-ahp/protocol"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Ref from "effect/Ref"
import * as Scope from "effect/Scope"
import * as Attachment from "../Attachment.js"
import * as Audit from "../Audit.js"
import * as AuditTelemetry from "../AuditTelemetry.js"
import * as Boundary from "../Boundary.js"
import * as Chain from "../Chain.js"
import * as DispatchResult from "../DispatchResult.js"
import type * as Grant from "../Grant.js"
import * as Observation from "../Observation.js"
import type * as Registry from "../Registry.js"
import * as Settlement from "../Settlement.js"
import type { Endpoint, TransportError } from "../Transport.js"
import type * as Uploads from "../Uploads.js"
import * as Prepare from "./prepare.js"
import * as Retire from "./retire.js"

/** What every call of one service shares. @internal */
export interface Service {
  readonly grant: Grant.Grant
  readonly registry: Registry.Registry
  readonly endpoint: (route: Registry.Route) => Effect.Effect<Endpoint, TransportError>
  readonly observationTimeoutMs: number
  readonly maxAttachmentBytes: number
  readonly attachmentTimeoutMs: number
  readonly uploads: Option.Option<Uploads.Uploads["Type"]>
  readonly files: Option.Option<Attachment.Files["Type"]>
  readonly permits: Effect.Semaphore
  /** Owns the exchanges and deliveries that retire after a deadline or an interruption. */
  readonly retiring: Retire.Owner
  /** The audit a settled call is handed to. */
  readonly audit: Effect.Effect<Audit.Service>
}

/** The per-call options the pipeline reads (`Hooks.DispatchOptions`). @internal */
export interface Options {
  readonly state?: Intercept.State | undefined
  readonly continuation?: { readonly remaining?: number; readonly count?: number } | undefined
  readonly elicitationSchema?: Elicitation.RequestedSchema | undefined
  readonly observers?: "wait" | { readonly scope: Scope.Scope } | undefined
  readonly attachments?: Readonly<Record<string, Attachment.Source>> | undefined
  readonly maxAttachmentBytes?: number | undefined
}

/** One call: its validated event, its capabilities and how it is run. @internal */
export interface Call {
  readonly type: Event.EventType
  readonly event: Json.JsonObject
  readonly capabilities: Capabilities.Capabilities
  readonly options: Options | undefined
  /** Completes when the call must be interrupted. */
  readonly stop: Deferred.Deferred<void> | undefined
  /** Whether the call runs in its span (`ahp.call`) under an installed tracer. */
  readonly traced: boolean
}

/** A call's routes, allowance, progress and attachment preparation. */
interface Prepared {
  readonly call: Call
  readonly boundary: Boundary.Boundary
  readonly routes: ReturnType<Registry.Registry["routes"]>
  readonly observed: boolean
  readonly allowance: Grant.Allowance
  readonly progress: Ref.Ref<Chain.Progress>
  readonly attachments: Prepare.Options
}

/** How the chain ended: interrupted, or with the call's attachment preparation. */
type Ran = { readonly interrupted: true } | { readonly interrupted: false; readonly prepare: Prepare.Prepare }

const stopped: Ran = { interrupted: true }

const prepare = (service: Service, call: Call): Prepared => {
  const { event, options, type } = call
  const routes = service.registry.routes(type)
  const reported = event.continuationCount
  const count = options?.continuation?.count ??
    (typeof reported === "number" || reported instanceof J.LosslessNumber ? J.toNumber(reported) : 0)
  const observed = service.grant.events[type]?.observe === true
  const boundary = Boundary.of(type)
  return {
    call,
    boundary,
    routes,
    observed,
    allowance: {
      count,
      remaining: options?.continuation?.remaining ?? Math.max(0, service.grant.maxContinuations - count)
    },
    progress: Ref.unsafeMake(Chain.start(event, Settlement.initial(options?.state))),
    attachments: {
      boundary,
      event,
      routes: observed ? [...routes.intercept, ...routes.observe] : routes.intercept,
      sources: options?.attachments,
      maxBytes: options?.maxAttachmentBytes ?? service.maxAttachmentBytes,
      timeoutMs: service.attachmentTimeoutMs,
      uploads: service.uploads,
      permits: service.permits
    }
  }
}

/** The one entry to the chain: the snapshots, then the routes, raced against `stop`. */
const chain = (service: Service, prepared: Prepared): Effect.Effect<Ran> => {
  const { attachments, call } = prepared
  const run = (prepare: Prepare.Prepare) =>
    Chain.run({
      boundary: prepared.boundary,
      routes: prepared.routes.intercept,
      endpoint: service.endpoint,
      capabilities: call.capabilities,
      allowance: prepared.allowance,
      elicitationSchema: call.options?.elicitationSchema,
      prepare,
      retiring: service.retiring,
      traced: call.traced
    }, prepared.progress)
  const stop = call.stop
  if (stop === undefined && attachments.sources === undefined) {
    // Nothing to snapshot and nothing to race: the chain runs at once (four steps fewer).
    const prepare = Prepare.withoutSources(attachments)
    return Effect.as(run(prepare), { interrupted: false, prepare })
  }
  const snapshots = Prepare.make(attachments)
  // Only sources are read through `Attachment.Files`: without any, providing it (a
  // fiber-ref swap in an acquire/release) would be most of a call's Effect steps.
  const ran: Effect.Effect<Ran> = Effect.flatMap(
    service.files._tag === "Some" && attachments.sources !== undefined
      ? Effect.provideService(snapshots, Attachment.Files, service.files.value)
      : snapshots,
    (prepare) => Effect.as(run(prepare), { interrupted: false, prepare })
  )
  if (stop === undefined) return ran
  return Effect.flatMap(Deferred.isDone(stop), (done) =>
    done ? Effect.succeed(stopped) : Effect.raceFirst(
      Effect.interruptible(ran),
      Effect.interruptible(Effect.as(Deferred.await(stop), stopped))
    ))
}

/** What a settled call hands to its span and its audit (but the time it was settled). */
const entryOf = (
  prepared: Prepared,
  final: Chain.Progress,
  decision: Settlement.Decision,
  observations: ReadonlyArray<Observation.Observation>,
  interrupted: boolean
): Omit<Audit.Entry, "settledAt"> => ({
  before: prepared.call.event,
  after: final.event,
  steps: final.steps,
  decision,
  observations,
  interrupted
})

const audit = (service: Service, entry: Omit<Audit.Entry, "settledAt">) =>
  Effect.flatMap(service.audit, (audit) =>
    audit === Audit.none ? Effect.void : Effect.flatMap(
      Effect.clockWith((clock) => clock.currentTimeMillis),
      (settledAt) => audit.record({ ...entry, settledAt })
    ))

/**
 * The one result builder: the result, with the decision on the call's span (when traced)
 * and, unless the deliveries still run in a host scope (`observationsDone`, which records
 * when they end), handed to the audit.
 */
const settle = (
  service: Service,
  prepared: Prepared,
  final: Chain.Progress,
  decision: Settlement.Decision,
  observations: ReadonlyArray<Observation.Observation>,
  interrupted: boolean,
  observationsDone?: Effect.Effect<ReadonlyArray<Observation.Observation>>
): Effect.Effect<DispatchResult.DispatchResult> => {
  const result = DispatchResult.make({
    event: final.event,
    decision,
    errors: final.failures,
    observations,
    interrupted,
    observationsDone
  })
  const entry = entryOf(prepared, final, decision, observations, interrupted)
  const recorded = observationsDone === undefined ? audit(service, entry) : Effect.void
  const annotated = prepared.call.traced
    ? Effect.zipRight(Effect.annotateCurrentSpan(AuditTelemetry.callAttributes(Audit.summarize(entry))), recorded)
    : recorded
  return Effect.as(annotated, result)
}

/** The deliveries after the chain, then the settled result. */
const observe = (
  service: Service,
  prepared: Prepared,
  ran: Ran
): Effect.Effect<DispatchResult.DispatchResult> =>
  Effect.flatMap(Ref.get(prepared.progress), (final) => {
    const recipients = ran.interrupted ? [] : Observation.plan(prepared.routes, {
      observed: prepared.observed,
      shortCircuit: Settlement.isShortCircuit(final.state),
      called: final.called
    })
    if (ran.interrupted || recipients.length === 0) {
      return settle(
        service,
        prepared,
        final,
        Settlement.settle(final.state, { interrupted: ran.interrupted }),
        [],
        ran.interrupted
      )
    }
    // The decision is settled before the first delivery: an interruption while they run
    // ends them, and keeps it.
    const decision = Settlement.settle(final.state)
    const observers = prepared.call.options?.observers
    const delivery = { timeoutMs: service.observationTimeoutMs, prepare: ran.prepare }
    if (observers !== undefined && observers !== "wait") {
      // The host's scope owns these deliveries, to the end of their retirement; their
      // outcomes belong to the call, whoever waits for them. The span ends with the call,
      // before the deliveries: it carries them as pending.
      return Effect.flatMap(Scope.extend(Retire.makeOwner, observers.scope), (owner) =>
        Effect.flatMap(
          Observation.deliverIn(
            prepared.boundary,
            final.event,
            recipients,
            service.endpoint,
            { ...delivery, retiring: owner },
            observers.scope,
            (observations) => audit(service, entryOf(prepared, final, decision, observations, false))
          ),
          (observationsDone) =>
            settle(service, prepared, final, decision, Observation.pending(recipients), false, observationsDone)
        ))
    }
    return Effect.flatMap(
      Observation.deliverAll(prepared.boundary, final.event, recipients, service.endpoint, {
        ...delivery,
        retiring: service.retiring,
        interrupted: prepared.call.stop
      }),
      (delivered) => settle(service, prepared, final, decision, delivered.observations, delivered.interrupted)
    )
  })

/**
 * Runs one call: prepare → chain → observe → settle.
 *
 * @internal
 */
export const run = (service: Service, call: Call): Effect.Effect<DispatchResult.DispatchResult> =>
  Effect.suspend(() => {
    const prepared = prepare(service, call)
    return Effect.flatMap(chain(service, prepared), (ran) => observe(service, prepared, ran))
  })
