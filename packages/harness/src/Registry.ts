/**
 * Compiles a registration document once, against the host's grant, into ordered routes
 * per event type. Every problem is reported at load time, all at once, as a
 * `ConfigurationError` whose issues carry a code from a closed set and a JSON Pointer —
 * invalid or ambiguous configuration is never silently skipped. The document's own rules
 * are the `Registration` schema's (each issue it finds carries its rule's code, or
 * `invalid-value` for a structural problem); the registry adds only what depends on this
 * harness: whether the grant offers each selected event, and deadlines it can hold.
 * Issues are ordered by path.
 *
 * Routes keep subscription identity: order is `hooks` order then subscription order, and
 * invocation is tracked per subscription, so an explicit observe subscription is never
 * deduplicated against an intercept subscription of the same backend.
 *
 * Decisions where the specification is silent: a subscription without `id` is labelled by
 * its index within its backend; explicit subscription ids must be unique within a
 * backend; `timeoutMs` above 2147483647 (the longest timer delay) is rejected
 * (`invalid-timeout`), never rounded; `filters` are hints and never narrow delivery.
 *
 * @since 0.1.0
 */
import { Decoder, Event, Json, Registration } from "@effect-ahp/protocol"
import * as Either from "effect/Either"
import { hasProperty } from "effect/Predicate"
import * as Schema from "effect/Schema"
import type * as Grant from "./Grant.js"
import type * as Projection from "./Projection.js"

/**
 * The closed set of configuration problem codes.
 *
 * @since 0.1.0
 * @category models
 */
export const ConfigurationCode = Schema.Literal(
  ...Registration.RuleCode.literals,
  "event-not-intercepted-by-host",
  "event-not-observed-by-host",
  "wildcard-selects-nothing",
  "in-process-backend-not-served",
  "served-backend-not-registered",
  "invalid-value"
)

/**
 * @since 0.1.0
 * @category models
 */
export type ConfigurationCode = typeof ConfigurationCode.Type

/**
 * One configuration problem.
 *
 * @since 0.1.0
 * @category models
 */
export const ConfigurationIssue = Schema.Struct({
  code: ConfigurationCode,
  path: Schema.String,
  message: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type ConfigurationIssue = typeof ConfigurationIssue.Type

/**
 * The brand of a `ConfigurationError`.
 *
 * @since 0.1.0
 * @category type ids
 */
export const ConfigurationErrorTypeId: unique symbol = Symbol.for("@effect-ahp/harness/ConfigurationError")

/**
 * @since 0.1.0
 * @category type ids
 */
export type ConfigurationErrorTypeId = typeof ConfigurationErrorTypeId

/**
 * A registration that cannot be used, with every problem found.
 *
 * @since 0.1.0
 * @category errors
 */
export class ConfigurationError
  extends Schema.TaggedError<ConfigurationError>("@effect-ahp/harness/ConfigurationError")(
    "ConfigurationError",
    { issues: Schema.Array(ConfigurationIssue) }
  )
{
  readonly [ConfigurationErrorTypeId]: ConfigurationErrorTypeId = ConfigurationErrorTypeId
  override get message(): string {
    return `invalid registration: ${this.issues.map((i) => `${i.path || "/"}: ${i.message}`).join("; ")}`
  }
}

/**
 * Whether a value is a `ConfigurationError`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isConfigurationError = (u: unknown): u is ConfigurationError => hasProperty(u, ConfigurationErrorTypeId)

/**
 * One subscription, compiled.
 *
 * @since 0.1.0
 * @category models
 */
export interface Route {
  /** Unique key of the subscription: `backendId#index`. */
  readonly key: string
  readonly backend: Registration.Backend
  readonly subscription: Registration.Subscription
  /** The subscription's `id`, else its index within the backend. */
  readonly label: string
  readonly mode: "intercept" | "observe"
  readonly timeoutMs: number | undefined
  readonly failurePolicy: Registration.FailurePolicy | undefined
  readonly subscriber: Projection.Subscriber
}

/**
 * A compiled registration.
 *
 * @since 0.1.0
 * @category models
 */
export interface Registry {
  readonly registration: Registration.Registration
  /** Routes for an event type, in registration order. */
  readonly routes: (
    type: Event.EventType
  ) => { readonly intercept: ReadonlyArray<Route>; readonly observe: ReadonlyArray<Route> }
}

/**
 * Whether a URL is safe to send events to: https, or plain http on a loopback host.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isSafeEndpoint: (url: string) => boolean = Registration.isSafeEndpoint

const decodeRegistration = Decoder.lazy(() => Decoder.make(Registration.Registration))
const isRuleCode = Decoder.lazy(() => Schema.is(Registration.RuleCode))

/**
 * What depends on this harness: each selector the schema accepts must select an event the
 * grant offers for the subscription's mode (selectors the schema rejects are its to
 * report), and an intercept deadline must fit a timer.
 */
const hostIssues = (
  document: unknown,
  grant: Grant.Grant,
  served: ReadonlyArray<string> | undefined
): Array<ConfigurationIssue> => {
  const issues: Array<ConfigurationIssue> = []
  if (!Json.isObject(document) || !Array.isArray(document.hooks)) return issues
  if (served !== undefined) issues.push(...servingIssues(document.hooks, served))
  document.hooks.forEach((backend: unknown, b) => {
    if (!Json.isObject(backend) || !Array.isArray(backend.subscriptions)) return
    backend.subscriptions.forEach((sub: unknown, s) => {
      if (!Json.isObject(sub)) return
      const mode = sub.mode
      if (mode === "intercept" && beyondTimers(sub.timeoutMs)) {
        issues.push({
          code: "invalid-timeout",
          path: `/hooks/${b}/subscriptions/${s}/timeoutMs`,
          message: `timeoutMs must be an integer from 1 to ${maxTimeoutMs}`
        })
      }
      if (mode !== "intercept" && mode !== "observe") return
      const offered = (type: Event.EventType) =>
        mode === "intercept"
          ? Event.isInterceptable(type) && grant.events[type]?.intercept !== undefined
          : grant.events[type]?.observe === true
      if (!Array.isArray(sub.events)) return
      const seen = new Set<unknown>()
      sub.events.forEach((selector, i) => {
        if (typeof selector !== "string" || seen.has(selector)) return
        seen.add(selector)
        const path = `/hooks/${b}/subscriptions/${s}/events/${i}`
        if (Registration.isWildcard(selector)) {
          if (!Event.eventTypes.some((t) => Registration.selectorMatches(selector, t) && offered(t))) {
            issues.push({
              code: "wildcard-selects-nothing",
              path,
              message: `${selector} selects no event this host offers for ${mode}`
            })
          }
        } else if (
          Event.isEventType(selector) && (mode === "observe" || Event.isInterceptable(selector)) && !offered(selector)
        ) {
          issues.push({
            code: mode === "intercept" ? "event-not-intercepted-by-host" : "event-not-observed-by-host",
            path,
            message: `this host does not offer ${selector} for ${mode}`
          })
        }
      })
    })
  })
  return issues
}

/**
 * What the host serves in process against what the document registers so: every backend
 * registered `in-process` must be served, and every served id registered `in-process`.
 */
const servingIssues = (hooks: ReadonlyArray<unknown>, served: ReadonlyArray<string>): Array<ConfigurationIssue> => {
  const registered = new Set<string>()
  const issues: Array<ConfigurationIssue> = []
  hooks.forEach((backend, b) => {
    if (!Json.isObject(backend) || typeof backend.id !== "string") return
    if (!Json.isObject(backend.transport) || backend.transport.type !== "in-process") return
    registered.add(backend.id)
    if (!served.includes(backend.id)) {
      issues.push({
        code: "in-process-backend-not-served",
        path: `/hooks/${b}/transport`,
        message: `${backend.id} is registered in-process, but this host serves no backend by that id`
      })
    }
  })
  for (const id of served) {
    if (!registered.has(id)) {
      issues.push({
        code: "served-backend-not-registered",
        path: "/hooks",
        message: `the host serves ${id} in process, but no backend is registered in-process by that id`
      })
    }
  }
  return issues
}

const maxTimeoutMs = Registration.maxTimeoutMs

/** Whether a value is a positive integer beyond what a timer can hold (the schema reports any other invalid value). */
const beyondTimers = (timeout: unknown): boolean =>
  typeof timeout === "number"
    ? Number.isInteger(timeout) && timeout > maxTimeoutMs
    : timeout instanceof Json.LosslessNumber && timeout.isInteger && !timeout.source.startsWith("-") &&
      timeout.approximate > maxTimeoutMs

/** JSON Pointer segments compared in document order: array indices as numbers. */
const comparePaths = (a: string, b: string): number => {
  const x = a.split("/")
  const y = b.split("/")
  for (let i = 0; i < Math.min(x.length, y.length); i++) {
    if (x[i] === y[i]) continue
    const m = Number(x[i])
    const n = Number(y[i])
    if (/^\d+$/.test(x[i]!) && /^\d+$/.test(y[i]!)) return m - n
    return x[i]! < y[i]! ? -1 : 1
  }
  return x.length - y.length
}

const compileRoutes = (registration: Registration.Registration, grant: Grant.Grant): Registry["routes"] => {
  const table = new Map<Event.EventType, { intercept: Array<Route>; observe: Array<Route> }>()
  for (const type of Event.eventTypes) table.set(type, { intercept: [], observe: [] })
  for (const backend of registration.hooks) {
    backend.subscriptions.forEach((subscription, index) => {
      const route: Route = {
        key: `${backend.id}#${index}`,
        backend,
        subscription,
        label: subscription.id ?? String(index),
        mode: subscription.mode,
        timeoutMs: subscription.mode === "intercept" ? Json.toNumber(subscription.timeoutMs) : undefined,
        failurePolicy: subscription.mode === "intercept" ? subscription.failurePolicy : undefined,
        subscriber: { content: subscription.content, includeNative: subscription.includeNative === true }
      }
      for (const type of Event.eventTypes) {
        const offered = subscription.mode === "intercept"
          ? Event.isInterceptable(type) && grant.events[type]?.intercept !== undefined
          : grant.events[type]?.observe === true
        if (offered && subscription.events.some((s) => Registration.selectorMatches(s, type))) {
          table.get(type)![subscription.mode].push(route)
        }
      }
    })
  }
  const empty = { intercept: [], observe: [] }
  return (type) => table.get(type) ?? empty
}

/**
 * Compiles a registration document (any JSON value) against a grant. With `served` (the ids
 * of the backends the host serves in process) the document's `in-process` backends are
 * checked against them; without it they are not (a validator that knows no host).
 *
 * @since 0.1.0
 * @category constructors
 */
export const compile = (
  document: unknown,
  grant: Grant.Grant,
  options?: { readonly served?: ReadonlyArray<string> | undefined }
): Either.Either<Registry, ConfigurationError> => {
  const decoded = decodeRegistration(document)
  const issues: Array<ConfigurationIssue> = [
    ...(Either.isLeft(decoded)
      ? decoded.left.map((issue) => ({
        code: isRuleCode(issue.code) ? issue.code : "invalid-value" as const,
        path: issue.path,
        message: issue.message
      }))
      : []),
    ...hostIssues(document, grant, options?.served)
  ]
  if (Either.isLeft(decoded) || issues.length > 0) {
    return Either.left(new ConfigurationError({ issues: issues.sort((a, b) => comparePaths(a.path, b.path)) }))
  }
  return Either.right({ registration: decoded.right, routes: compileRoutes(decoded.right, grant) })
}
