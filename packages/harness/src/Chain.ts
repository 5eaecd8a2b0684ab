/**
 * The serial interceptor chain. Matching intercept routes run one after another in
 * registration order, never concurrently. Each receives its own projection of the
 * accepted effective event and the capabilities for its step. Each exchange — request,
 * response, validation, staging and publication — runs under the subscription's
 * `timeoutMs`; a response is published atomically or not at all.
 *
 * An operational failure (timeout, transport, malformed or rejected response) applies the
 * subscription's failure policy once: fail-open records it and goes on with the state
 * unchanged; fail-closed stops with a synthetic denial. An explicit deny denies under
 * either policy. Decision-making stops on an accepted deny, an accepted flow stop, a
 * fail-closed failure, or interruption.
 *
 * A route that receives attachments as `body` first gets them uploaded to its own upload
 * endpoint (`Input.prepare`, bounded by its `upload.timeoutMs`, before its deadline starts,
 * which runs from the request's dispatch); a failure there is the route's operational
 * failure (phase `prepare`) under its failure policy, and nothing is sent to it.
 *
 * A deadline is absolute: what is not published by the deadline is a `timeout`, even when
 * the response arrived in time and was still being parsed, validated or staged when it
 * passed. The chain goes on at the deadline: an exchange interrupted there (or with the
 * call) retires its I/O on its own fiber, which the chain awaits for at most 100 ms and
 * then hands to `Input.retiring` — the Hooks service's scope, whose closing awaits it — so
 * a slow kill or reap never delays the decision.
 *
 * Progress is kept in a `Ref` owned by the caller, so an interrupted chain leaves exactly
 * what was accepted before the interruption (a staged but unpublished response is lost).
 *
 * Every request of one call carries the event's id (the wire requires the intercept
 * request's id to equal its event's id), so two subscriptions of one backend receive the
 * same id: a late reply to the first could only be told apart from the reply to the second
 * by its content. The transports close that window: an HTTP reply belongs to its own POST,
 * and a persistent stdio child either is retired when a request is abandoned or, kept
 * while it starts up, is sent a request with the abandoned one's id only after that late
 * reply has arrived (and been dropped).
 *
 * @since 0.1.0
 */
import { Capabilities, Common, type Elicitation, HookEffect, Intercept, Json } from "@effect-ahp/protocol"
import * as Clock from "effect/Clock"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Ref from "effect/Ref"
import * as Runtime from "effect/Runtime"
import type { AttachmentError } from "./Attachment.js"
import type * as Boundary from "./Boundary.js"
import * as Grant from "./Grant.js"
import { Deadlines } from "./internal/deadlines.js"
import { type Owner, retire } from "./internal/retire.js"
import * as Projection from "./Projection.js"
import type * as Registry from "./Registry.js"
import { RouteFailure } from "./RouteFailure.js"
import * as Settlement from "./Settlement.js"
import * as Staging from "./Staging.js"
import { withSpanWhenTraced } from "./Tracing.js"
import type { Endpoint, TransportError } from "./Transport.js"
import type { UploadError } from "./Uploads.js"

/**
 * Everything the chain needs for one boundary call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Input {
  readonly boundary: Boundary.Boundary
  readonly routes: ReadonlyArray<Registry.Route>
  readonly endpoint: (route: Registry.Route) => Effect.Effect<Endpoint, TransportError>
  /** The call's capabilities (the grant, narrowed for this call). */
  readonly capabilities: Capabilities.Capabilities
  /** The continuation allowance before the first interceptor. */
  readonly allowance: Grant.Allowance
  readonly elicitationSchema?: Elicitation.RequestedSchema | undefined
  /** Uploads a route's pending attachments; succeeds with their references, by part id. */
  readonly prepare: (
    route: Registry.Route,
    pending: ReadonlyArray<Projection.PendingUpload>
  ) => Effect.Effect<ReadonlyMap<string, string>, AttachmentError | UploadError>
  /**
   * Owns the exchanges interrupted at a deadline or with the call until they have retired
   * their I/O (the chain waits for them a short grace only).
   */
  readonly retiring: Owner
  /**
   * Whether a tracer other than Effect's built-in one is installed (each route then gets
   * its span); when absent, the chain asks the tracer on every route.
   */
  readonly traced?: boolean | undefined
}

/**
 * The chain's progress: the effective event, the pending state, which routes were called
 * and which failed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Progress {
  readonly event: Json.JsonObject
  readonly state: Settlement.PendingState
  readonly called: ReadonlySet<string>
  readonly failures: ReadonlyArray<RouteFailure>
  /** Whether a continuation was requested by an accepted response of this chain. */
  readonly continued: boolean
  /** One step per route called, in order (what the decision audit records). */
  readonly steps: ReadonlyArray<Step>
}

/**
 * What one called route came to: the effects it published (none: no effect) or its
 * failure, and how long the exchange took.
 *
 * @since 0.1.0
 * @category models
 */
export interface Step {
  readonly route: Registry.Route
  readonly latencyMs: number
  readonly effects: ReadonlyArray<HookEffect.HookEffect>
  readonly failure: RouteFailure | undefined
}

/**
 * The starting progress.
 *
 * @since 0.1.0
 * @category constructors
 */
export const start = (event: Json.JsonObject, state: Settlement.PendingState): Progress => ({
  event,
  state,
  called: new Set(),
  failures: [],
  continued: false,
  steps: []
})

/**
 * A failure of an intercept route, with the route's failure policy (whether it denies).
 *
 * @since 0.1.0
 * @category constructors
 */
export const failure = (
  route: Registry.Route,
  fields:
    & Pick<RouteFailure, "phase" | "code" | "detail">
    & Partial<Pick<RouteFailure, "path" | "httpStatus" | "jsonRpcCode">>
): RouteFailure =>
  new RouteFailure({
    backend: route.backend.id,
    subscription: route.label,
    mode: "intercept",
    syntheticDenial: route.failurePolicy === "fail-closed",
    ...(route.failurePolicy !== undefined ? { policy: route.failurePolicy } : {}),
    ...fields
  })

/**
 * Maps a transport error to a route failure.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromTransportError = (route: Registry.Route, error: TransportError): RouteFailure =>
  failure(route, {
    phase: "transport",
    code: error.reason,
    detail: error.detail,
    ...(error.status !== undefined ? { httpStatus: error.status } : {})
  })

/**
 * Maps a failed preparation (a snapshot or an upload) to a route failure.
 *
 * @since 0.1.0
 * @category constructors
 */
export const fromPrepareError = (route: Registry.Route, error: AttachmentError | UploadError): RouteFailure =>
  failure(route, {
    phase: "prepare",
    code: error.reason,
    detail: error.detail,
    ...(error._tag === "UploadError" && error.status !== undefined ? { httpStatus: error.status } : {})
  })

const fromRejection = (route: Registry.Route, rejection: Staging.Rejection): RouteFailure =>
  failure(route, {
    phase: rejection.phase,
    code: rejection.code,
    detail: rejection.detail,
    path: rejection.path,
    ...(rejection.jsonRpcCode !== undefined ? { jsonRpcCode: rejection.jsonRpcCode } : {})
  })

/** A staged response accepted into the state, to be published with its step. */
interface Published {
  readonly current: Progress
  readonly staged: Staging.Staged
  readonly state: Settlement.PendingState
}

const continues = (e: HookEffect.HookEffect): boolean => e.type === "flow" && e.operation === "continue"

/**
 * The progress after a published response, with its step (built member by member: this is
 * every exchange's path, and spreading the progress twice cost more than the rest of it).
 */
const toProgress = ({ current, staged, state }: Published, route: Registry.Route, latencyMs: number): Progress => ({
  event: staged.event,
  state,
  called: current.called,
  failures: current.failures,
  continued: current.continued || staged.effects.some(continues),
  steps: [...current.steps, { route, latencyMs, effects: staged.effects, failure: undefined }]
})

/** The endpoint of a route already connected (an `Either`, as the Hooks service's are): asked at once. */
const connectedNow = (connected: Effect.Effect<Endpoint, TransportError>): Endpoint | undefined =>
  Either.isEither(connected) && Either.isRight(connected) ? connected.right as Endpoint : undefined

/** One exchange: the effect that sends its request to the route, and what its answer is staged against. */
interface Sent {
  readonly requestId: string
  readonly capabilities: Capabilities.Capabilities
  readonly answer: Effect.Effect<Json.JsonValue, TransportError>
}

/** Builds the request of `route` from the progress accepted so far and its view of it (nothing is sent until `answer` runs). */
const send = (input: Input, route: Registry.Route, current: Progress, view: Projection.View): Sent => {
  const allowance: Grant.Allowance = {
    remaining: Math.max(0, input.allowance.remaining - (current.continued ? 1 : 0)),
    count: input.allowance.count
  }
  const capabilities = Grant.forStep(input.capabilities, view, allowance)
  const requestId = current.event.id as string
  const request: Json.JsonObject = {
    jsonrpc: "2.0",
    id: requestId,
    method: Intercept.method,
    params: { protocolVersion: Common.protocolVersion, event: view.event, capabilities } as Json.JsonObject
  }
  const connected = input.endpoint(route)
  const now = connectedNow(connected)
  const answer = now !== undefined
    ? now.request(request)
    : Effect.flatMap(connected, (endpoint) => endpoint.request(request))
  return { requestId, capabilities, answer }
}

/**
 * Validates and stages an answer (stopping early once the deadline is due): the progress
 * to publish, or the route's failure.
 */
const staged = (
  input: Input,
  route: Registry.Route,
  current: Progress,
  view: Projection.View,
  deadlines: Deadlines,
  sent: Sent,
  response: Json.JsonValue
): Either.Either<Published, RouteFailure> =>
  Either.mapBoth(
    Staging.stage(response, {
      requestId: sent.requestId,
      boundary: input.boundary,
      capabilities: sent.capabilities,
      view,
      selection: route.subscriber.content,
      event: current.event,
      elicitationSchema: input.elicitationSchema,
      expired: deadlines.due
    }),
    {
      onLeft: (rejection) => fromRejection(route, rejection),
      onRight: (staged): Published => ({
        current,
        staged,
        state: Settlement.accept(current.state, staged, {
          backend: route.backend.id,
          subscription: route.label,
          requestId: sent.requestId
        })
      })
    }
  )

/**
 * What an interceptor's exchange can come to: `accepted` (its response published effects),
 * `no-effect` (an accepted response without effects), `rejected` (the response failed
 * validation or staging) or `failed` (preparation or transport).
 *
 * @since 0.1.0
 * @category models
 */
export const outcomes = ["accepted", "no-effect", "rejected", "failed"] as const

/**
 * What one step came to, without its content, as the decision audit records it and the
 * route's live span (`ahp.interceptor`) carries it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly backend: string
  readonly subscription: string
  readonly transport: Registry.Route["backend"]["transport"]["type"]
  readonly latencyMs: number
  readonly outcome: typeof outcomes[number]
  readonly code?: RouteFailure["code"]
  readonly failurePolicy: "fail-open" | "fail-closed"
  /** Whether this step's failure denied the call (fail-closed). */
  readonly syntheticDenial: boolean
  readonly effects: ReadonlyArray<HookEffect.Summary>
}

/**
 * The summary of a step (its latency rounded to the microsecond).
 *
 * @since 0.1.0
 * @category constructors
 */
export const summarize = (step: Step): Summary => {
  const failure = step.failure
  return {
    backend: step.route.backend.id,
    subscription: step.route.label,
    transport: step.route.backend.transport.type,
    latencyMs: Math.round(step.latencyMs * 1000) / 1000,
    outcome: failure !== undefined
      ? failure.phase === "protocol" || failure.phase === "staging" ? "rejected" : "failed"
      : step.effects.length > 0
      ? "accepted"
      : "no-effect",
    ...(failure !== undefined ? { code: failure.code } : {}),
    failurePolicy: step.route.failurePolicy ?? "fail-open",
    syntheticDenial: failure?.syntheticDenial ?? false,
    effects: step.effects.map(HookEffect.summarize)
  }
}

/** What a step came to, as attributes of its live span (`ahp.interceptor`). */
const stepAttributes = (step: Step): Record<string, string | boolean | ReadonlyArray<string>> => {
  const summary = summarize(step)
  return {
    "ahp.outcome": summary.outcome,
    ...(summary.code !== undefined ? { "ahp.failure.code": summary.code } : {}),
    "ahp.failure_policy": summary.failurePolicy,
    "ahp.synthetic_denial": summary.syntheticDenial,
    "ahp.effects": summary.effects.map((e) => e.type)
  }
}

/**
 * The progress after a failed route: the failure recorded and its policy applied once
 * (fail-closed: a synthetic denial; fail-open: the state unchanged), with its step's latency.
 *
 * @since 0.1.0
 * @category combinators
 */
export const withFailure = (p: Progress, route: Registry.Route, failed: RouteFailure, latencyMs: number): Progress => ({
  ...p,
  failures: [...p.failures, failed],
  steps: [...p.steps, { route, latencyMs, effects: [], failure: failed }],
  state: failed.syntheticDenial
    ? Settlement.failClosed(p.state, {
      backend: route.backend.id,
      subscription: route.label,
      requestId: p.event.id as string
    })
    : p.state
})

const timedOut = (route: Registry.Route): RouteFailure =>
  failure(route, { phase: "transport", code: "timeout", detail: `no accepted response within ${route.timeoutMs} ms` })

/**
 * Runs the routes from `from` on the current fiber until every route ran, decision-making
 * stopped, or a deadline expired (which interrupts this fiber). Each exchange runs under
 * its deadline; a response is published only if it was staged before the deadline, in one
 * step with that check, so nothing is published once the caller stopped waiting. Only
 * this fiber writes `progress` while it runs (from `current`, its value when the fiber
 * starts), so it carries the published progress along.
 */
const runFrom = (
  input: Input,
  progress: Ref.Ref<Progress>,
  called: Set<string>,
  from: number,
  deadlines: Deadlines,
  started: Array<number>,
  current: Progress
): Effect.Effect<void> => {
  const step = (index: number, current: Progress): Effect.Effect<void> => {
    if (index >= input.routes.length || Settlement.isShortCircuit(current.state)) return Effect.void
    const route = input.routes[index]!
    called.add(route.key)
    started[index] = deadlines.now()
    const latency = () => deadlines.now() - started[index]!
    const failed = (failure: RouteFailure) => withFailure(current, route, failure, latency())
    // The request is built as the deadline is armed (this runs in the fiber, as the
    // exchange starts); a transport's request is an effect, so nothing is sent before it is
    // armed. The answer is matched once, here.
    const deliver = (view: Projection.View): Effect.Effect<Progress> => {
      const sent = send(input, route, current, view)
      return deadlines.arm(
        index,
        route.timeoutMs ?? 0,
        Effect.match(sent.answer, {
          onFailure: (e) => failed(fromTransportError(route, e)),
          onSuccess: (response) =>
            Either.match(staged(input, route, current, view, deadlines, sent, response), {
              onLeft: failed,
              onRight: (published) => toProgress(published, route, latency())
            })
        })
      )
    }
    const view = Projection.project(input.boundary, current.event, route.subscriber)
    const attempt = view.pendingUploads.length === 0 ? deliver(view) : Effect.matchEffect(
      input.prepare(route, view.pendingUploads),
      {
        onFailure: (error) => Effect.succeed(failed(fromPrepareError(route, error))),
        onSuccess: (references) =>
          deliver(Projection.project(input.boundary, current.event, route.subscriber, references))
      }
    )
    // Published only if staged before the deadline, in one step with that check.
    const publish = (next: Progress) => Ref.modify(progress, (p) => deadlines.settle() ? [true, next] : [false, p])
    if (input.traced === false) {
      return Effect.flatMap(
        attempt,
        (next) => Effect.flatMap(publish(next), (published) => published ? step(index + 1, next) : Effect.void)
      )
    }
    // Traced, the route's span covers its preparation, exchange and publication, and
    // carries what the step came to (a deadline that expires first: a timeout).
    const timedOutStep = (): Step => ({ route, latencyMs: latency(), effects: [], failure: timedOut(route) })
    const spanned = Effect.flatMap(attempt, (next) =>
      Effect.flatMap(publish(next), (published) =>
        Effect.as(
          Effect.annotateCurrentSpan(stepAttributes(published ? next.steps[next.steps.length - 1]! : timedOutStep())),
          [published, next] as const
        ))).pipe(
        Effect.onInterrupt(() =>
          deadlines.expired === index ? Effect.annotateCurrentSpan(stepAttributes(timedOutStep())) : Effect.void
        ),
        withSpanWhenTraced("ahp.interceptor", {
          attributes: {
            "ahp.backend": route.backend.id,
            "ahp.subscription": route.label,
            "ahp.transport": route.backend.transport.type
          }
        })
      )
    return Effect.flatMap(spanned, ([published, next]) => published ? step(index + 1, next) : Effect.void)
  }
  return step(from, current)
}

/**
 * Runs the chain, recording progress in `progress`, until every route ran or decision-making
 * stopped. Never fails: failures are recorded as data.
 *
 * The routes run on one fiber per call rather than one per exchange: a deadline that
 * expires interrupts that fiber and wakes this one at once, the route's timeout is
 * recorded here, and a new fiber goes on with the next route. The fiber is started at
 * once on the caller's runtime (its context and fiber refs), is interruptible even when
 * the caller is not, and is interrupted if the caller is: about half the cost of
 * `Effect.fork` and `Fiber.await`, whose child waits for the scheduler before it starts.
 * An interrupted fiber is handed to `input.retiring` and awaited for a short grace only
 * (`internal/retire.ts`): a transport that retires its I/O promptly leaves nothing
 * running, a slower one does not hold the decision. A fiber that has already ended when
 * `runFork` returns (every exchange answered synchronously, as in-process backends do) is
 * neither waited for nor retired.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (input: Input, progress: Ref.Ref<Progress>): Effect.Effect<void> =>
  // The caller's clock and runtime read in one step (`clockWith` and `runtime` took two).
  Effect.withFiberRuntime((caller, status) => {
    const clock = Context.get(caller.currentDefaultServices, Clock.Clock)
    const runtime = Runtime.make({
      context: caller.currentContext,
      runtimeFlags: status.runtimeFlags,
      fiberRefs: caller.getFiberRefs()
    })
    // When each route's exchange started (by index), for the latency of its step.
    const started: Array<number> = []
    const runFiber = (called: Set<string>, from: number, current: Progress): Effect.Effect<void> => {
      if (from >= input.routes.length) return Effect.void
      const deadlines = new Deadlines(clock)
      const routes = Effect.suspend(() => runFrom(input, progress, called, from, deadlines, started, current)).pipe(
        Effect.interruptible
      )
      return Effect.uninterruptibleMask((restore) => {
        const fiber = Runtime.runFork(runtime, routes)
        deadlines.runningIn(fiber)
        // Ended as it was started (every exchange answered synchronously, as in-process
        // backends do): there is nothing to wait for or retire.
        if (fiber.unsafePoll() !== null) {
          deadlines.disarm()
          return Effect.succeed(fiber)
        }
        // Already uninterruptible here: matching the wait's outcome is what `onExit` would
        // do, without its own mask. Ended, or interrupted by its deadline; else interrupted
        // here, with the caller.
        return Effect.matchCauseEffect(restore(deadlines.wait(fiber)), {
          onFailure: (cause) =>
            Effect.withFiberRuntime<never>((waiting) => {
              deadlines.abandon()
              return Effect.zipRight(retire(input.retiring, fiber, waiting.id()), Effect.failCause(cause))
            }),
          onSuccess: () => {
            deadlines.disarm()
            return fiber.unsafePoll() !== null
              ? Effect.succeed(fiber)
              : Effect.as(retire(input.retiring, fiber, undefined), fiber)
          }
        })
      }).pipe(Effect.flatMap((fiber) => {
        // Ended without a deadline expiring: its exit (a defect is not swallowed).
        if (deadlines.expired === undefined) return fiber.unsafePoll() ?? Effect.void
        const route = input.routes[deadlines.expired]!
        const expired = deadlines.expired
        const next = expired + 1
        return Effect.flatMap(
          Ref.modify(progress, (p) => {
            const failed = withFailure(p, route, timedOut(route), deadlines.now() - started[expired]!)
            return [failed, failed]
          }),
          (failed) => runFiber(called, next, failed)
        )
      }))
    }
    // One set per run, grown in place as routes are called: every snapshot shares it,
    // and it is only read once the chain has stopped.
    return Effect.flatMap(
      Ref.modify(progress, (p) => {
        const first = { ...p, called: new Set(p.called) }
        return [first, first]
      }),
      (first) => runFiber(first.called, 0, first)
    )
  })
