/**
 * The portable registration document: an ordered list of backends, each with one
 * transport, optional endpoint authentication (by reference, never a literal secret) and
 * ordered subscriptions. Unknown configuration members are ignored (kept, never acted on).
 *
 * @since 0.1.0
 */
import * as Arbitrary from "effect/Arbitrary"
import type * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import {
  AbsoluteUri,
  forbidden,
  isReverseDns,
  MemberName,
  NonEmpty,
  NonNegativeInt,
  optional,
  PositiveInt,
  ProtocolVersion,
  ReverseDns,
  struct
} from "./Common.js"
import * as Content from "./Content.js"
import * as EventType from "./EventType.js"
import * as arbitraries from "./internal/arbitraries.js"
import * as Issue from "./Issue.js"
import * as Json from "./Json.js"

/**
 * The codes of the registration rules: every problem a rule finds carries one (an issue's
 * `code`). A structural problem no rule names (a value of the wrong type) has none.
 *
 * @since 0.1.0
 * @category rules
 */
export const RuleCode = Schema.Literal(
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
  "missing-failure-policy",
  "invalid-failure-policy",
  "forbidden-failure-policy",
  "missing-timeout",
  "invalid-timeout",
  "forbidden-timeout",
  "missing-content-selection",
  "managed-scope-disableable"
)

/**
 * @since 0.1.0
 * @category rules
 */
export type RuleCode = typeof RuleCode.Type

/** One problem a rule found: its code, path (relative to the checked value) and message. */
type Problem = readonly [code: RuleCode, path: ReadonlyArray<PropertyKey>, message: string]

/**
 * Effect's annotation for a filter that also runs when its value's own schema failed
 * (`errors: "all"`), on the raw input — what `minItems` and `minLength` use. Its id is
 * internal to effect, but registered: `Symbol.for` gives the same symbol.
 */
const stableFilter = Symbol.for("effect/annotation/StableFilter")

/**
 * The rules of one level of the document as a Schema filter: each problem becomes an issue
 * carrying its code. The filter is stable: it also runs on the raw input when the value's
 * own schema failed (with every error reported), so a document's problems are all found at
 * once; the rules read the raw value defensively.
 */
const rules = <A>(check: (u: unknown) => ReadonlyArray<Problem>) =>
  Schema.filter<Schema.Schema<A, any, never>>(
    (u) => check(u).map(([code, path, message]): ParseResult.ParseIssue => Issue.coded(code, path, u, message)),
    { [stableFilter]: true }
  )

const has = (o: Json.JsonObject, key: string) => Object.prototype.hasOwnProperty.call(o, key)

const loopbackHost = /^(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])$/i

/**
 * Whether a URL host (as `URL.hostname` spells it) is a loopback host: `localhost`,
 * 127.0.0.0/8 or `[::1]`, the only hosts plain `http` may reach.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isLoopbackHost = (hostname: string): boolean => loopbackHost.test(hostname)

/**
 * Whether a URL is safe to send events to: https, or plain http on a loopback host
 * (`isLoopbackHost`). The HTTP binding and the upload client check each destination by
 * this rule before anything is sent.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isSafeEndpoint = (url: string): boolean => {
  const match = /^([a-z][a-z0-9+.-]*):\/\/(?:[^@/?#]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(url)
  if (match === null) return false
  const scheme = match[1]!.toLowerCase()
  return scheme === "https" || (scheme === "http" && isLoopbackHost(match[2]!))
}

const unique = <A>(items: ReadonlyArray<A>) => new Set(items).size === items.length || "must not contain duplicates"

const environmentNamePattern = /^[A-Za-z_][A-Za-z0-9_]*$/

const environmentName = Schema.String.pipe(
  Schema.pattern(environmentNamePattern, { message: () => "must be an environment variable name" })
)

/**
 * The member of a stdio transport through which this implementation takes more
 * environment for the child than `PATH` and `HOME`. The specification defines no `env`
 * field, so this is an extension member under a reverse-DNS name (the schema allows
 * other members, and other receivers ignore it).
 *
 * @since 0.1.0
 * @category constants
 */
export const environmentKey = "org.effect-ahp.env" as const

/**
 * The environment extension of a stdio transport: `inherit` names variables of the
 * harness's environment passed on when set; `set` gives literal values (never a secret:
 * name a secret's variable in `inherit`). A `set` value wins over an inherited one.
 *
 * @since 0.1.0
 * @category schemas
 */
export const StdioEnvironment = struct({
  inherit: optional(Schema.Array(environmentName)),
  set: optional(
    Schema.Record({
      key: Schema.String,
      value: Schema.String.pipe(Schema.pattern(/^[^\0]*$/, { message: () => "must not contain a NUL character" }))
    }).pipe(
      Schema.filter((set) =>
        Object.keys(set).filter((name) => !environmentNamePattern.test(name)).map((name) => ({
          path: [name],
          message: "must be an environment variable name"
        }))
      )
    ).annotations({
      arbitrary: () => (fc) =>
        fc.dictionary(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/), fc.string().filter((v) => !v.includes("\0")))
    })
  )
}).annotations({ identifier: "StdioEnvironment" })

/**
 * @since 0.1.0
 * @category models
 */
export type StdioEnvironment = typeof StdioEnvironment.Type

/**
 * A stdio backend: a command run directly (never through a shell), speaking one JSON
 * object per line; optionally with more environment (`StdioEnvironment` under
 * `environmentKey`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const StdioTransport = struct({
  type: Schema.Literal("stdio"),
  command: NonEmpty,
  args: optional(Schema.Array(Schema.String)),
  lifecycle: Schema.Literal("persistent", "per_event"),
  cwd: optional(Schema.String),
  [environmentKey]: optional(StdioEnvironment)
}).annotations({ identifier: "StdioTransport" })

/**
 * @since 0.1.0
 * @category models
 */
export type StdioTransport = typeof StdioTransport.Type

/**
 * An HTTP backend endpoint. Plain `http` is only acceptable for loopback addresses (the
 * backend's `unsafe-endpoint` rule).
 *
 * @since 0.1.0
 * @category schemas
 */
export const HttpTransport = struct({
  type: Schema.Literal("http"),
  url: AbsoluteUri.pipe(Schema.pattern(/^https?:\/\//, { message: () => "must be an http(s) URL" }))
}).annotations({ identifier: "HttpTransport" })

/**
 * @since 0.1.0
 * @category models
 */
export type HttpTransport = typeof HttpTransport.Type

/**
 * The in-process transport, an extension of this implementation: the specification's
 * portable bindings are stdio and HTTP, and `{"type": "in-process"}` names a backend the
 * host serves in its own process (a backend layer or plain Effect functions handed to the
 * harness by id, `JsonRpc.InProcessBackend`). A document naming one is usable only by a
 * host that serves that backend (`ahp validate` says it is not portable), and never appears
 * in generated values.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InProcessTransport = struct({ type: Schema.Literal("in-process") }).annotations({
  identifier: "InProcessTransport"
})

/**
 * @since 0.1.0
 * @category models
 */
export type InProcessTransport = typeof InProcessTransport.Type

/**
 * A backend's transport: stdio or HTTP (the portable bindings), or in process.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Transport = Schema.Union(StdioTransport, HttpTransport, InProcessTransport).annotations({
  identifier: "Transport",
  arbitrary: () => (fc) => fc.oneof(Arbitrary.makeLazy(StdioTransport)(fc), Arbitrary.makeLazy(HttpTransport)(fc))
})

/**
 * @since 0.1.0
 * @category models
 */
export type Transport = typeof Transport.Type

const literalSecret = forbidden("literal credentials are not allowed; name the secret with tokenEnv or tokenRef")

/**
 * Bearer authentication: a token resolved from an environment variable or a deployment
 * secret reference (exactly one), sent in one `Authorization` header.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Bearer = struct({
  type: Schema.Literal("bearer"),
  tokenEnv: optional(
    Schema.String.pipe(
      Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "must be an environment variable name" })
    )
  ),
  tokenRef: optional(NonEmpty),
  token: literalSecret,
  bearerToken: literalSecret,
  value: literalSecret
}).pipe(
  Schema.filter((b) =>
    (b.tokenEnv === undefined) !== (b.tokenRef === undefined) || "exactly one of tokenEnv and tokenRef is required"
  )
).annotations({
  identifier: "BearerAuthentication",
  arbitrary: () => (fc) =>
    fc.oneof(
      fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,10}$/).map((tokenEnv) => ({ type: "bearer" as const, tokenEnv })),
      fc.string({ minLength: 1, maxLength: 12 }).map((tokenRef) => ({ type: "bearer" as const, tokenRef }))
    )
})

/**
 * @since 0.1.0
 * @category models
 */
export type Bearer = typeof Bearer.Type

/**
 * An OAuth preset: issuer, protected resource, client and flow.
 *
 * @since 0.1.0
 * @category schemas
 */
export const OAuth = struct({
  type: Schema.Literal("oauth"),
  issuer: AbsoluteUri.pipe(Schema.pattern(/^https:\/\//, { message: () => "an OAuth issuer must be an https URL" }))
    .annotations({ arbitrary: () => (fc) => fc.webUrl({ validSchemes: ["https"] }) }),
  resource: NonEmpty,
  clientId: NonEmpty,
  clientSecretRef: optional(NonEmpty),
  flow: Schema.Literal("authorization_code_pkce", "client_credentials"),
  scopes: optional(Schema.Array(NonEmpty).pipe(Schema.filter(unique))),
  clientSecret: forbidden("literal client secrets are not allowed; use clientSecretRef")
}).annotations({ identifier: "OAuthAuthentication" })

/**
 * @since 0.1.0
 * @category models
 */
export type OAuth = typeof OAuth.Type

/**
 * Endpoint authentication; only `bearer` and `oauth` are portable bindings.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Authentication = Schema.Union(Bearer, OAuth).annotations({ identifier: "Authentication" })

/**
 * @since 0.1.0
 * @category models
 */
export type Authentication = typeof Authentication.Type

/**
 * Per-category content selection with the required `default`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ContentSelection = Schema.Struct(
  { default: Content.Selection },
  Schema.Record({ key: MemberName, value: Content.Selection })
).annotations({
  identifier: "ContentSelection",
  arbitrary: () => (fc) =>
    fc.record({
      default: fc.constantFrom(...Content.Selection.literals),
      categories: fc.dictionary(
        fc.constantFrom("text", "reasoning", "images", "audio", "video", "files", "skills"),
        fc.constantFrom(...Content.Selection.literals)
      )
    }).map(({ categories, default: d }) => ({ ...categories, default: d }))
})

/**
 * @since 0.1.0
 * @category models
 */
export type ContentSelection = typeof ContentSelection.Type

/**
 * Attachment upload configuration (HTTPS, or explicitly configured loopback HTTP).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Upload = struct({
  endpoint: AbsoluteUri.pipe(
    Schema.pattern(
      /^(?:https:\/\/|http:\/\/(?:localhost|127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}|\[::1\])(?::[0-9]+)?(?:[/?#]|$))/,
      { message: () => "an upload endpoint must be https (plain http only on loopback)" }
    )
  ).annotations({ arbitrary: () => (fc) => fc.webUrl({ validSchemes: ["https"] }) }),
  auth: optional(Authentication),
  timeoutMs: PositiveInt,
  maxBytes: NonNegativeInt
}).annotations({ identifier: "Upload" })

/**
 * @since 0.1.0
 * @category models
 */
export type Upload = typeof Upload.Type

/**
 * Delivery hints; never a reason to drop an event.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Filters = struct({
  toolKinds: optional(Schema.Array(NonEmpty).pipe(Schema.filter(unique))),
  paths: optional(Schema.Array(NonEmpty).pipe(Schema.filter(unique)))
})

/**
 * How an operational failure of an intercept subscription is handled.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FailurePolicy = Schema.Literal("fail-open", "fail-closed")

/**
 * @since 0.1.0
 * @category models
 */
export type FailurePolicy = typeof FailurePolicy.Type

/**
 * Policy scope of a subscription.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Scope = Schema.Literal("managed", "project", "user")

const wildcardPattern = /^(?:\*|[a-z][a-z0-9]*\.\*)$/

/**
 * Whether an event selector is a wildcard (`*` or a whole family `tool.*`).
 *
 * @since 0.1.0
 * @category refinements
 */
export const isWildcard = (selector: string): boolean => wildcardPattern.test(selector)

/**
 * Whether a selector matches an event type.
 *
 * @since 0.1.0
 * @category predicates
 */
export const selectorMatches = (selector: string, eventType: string): boolean =>
  selector === "*" || selector === eventType ||
  (isWildcard(selector) && EventType.family(eventType) === selector.slice(0, -2))

const selector = (allowed: ReadonlyArray<string>, what: string) =>
  Schema.String.pipe(
    Schema.filter((s) =>
      allowed.includes(s) || isWildcard(s) ||
      `must be ${what} event type, a family wildcard such as tool.*, or *`
    )
  )

const subscriptionFields = {
  id: optional(NonEmpty),
  includeNative: optional(Schema.Boolean),
  content: ContentSelection,
  upload: optional(Upload),
  filters: optional(Filters),
  scope: optional(Scope),
  disableable: optional(Schema.Boolean)
}

const selectorProblems = (events: unknown, mode: "intercept" | "observe"): Array<Problem> => {
  if (!Array.isArray(events) || events.length === 0) {
    return [["invalid-selector", ["events"], "events must be a non-empty list of event selectors"]]
  }
  const problems: Array<Problem> = []
  const seen = new Set<string>()
  events.forEach((selector: unknown, i) => {
    const path = ["events", i]
    if (typeof selector !== "string") return problems.push(["invalid-selector", path, "a selector must be a string"])
    if (seen.has(selector)) return problems.push(["duplicate-selector", path, `${selector} is listed twice`])
    seen.add(selector)
    if (isWildcard(selector)) return
    if (selector.includes("*")) {
      return problems.push(["invalid-selector", path, "wildcards select a whole family (tool.*) or everything (*)"])
    }
    if (!EventType.isEventType(selector)) {
      return problems.push(["unknown-event", path, `${selector} is not a catalogue event type`])
    }
    if (mode === "intercept" && !EventType.isInterceptable(selector)) {
      problems.push([
        "intercept-on-observe-only-event",
        path,
        `${selector} is observation-only and cannot be intercepted`
      ])
    }
  })
  return problems
}

/**
 * The rules of a subscription in `mode`: selectors, deadline and failure policy, content,
 * scope, upload endpoint. (A `timeoutMs` that is not a positive integer is the field's own
 * problem, coded `invalid-timeout`.)
 */
const subscriptionRules = (mode: "intercept" | "observe") => (sub: unknown): ReadonlyArray<Problem> => {
  if (!Json.isObject(sub)) return []
  const problems = selectorProblems(sub.events, mode)
  if (mode === "intercept") {
    if (!has(sub, "failurePolicy") || sub.failurePolicy === undefined) {
      problems.push([
        "missing-failure-policy",
        ["failurePolicy"],
        "an intercept subscription must declare fail-open or fail-closed"
      ])
    } else if (sub.failurePolicy !== "fail-open" && sub.failurePolicy !== "fail-closed") {
      const given = typeof sub.failurePolicy === "string"
        ? `, got ${JSON.stringify(sub.failurePolicy.slice(0, 64))}`
        : ""
      problems.push([
        "invalid-failure-policy",
        ["failurePolicy"],
        `failurePolicy must be fail-open or fail-closed${given}`
      ])
    }
    if (!has(sub, "timeoutMs")) {
      problems.push(["missing-timeout", ["timeoutMs"], "an intercept subscription must declare timeoutMs"])
    }
  } else {
    if (has(sub, "failurePolicy")) {
      problems.push([
        "forbidden-failure-policy",
        ["failurePolicy"],
        "an observe subscription must not set failurePolicy"
      ])
    }
    if (has(sub, "timeoutMs")) {
      problems.push(["forbidden-timeout", ["timeoutMs"], "an observe subscription must not set timeoutMs"])
    }
  }
  if (!Json.isObject(sub.content) || !has(sub.content, "default")) {
    problems.push(["missing-content-selection", ["content"], "content selection with a default is required"])
  }
  if (sub.scope === "managed" && sub.disableable !== false) {
    problems.push([
      "managed-scope-disableable",
      ["disableable"],
      "a managed subscription must set disableable to false"
    ])
  }
  if (Json.isObject(sub.upload) && typeof sub.upload.endpoint === "string" && !isSafeEndpoint(sub.upload.endpoint)) {
    problems.push([
      "unsafe-endpoint",
      ["upload", "endpoint"],
      "upload endpoints must be https (plain http only on loopback)"
    ])
  }
  return problems
}

/**
 * The longest intercept deadline a harness can hold: the longest timer delay, 2^31 - 1
 * milliseconds. The document schema accepts any positive integer; a harness refuses a
 * longer `timeoutMs` (`invalid-timeout`), so the schema's arbitrary draws within it.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxTimeoutMs = 2_147_483_647

/**
 * An intercept subscription: explicit deadline and failure policy, interceptable events only.
 *
 * @since 0.1.0
 * @category schemas
 */
export const InterceptSubscription = struct({
  ...subscriptionFields,
  events: Schema.Array(selector(EventType.interceptableEventTypes, "an interceptable")).pipe(
    Schema.minItems(1),
    Schema.filter(unique)
  ).annotations({ arbitrary: () => (fc) => arbitraries.selectors(fc, EventType.interceptableEventTypes) }),
  mode: Schema.Literal("intercept"),
  timeoutMs: PositiveInt.annotations({
    [Issue.CodeAnnotationId]: "invalid-timeout",
    arbitrary: () => (fc) => fc.integer({ min: 1, max: maxTimeoutMs })
  }),
  failurePolicy: FailurePolicy
}).pipe(rules(subscriptionRules("intercept"))).annotations({ identifier: "InterceptSubscription" })

/**
 * @since 0.1.0
 * @category models
 */
export type InterceptSubscription = typeof InterceptSubscription.Type

/**
 * An observe subscription: no deadline or failure policy.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ObserveSubscription = struct({
  ...subscriptionFields,
  events: Schema.Array(selector(EventType.eventTypes, "a catalogue")).pipe(Schema.minItems(1), Schema.filter(unique))
    .annotations({ arbitrary: () => (fc) => arbitraries.selectors(fc, EventType.eventTypes) }),
  mode: Schema.Literal("observe"),
  timeoutMs: forbidden("an observe subscription must not set timeoutMs"),
  failurePolicy: forbidden("an observe subscription must not set failurePolicy")
}).pipe(rules(subscriptionRules("observe"))).annotations({ identifier: "ObserveSubscription" })

/**
 * @since 0.1.0
 * @category models
 */
export type ObserveSubscription = typeof ObserveSubscription.Type

/**
 * Any subscription.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Subscription = Schema.Union(InterceptSubscription, ObserveSubscription)
  .annotations({ identifier: "Subscription" })

/**
 * @since 0.1.0
 * @category models
 */
export type Subscription = typeof Subscription.Type

/** The entries of `list` (at `member`) whose valid `id` an earlier entry already has. */
const duplicateIds = (
  list: ReadonlyArray<unknown>,
  member: string,
  valid: (id: unknown) => id is string,
  code: RuleCode,
  what: string
): Array<Problem> => {
  const seen = new Set<string>()
  return list.flatMap((entry, i): Array<Problem> => {
    if (!Json.isObject(entry) || !valid(entry.id)) return []
    if (seen.has(entry.id)) return [[code, [member, i, "id"], `duplicate ${what} id ${entry.id}`]]
    seen.add(entry.id)
    return []
  })
}

const transportTypes = ["stdio", "http", "in-process"]

const literalCredentials = ["token", "bearerToken", "value", "secret", "password", "clientSecret"]

/** The rules of a backend: id, transport, authentication, subscription list and ids, modes. */
const backendRules = (backend: unknown): ReadonlyArray<Problem> => {
  if (!Json.isObject(backend)) return []
  const problems: Array<Problem> = []
  if (typeof backend.id !== "string" || !isReverseDns(backend.id)) {
    problems.push(["invalid-backend-id", ["id"], "a backend id must be a reverse-DNS name such as com.example.policy"])
  }
  const transport = backend.transport
  if (!Json.isObject(transport) || !transportTypes.includes(transport.type as string)) {
    problems.push(["unsupported-transport", ["transport"], "transport must be stdio, http or in-process"])
  } else if (transport.type === "http" && typeof transport.url === "string" && !isSafeEndpoint(transport.url)) {
    problems.push([
      "unsafe-endpoint",
      ["transport", "url"],
      "remote endpoints must be https; plain http is only allowed on loopback"
    ])
  }
  const auth = backend.authentication
  if (has(backend, "authentication")) {
    if (Json.isObject(transport) && (transport.type === "stdio" || transport.type === "in-process")) {
      problems.push([
        "authentication-not-allowed",
        ["authentication"],
        `${transport.type} backends take no authentication (process trust only)`
      ])
    }
    if (Json.isObject(auth)) {
      if (auth.type !== "bearer" && auth.type !== "oauth") {
        problems.push([
          "unknown-auth-type",
          ["authentication", "type"],
          "authentication type must be bearer or oauth (the portable bindings)"
        ])
      }
      for (const key of literalCredentials) {
        if (has(auth, key)) {
          problems.push([
            "literal-credential",
            ["authentication", key],
            "literal credentials are not allowed; reference the secret"
          ])
        }
      }
    }
  }
  const subscriptions = backend.subscriptions
  if (!Array.isArray(subscriptions) || subscriptions.length === 0) {
    problems.push(["missing-subscriptions", ["subscriptions"], "a backend needs at least one subscription"])
    return problems
  }
  problems.push(
    ...duplicateIds(
      subscriptions,
      "subscriptions",
      (id): id is string => typeof id === "string",
      "duplicate-subscription-id",
      "subscription"
    )
  )
  subscriptions.forEach((sub: unknown, i) => {
    if (Json.isObject(sub) && sub.mode !== "intercept" && sub.mode !== "observe") {
      problems.push(["invalid-mode", ["subscriptions", i, "mode"], "mode must be intercept or observe"])
    }
  })
  return problems
}

/**
 * One backend: identity, transport, optional authentication, ordered subscriptions.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Backend = struct({
  id: ReverseDns.annotations({ arbitrary: () => arbitraries.reverseDns }),
  transport: Transport,
  authentication: optional(Authentication),
  subscriptions: Schema.Array(Subscription).pipe(Schema.minItems(1)),
  contentReceiver: forbidden("contentReceiver is not part of this protocol revision; configure upload per subscription")
}).pipe(rules(backendRules)).annotations({ identifier: "Backend" })

/**
 * @since 0.1.0
 * @category models
 */
export type Backend = typeof Backend.Type

/** The rules of the document: an object, the protocol version, backends with distinct ids. */
const documentRules = (document: unknown): ReadonlyArray<Problem> => {
  if (!Json.isObject(document)) return [["invalid-document", [], "a registration document must be a JSON object"]]
  const problems: Array<Problem> = []
  if (document.protocolVersion !== "draft") {
    problems.push(["unsupported-protocol-version", ["protocolVersion"], "protocolVersion must be \"draft\""])
  }
  const hooks = document.hooks
  if (!Array.isArray(hooks) || hooks.length === 0) {
    problems.push(["missing-backends", ["hooks"], "hooks must list at least one backend"])
    return problems
  }
  problems.push(
    ...duplicateIds(
      hooks,
      "hooks",
      (id): id is string => typeof id === "string" && isReverseDns(id),
      "duplicate-backend-id",
      "backend"
    )
  )
  return problems
}

/**
 * The registration document. Its rules carry codes (`RuleCode`): a decoding issue found by
 * a rule has the rule's `code`, and replaces the structural issues at its path.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Registration = struct({
  protocolVersion: ProtocolVersion,
  hooks: Schema.Array(Backend).pipe(Schema.minItems(1, { message: () => "must list at least one backend" }))
}).annotations({
  [Issue.CodeAnnotationId]: { code: "invalid-document", message: "a registration document must be a JSON object" }
}).pipe(rules(documentRules)).annotations({ identifier: "Registration" })

/**
 * @since 0.1.0
 * @category models
 */
export type Registration = typeof Registration.Type

/**
 * An event selector of an intercept subscription: an interceptable event type, a family
 * wildcard such as `tool.*`, or `*`.
 *
 * @since 0.1.0
 * @category builders
 */
export type InterceptSelector = EventType.InterceptableEventType | FamilyWildcard | "*"

/**
 * An event selector of an observe subscription: a catalogue event type, a family wildcard
 * such as `tool.*`, or `*`.
 *
 * @since 0.1.0
 * @category builders
 */
export type ObserveSelector = EventType.EventType | FamilyWildcard | "*"

/**
 * A family wildcard of the catalogue (`tool.*`, `session.*`, …).
 *
 * @since 0.1.0
 * @category builders
 */
export type FamilyWildcard = EventType.EventType extends infer T ? T extends `${infer F}.${string}` ? `${F}.*` : never
  : never

type Mutable<A> = { -readonly [K in keyof A]: A[K] }

/** What a subscription built in code may set beside its events and mode. */
type SubscriptionOptions = Partial<Pick<Subscription, Exclude<keyof typeof subscriptionFields, "content">>> & {
  /** The content selection; `{ default: "omit" }` when absent. */
  readonly content?: ContentSelection
}

/**
 * An intercept subscription in code. Content defaults to `{ default: "omit" }`.
 *
 * @example
 * ```ts
 * import { Registration } from "@effect-ahp/protocol"
 *
 * const guarded = Registration.intercept(["tool.before"], { timeoutMs: 2000, failurePolicy: "fail-closed" })
 * ```
 *
 * @since 0.1.0
 * @category builders
 */
export const intercept = (
  events: readonly [InterceptSelector, ...Array<InterceptSelector>],
  options: SubscriptionOptions & { readonly timeoutMs: number; readonly failurePolicy: FailurePolicy }
): InterceptSubscription => ({ content: { default: "omit" }, ...definedOf(options), events, mode: "intercept" })

/**
 * An observe subscription in code. Content defaults to `{ default: "omit" }`.
 *
 * @since 0.1.0
 * @category builders
 */
export const observe = (
  events: readonly [ObserveSelector, ...Array<ObserveSelector>],
  options: SubscriptionOptions = {}
): ObserveSubscription => ({ content: { default: "omit" }, ...definedOf(options), events, mode: "observe" })

/** The members of an options object that are set (an `undefined` member is left out). */
const definedOf = <A extends object>(options: A): A =>
  Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as A

type Subscriptions = readonly [Subscription, ...Array<Subscription>]

/**
 * A stdio backend in code: `transport` is the stdio transport without its `type`.
 *
 * @since 0.1.0
 * @category builders
 */
export const stdio = (
  id: string,
  transport: Omit<StdioTransport, "type">,
  subscriptions: Subscriptions
): Backend => ({ id, transport: { type: "stdio", ...definedOf(transport) }, subscriptions })

/**
 * An HTTP backend in code, optionally with endpoint authentication (by reference).
 *
 * @since 0.1.0
 * @category builders
 */
export const http = (
  id: string,
  transport: { readonly url: string },
  subscriptions: Subscriptions,
  options?: { readonly authentication?: Authentication | undefined }
): Backend => {
  const backend: Mutable<Backend> = { id, transport: { type: "http", url: transport.url }, subscriptions }
  if (options?.authentication !== undefined) backend.authentication = options.authentication
  return backend
}

/**
 * A backend the host serves in its own process, through the in-process transport
 * extension (`InProcessTransport`, not a portable binding): the harness routes it to the
 * in-process backend given under the same id (see `Hooks.layer`'s `backends`), with no
 * transport to describe.
 *
 * @since 0.1.0
 * @category builders
 */
export const inProcess = (id: string, subscriptions: Subscriptions): Backend => ({
  id,
  transport: { type: "in-process" },
  subscriptions
})

/**
 * A registration document in code, for protocol revision `draft`. The builders type-check
 * event selectors per mode, transports and policies; the rules that depend on values (ids,
 * endpoints, duplicates) are checked where the document is used, by the same Schema as a
 * document loaded from JSON (`Registration`).
 *
 * @example
 * ```ts
 * import { Registration } from "@effect-ahp/protocol"
 *
 * const registration = Registration.make([
 *   Registration.inProcess("com.example.guard", [
 *     Registration.intercept(["tool.before"], { timeoutMs: 2000, failurePolicy: "fail-closed" })
 *   ]),
 *   Registration.http("com.example.audit", { url: "https://audit.example.com/hooks" }, [
 *     Registration.observe(["tool.*"])
 *   ])
 * ])
 * ```
 *
 * @since 0.1.0
 * @category builders
 */
export const make = (backends: readonly [Backend, ...Array<Backend>]): Registration => ({
  protocolVersion: "draft",
  hooks: backends
})
