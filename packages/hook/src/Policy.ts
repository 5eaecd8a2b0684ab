/**
 * One host's policy: a registration compiled against what the host enforces, its backends
 * connected for the lifetime of the scope, and the answer to one hook payload. The command
 * hook builds one per invocation; `ahp bridge` keeps one per host across calls.
 *
 * Answering: the payload is parsed (lossless JSON) and mapped by the host adapter; an event
 * no subscription selects, and a host event with no AHP counterpart, get "no opinion" at
 * once; otherwise the event is dispatched through the harness under the call's deadline
 * (`Budget`), and the settled decision is rendered as the host's answer. A payload that
 * cannot be mapped gets "no opinion" with a visible message — or a denial, when the event
 * can be blocked and a fail-closed intercept subscription selects it; so does a payload
 * that is not JSON (nested too deep, say) for the event its head names
 * (`internal/payloadEvent.ts`).
 *
 * @since 0.1.0
 */
import { Hooks, type Registry, Tracing } from "@effect-ahp/harness"
import type { Transport } from "@effect-ahp/harness"
import { Host, HostEvents } from "@effect-ahp/hosts"
import { Event, Json, Registration } from "@effect-ahp/protocol"
import { Clock, Effect, Either } from "effect"
import type * as Scope from "effect/Scope"
import * as Budget from "./Budget.js"
import type * as Cache from "./Cache.js"
import * as HookTrace from "./HookTrace.js"
import * as PayloadEvent from "./internal/payloadEvent.js"
import * as Trouble from "./Trouble.js"

/**
 * A host's compiled, connected registration.
 *
 * @since 0.1.0
 * @category models
 */
export interface Policy {
  readonly host: Host.Host
  readonly hooks: Hooks.Hooks["Type"]
}

/**
 * Compiles a registration document for a host and connects its backends (lazily: nothing
 * starts before an event needs it).
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  host: Host.Host,
  registration: Json.JsonValue
): Effect.Effect<Policy, Registry.ConfigurationError, Transport.Transports | Scope.Scope> =>
  Effect.map(
    Hooks.makeUnknown(registration, { grant: host.grant, source: host.source }),
    (hooks) => ({ host, hooks })
  )

const failClosedRoutes = (routes: ReturnType<Registry.Registry["routes"]>) =>
  routes.intercept.some((route) => route.failurePolicy === "fail-closed")

/**
 * The summary of a policy: per host event with at least one route, how many routes, and
 * whether a fail-closed intercept subscription selects it (what the command hook caches to
 * answer the other events without loading the harness).
 *
 * @since 0.1.0
 * @category accessors
 */
export const summary = (policy: Policy): Cache.Summary => {
  const out: Record<string, { routes: number; failClosed: boolean }> = {}
  for (const event of HostEvents.mapped(policy.host.name)) {
    const routes = policy.hooks.registry.routes(event.type!)
    const count = routes.intercept.length + routes.observe.length
    if (count > 0) out[event.name] = { routes: count, failClosed: failClosedRoutes(routes) }
  }
  return out
}

/**
 * Per-call options.
 *
 * @since 0.1.0
 * @category models
 */
export interface CallOptions {
  /** When the answer is due (epoch milliseconds): every exchange ends by then. */
  readonly deadline: number
  /** The `source` of the event (the host's default otherwise). */
  readonly source?: string | undefined
  /** Whether to produce the trace. */
  readonly verbose: boolean
  /** A scope that delivers the observations after the answer (by default the answer waits for them). */
  readonly observers?: Scope.Scope | undefined
}

/**
 * The answer and, when asked for, the trace lines.
 *
 * @since 0.1.0
 * @category models
 */
export interface Reply {
  readonly answer: Host.Answer
  readonly trace: ReadonlyArray<string>
}

/**
 * Whether a registration that cannot be compiled still shows a fail-closed intent for an
 * event: an intercept subscription (any `mode` but `observe`) with `failurePolicy:
 * "fail-closed"` whose `events` select the event — or whose `events` cannot be read, since
 * it may select any. A document too broken to show its subscriptions shows no intent.
 *
 * @since 0.1.0
 * @category predicates
 */
export const failClosedIntent = (document: Json.JsonValue, type: Event.EventType): boolean => {
  if (!Json.isObject(document) || !Array.isArray(document.hooks)) return false
  return document.hooks.some((backend) =>
    Json.isObject(backend) && Array.isArray(backend.subscriptions) &&
    backend.subscriptions.some((sub) =>
      Json.isObject(sub) && sub.mode !== "observe" && sub.failurePolicy === "fail-closed" &&
      (!Array.isArray(sub.events) ||
        sub.events.some((selector) => typeof selector !== "string" || Registration.selectorMatches(selector, type)))
    )
  )
}

/**
 * Whether the text of a registration shows a fail-closed intent for an event
 * (`failClosedIntent` of its JSON; none when it is not JSON): for an answer that cannot wait
 * for the registration to compile, the command hook's watchdog.
 *
 * @since 0.1.0
 * @category predicates
 */
export const failClosedIntentOfText = (text: string, type: Event.EventType): boolean => {
  const document = Json.parse(text)
  return Either.isRight(document) && failClosedIntent(document.right, type)
}

/**
 * The host event a payload names, if the host has it.
 *
 * @since 0.1.0
 * @category accessors
 */
export const eventOf = (host: Host.Host, payload: Json.JsonValue): HostEvents.HostEvent | undefined => {
  const name = HostEvents.nameOf(payload)
  return name === undefined ? undefined : HostEvents.find(host.name, name)
}

const reply = (answer: Host.Answer, trace: ReadonlyArray<string> = []): Reply => ({ answer, trace })

/** `answer` without its span: the per-request path, which captures no stack trace. */
const answerUntraced = Effect.fnUntraced(function*(policy: Policy, text: string, options: CallOptions) {
  const host = policy.host
  const parsed = Json.parse(text)
  const registry = policy.hooks.registry
  if (Either.isLeft(parsed)) {
    const name = PayloadEvent.nameOfText(text)
    const named = name === undefined ? undefined : HostEvents.find(host.name, name)
    const failClosed = named?.type !== undefined && failClosedRoutes(registry.routes(named.type))
    return reply(Trouble.answer(host, named, `the hook payload is not JSON: ${parsed.left.message}`, failClosed))
  }
  const payload = parsed.right
  const event = eventOf(host, payload)
  const routes = event?.type === undefined ? { intercept: [], observe: [] } : registry.routes(event.type)
  const now = yield* Clock.currentTimeMillis
  const mapped = host.map(payload, {
    source: options.source,
    time: new Date(now).toISOString(),
    includeNative: [...routes.intercept, ...routes.observe].some((route) => route.subscriber.includeNative)
  })
  if (Either.isLeft(mapped)) {
    const error = mapped.left
    const failClosed = error.type !== undefined && Event.isEventType(error.type) &&
      failClosedRoutes(registry.routes(error.type))
    return reply(Trouble.answer(host, event, error.message, failClosed))
  }
  if (mapped.right._tag === "PassThrough") return reply(host.noOpinion())
  const call = mapped.right
  if (routes.intercept.length + routes.observe.length === 0) return reply(host.noOpinion())
  const budget = Budget.makeCall(options.deadline)
  const dispatched = yield* policy.hooks.dispatchUnknown(call.type, call.input, {
    capabilities: call.capabilities ?? (routes.intercept.length > 0 ? { effects: [] } : undefined),
    observers: options.observers === undefined ? "wait" : { scope: options.observers }
  }).pipe(Effect.locally(Budget.currentCall, budget), Effect.either)
  if (Either.isLeft(dispatched)) {
    return reply(Trouble.answer(host, call.event, dispatched.left.message, failClosedRoutes(routes)))
  }
  const result = dispatched.right
  const answer = host.render(call.event, Host.verdict(result.decision, result.event), call.payload)
  const trace = options.verbose
    ? HookTrace.lines({ host, mapped: call, routes, result, exchanges: budget.exchanges, answer })
    : []
  return reply(answer, trace)
})

/**
 * Answers one hook payload (JSON text), in a span "Policy.answer" under an installed tracer
 * (none under Effect's built-in tracer, which exports nowhere: the span and its stack trace
 * cost about as much per request as the rest of the answer).
 *
 * @since 0.1.0
 * @category answering
 */
export const answer = (policy: Policy, text: string, options: CallOptions): Effect.Effect<Reply> =>
  Tracing.spanWhenTraced("Policy.answer", () => answerUntraced(policy, text, options))
