/**
 * Compiles a registration document once, against the host's grant, into ordered routes
 * per event type. Every problem is reported at load time, all at once, as a
 * `ConfigurationError` whose issues carry a code from a closed set and a JSON Pointer —
 * invalid or ambiguous configuration is never silently skipped.
 *
 * Routes keep subscription identity: order is `hooks` order then subscription order, and
 * invocation is tracked per subscription, so an explicit observe subscription is never
 * deduplicated against an intercept subscription of the same backend.
 *
 * Decisions where the specification is silent: a subscription without `id` is labelled by
 * its index within its backend; explicit subscription ids must be unique within a
 * backend; `timeoutMs` above 2147483647 is rejected; `filters` are hints and never
 * narrow delivery.
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
  "invalid-document",
  "unsupported-protocol-version",
  "missing-backends",
  "invalid-backend-id",
  "duplicate-backend-id",
  "duplicate-subscription-id",
  "unsupported-transport",
  "unsafe-endpoint",
  "unknown-auth-type",
  "literal-credential",
  "authentication-not-allowed",
  "missing-subscriptions",
  "invalid-mode",
  "invalid-selector",
  "unknown-event",
  "duplicate-selector",
  "intercept-on-observe-only-event",
  "event-not-intercepted-by-host",
  "event-not-observed-by-host",
  "wildcard-selects-nothing",
  "missing-failure-policy",
  "forbidden-failure-policy",
  "missing-timeout",
  "invalid-timeout",
  "forbidden-timeout",
  "missing-content-selection",
  "managed-scope-disableable",
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
export const ConfigurationIssue = Schema.Struct({ code: ConfigurationCode, path: Schema.String, message: Schema.String })

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
export class ConfigurationError extends Schema.TaggedError<ConfigurationError>("@effect-ahp/harness/ConfigurationError")(
  "ConfigurationError",
  { issues: Schema.Array(ConfigurationIssue) }
) {
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
  readonly routes: (type: Event.EventType) => { readonly intercept: ReadonlyArray<Route>; readonly observe: ReadonlyArray<Route> }
}

const loopbackHost = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

/**
 * Whether a URL is safe to send events to: https, or plain http on a loopback host.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isSafeEndpoint = (url: string): boolean => {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(url)
  if (match === null) return false
  const scheme = match[1]!.toLowerCase()
  return scheme === "https" || (scheme === "http" && loopbackHost.test(match[2]!))
}

const decodeRegistration = Decoder.make(Registration.Registration)

interface Collector {
  readonly issues: Array<ConfigurationIssue>
  add(code: ConfigurationCode, path: string, message: string): void
}

const collector = (): Collector => {
  const issues: Array<ConfigurationIssue> = []
  return { issues, add: (code, path, message) => issues.push({ code, path, message }) }
}

const has = (o: Json.JsonObject, key: string) => Object.prototype.hasOwnProperty.call(o, key)

const checkAuthentication = (auth: Json.JsonValue, transport: unknown, at: string, c: Collector) => {
  if (Json.isObject(transport) && transport.type === "stdio") {
    c.add("authentication-not-allowed", at, "stdio backends take no authentication (process trust only)")
  }
  if (!Json.isObject(auth)) return c.add("invalid-value", at, "authentication must be an object")
  if (auth.type !== "bearer" && auth.type !== "oauth") {
    c.add("unknown-auth-type", `${at}/type`, "authentication type must be bearer or oauth (the portable bindings)")
  }
  for (const key of ["token", "bearerToken", "value", "secret", "password", "clientSecret"]) {
    if (has(auth, key)) c.add("literal-credential", `${at}/${key}`, "literal credentials are not allowed; reference the secret")
  }
}

const checkSelectors = (
  sub: Json.JsonObject,
  mode: "intercept" | "observe",
  at: string,
  grant: Grant.Grant,
  c: Collector
): ReadonlyArray<Event.EventType> => {
  const events = sub.events
  if (!Array.isArray(events) || events.length === 0) {
    c.add("invalid-selector", `${at}/events`, "events must be a non-empty list of event selectors")
    return []
  }
  const offered = (type: Event.EventType) =>
    mode === "intercept" ? grant.events[type]?.intercept !== undefined : grant.events[type]?.observe === true
  const selected = new Set<Event.EventType>()
  const seen = new Set<string>()
  events.forEach((selector, i) => {
    const path = `${at}/events/${i}`
    if (typeof selector !== "string") return c.add("invalid-selector", path, "a selector must be a string")
    if (seen.has(selector)) return c.add("duplicate-selector", path, `${selector} is listed twice`)
    seen.add(selector)
    if (Registration.isWildcard(selector)) {
      const matched = Event.eventTypes.filter((t) =>
        Registration.selectorMatches(selector, t) && (mode === "observe" || Event.isInterceptable(t)) && offered(t)
      )
      if (matched.length === 0) {
        return c.add("wildcard-selects-nothing", path, `${selector} selects no event this host offers for ${mode}`)
      }
      return matched.forEach((t) => selected.add(t))
    }
    if (selector.includes("*")) {
      return c.add("invalid-selector", path, "wildcards select a whole family (tool.*) or everything (*)")
    }
    if (!Event.isEventType(selector)) return c.add("unknown-event", path, `${selector} is not a catalogue event type`)
    if (mode === "intercept" && !Event.isInterceptable(selector)) {
      return c.add("intercept-on-observe-only-event", path, `${selector} is observation-only and cannot be intercepted`)
    }
    if (!offered(selector)) {
      return c.add(
        mode === "intercept" ? "event-not-intercepted-by-host" : "event-not-observed-by-host",
        path,
        `this host does not offer ${selector} for ${mode}`
      )
    }
    selected.add(selector)
  })
  return [...selected]
}

const maxTimeoutMs = 2_147_483_647

const checkSubscription = (sub: Json.JsonValue, at: string, grant: Grant.Grant, c: Collector) => {
  if (!Json.isObject(sub)) return c.add("invalid-value", at, "a subscription must be an object")
  const mode = sub.mode
  if (mode !== "intercept" && mode !== "observe") {
    c.add("invalid-mode", `${at}/mode`, "mode must be intercept or observe")
    return
  }
  checkSelectors(sub, mode, at, grant, c)
  if (mode === "intercept") {
    if (!has(sub, "failurePolicy")) c.add("missing-failure-policy", `${at}/failurePolicy`, "an intercept subscription must declare fail-open or fail-closed")
    else if (sub.failurePolicy !== "fail-open" && sub.failurePolicy !== "fail-closed") {
      c.add("missing-failure-policy", `${at}/failurePolicy`, "failurePolicy must be fail-open or fail-closed")
    }
    if (!has(sub, "timeoutMs")) c.add("missing-timeout", `${at}/timeoutMs`, "an intercept subscription must declare timeoutMs")
    else if (typeof sub.timeoutMs !== "number" || !Number.isInteger(sub.timeoutMs) || sub.timeoutMs < 1 || sub.timeoutMs > maxTimeoutMs) {
      c.add("invalid-timeout", `${at}/timeoutMs`, `timeoutMs must be an integer from 1 to ${maxTimeoutMs}`)
    }
  } else {
    if (has(sub, "failurePolicy")) c.add("forbidden-failure-policy", `${at}/failurePolicy`, "an observe subscription must not set failurePolicy")
    if (has(sub, "timeoutMs")) c.add("forbidden-timeout", `${at}/timeoutMs`, "an observe subscription must not set timeoutMs")
  }
  if (!Json.isObject(sub.content) || !has(sub.content, "default")) {
    c.add("missing-content-selection", `${at}/content`, "content selection with a default is required")
  }
  if (sub.scope === "managed" && sub.disableable !== false) {
    c.add("managed-scope-disableable", `${at}/disableable`, "a managed subscription must set disableable to false")
  }
  if (Json.isObject(sub.upload) && typeof sub.upload.endpoint === "string" && !isSafeEndpoint(sub.upload.endpoint)) {
    c.add("unsafe-endpoint", `${at}/upload/endpoint`, "upload endpoints must be https (plain http only on loopback)")
  }
}

const checkBackend = (backend: Json.JsonValue, at: string, ids: Set<string>, grant: Grant.Grant, c: Collector) => {
  if (!Json.isObject(backend)) return c.add("invalid-value", at, "a backend must be an object")
  if (typeof backend.id !== "string" || !/^(?:[A-Za-z][A-Za-z0-9_-]*\.)+[A-Za-z][A-Za-z0-9_-]*$/.test(backend.id)) {
    c.add("invalid-backend-id", `${at}/id`, "a backend id must be a reverse-DNS name such as com.example.policy")
  } else if (ids.has(backend.id)) c.add("duplicate-backend-id", `${at}/id`, `duplicate backend id ${backend.id}`)
  else ids.add(backend.id)
  const transport = backend.transport
  if (!Json.isObject(transport) || (transport.type !== "stdio" && transport.type !== "http")) {
    c.add("unsupported-transport", `${at}/transport`, "transport must be stdio or http")
  } else if (transport.type === "http" && typeof transport.url === "string" && !isSafeEndpoint(transport.url)) {
    c.add("unsafe-endpoint", `${at}/transport/url`, "remote endpoints must be https; plain http is only allowed on loopback")
  }
  if (has(backend, "authentication")) checkAuthentication(backend.authentication!, transport, `${at}/authentication`, c)
  const subs = backend.subscriptions
  if (!Array.isArray(subs) || subs.length === 0) {
    return c.add("missing-subscriptions", `${at}/subscriptions`, "a backend needs at least one subscription")
  }
  const subIds = new Set<string>()
  subs.forEach((sub, i) => {
    if (Json.isObject(sub) && typeof sub.id === "string") {
      if (subIds.has(sub.id)) c.add("duplicate-subscription-id", `${at}/subscriptions/${i}/id`, `duplicate subscription id ${sub.id}`)
      subIds.add(sub.id)
    }
    checkSubscription(sub, `${at}/subscriptions/${i}`, grant, c)
  })
}

const covered = (issues: ReadonlyArray<ConfigurationIssue>, path: string) =>
  issues.some((i) => path === i.path || path.startsWith(i.path + "/") || i.path.startsWith(path + "/"))

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
 * Compiles a registration document (any JSON value) against a grant.
 *
 * @since 0.1.0
 * @category constructors
 */
export const compile = (document: unknown, grant: Grant.Grant): Either.Either<Registry, ConfigurationError> => {
  const c = collector()
  if (!Json.isObject(document)) {
    c.add("invalid-document", "", "a registration document must be a JSON object")
    return Either.left(new ConfigurationError({ issues: c.issues }))
  }
  if (document.protocolVersion !== "draft") {
    c.add("unsupported-protocol-version", "/protocolVersion", "protocolVersion must be \"draft\"")
  }
  const hooks = document.hooks
  if (!Array.isArray(hooks) || hooks.length === 0) c.add("missing-backends", "/hooks", "hooks must list at least one backend")
  else {
    const ids = new Set<string>()
    hooks.forEach((backend, i) => checkBackend(backend, `/hooks/${i}`, ids, grant, c))
  }
  const decoded = decodeRegistration(document)
  if (Either.isLeft(decoded)) {
    const semantic = [...c.issues]
    for (const issue of decoded.left) {
      if (!covered(semantic, issue.path)) c.add("invalid-value", issue.path, issue.message)
    }
  }
  if (c.issues.length > 0 || Either.isLeft(decoded)) return Either.left(new ConfigurationError({ issues: c.issues }))
  return Either.right({ registration: decoded.right, routes: compileRoutes(decoded.right, grant) })
}
