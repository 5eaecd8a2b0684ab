/**
 * The portable registration document: an ordered list of backends, each with one
 * transport, optional endpoint authentication (by reference, never a literal secret) and
 * ordered subscriptions. Unknown configuration members are ignored (kept, never acted on).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { AbsoluteUri, forbidden, MemberName, NonEmpty, NonNegativeInt, PositiveInt, ProtocolVersion, ReverseDns, struct } from "./Common.js"
import * as Content from "./Content.js"
import * as EventType from "./EventType.js"
import * as arbitraries from "./internal/arbitraries.js"

const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optionalWith(schema, { exact: true })

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
    }).pipe(Schema.filter((set) =>
      Object.keys(set).filter((name) => !environmentNamePattern.test(name)).map((name) => ({
        path: [name],
        message: "must be an environment variable name"
      }))
    )).annotations({
      arbitrary: () => (fc) => fc.dictionary(fc.stringMatching(/^[A-Z_][A-Z0-9_]{0,8}$/), fc.string().filter((v) => !v.includes("\0")))
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
 * An HTTP backend endpoint. Plain `http` is only acceptable for loopback addresses; the
 * harness registry enforces that.
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
 * A backend's transport.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Transport = Schema.Union(StdioTransport, HttpTransport).annotations({ identifier: "Transport" })

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
    Schema.String.pipe(Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "must be an environment variable name" }))
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
  selector === "*" || selector === eventType || (isWildcard(selector) && EventType.family(eventType) === selector.slice(0, -2))

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

const managedIsNotDisableable = <A extends { readonly scope?: string | undefined; readonly disableable?: boolean }>(
  s: A
) =>
  s.scope !== "managed" || s.disableable === false ||
  { path: ["disableable"], message: "a managed subscription must set disableable to false" }

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
  timeoutMs: PositiveInt,
  failurePolicy: FailurePolicy
}).pipe(Schema.filter(managedIsNotDisableable)).annotations({ identifier: "InterceptSubscription" })

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
}).pipe(Schema.filter(managedIsNotDisableable)).annotations({ identifier: "ObserveSubscription" })

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
}).pipe(
  Schema.filter((b) =>
    b.transport.type !== "stdio" || b.authentication === undefined ||
    { path: ["authentication"], message: "stdio backends take no authentication (process trust only)" }
  )
).annotations({ identifier: "Backend" })

/**
 * @since 0.1.0
 * @category models
 */
export type Backend = typeof Backend.Type

/**
 * The registration document.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Registration = struct({
  protocolVersion: ProtocolVersion,
  hooks: Schema.Array(Backend).pipe(Schema.minItems(1, { message: () => "must list at least one backend" }))
}).pipe(
  Schema.filter((doc) => {
    const seen = new Set<string>()
    return doc.hooks.flatMap((backend, i) => {
      if (!seen.has(backend.id)) {
        seen.add(backend.id)
        return []
      }
      return [{ path: ["hooks", i, "id"], message: `duplicate backend id ${backend.id}` }]
    })
  })
).annotations({ identifier: "Registration" })

/**
 * @since 0.1.0
 * @category models
 */
export type Registration = typeof Registration.Type
