/**
 * What every host adapter provides: the AHP event a hook payload becomes, what the host
 * enforces at each event (the grant, advertised per call), and the host's answer for a
 * settled decision — one JSON object or the host's "no opinion" form, always exit 0.
 *
 * The adapter rules it follows: native exit codes and output shapes never reach a backend;
 * identities are synthesized deterministically (the same payload gives the same event id);
 * only effects the host event can enforce are advertised; every accepted effect is rendered
 * or, where the host cannot express it, reported visibly (never dropped in silence); and a
 * denial is only claimed where the host can block.
 *
 * @since 0.1.0
 */
import type { Grant, Settlement } from "@effect-ahp/harness"
import type { Capabilities, Discovery, Event, HookEffect } from "@effect-ahp/protocol"
import { Common, Json } from "@effect-ahp/protocol"
import type * as Either from "effect/Either"
import { hasProperty } from "effect/Predicate"
import * as Schema from "effect/Schema"
import type * as HostEvents from "./HostEvents.js"

/**
 * The brand of a `PayloadError`.
 *
 * @since 0.1.0
 * @category type ids
 */
export const PayloadErrorTypeId: unique symbol = Symbol.for("@effect-ahp/hosts/PayloadError")

/**
 * @since 0.1.0
 * @category type ids
 */
export type PayloadErrorTypeId = typeof PayloadErrorTypeId

/**
 * A hook payload the adapter cannot map: not a JSON object, an event the host does not
 * document, or fields of the wrong shape. `type` names the AHP event when the host event
 * is known, so a fail-closed subscription to it can still deny.
 *
 * @since 0.1.0
 * @category errors
 */
export class PayloadError extends Schema.TaggedError<PayloadError>("@effect-ahp/hosts/PayloadError")("PayloadError", {
  reason: Schema.Literal("not-an-object", "unknown-event", "invalid"),
  hostEvent: Common.optional(Schema.String),
  type: Common.optional(Schema.String),
  issues: Schema.Array(Schema.Struct({ path: Schema.String, message: Schema.String }))
}) {
  readonly [PayloadErrorTypeId]: PayloadErrorTypeId = PayloadErrorTypeId
  override get message(): string {
    switch (this.reason) {
      case "not-an-object":
        return "the hook payload is not a JSON object"
      case "unknown-event":
        return `unknown hook event ${JSON.stringify(this.hostEvent ?? null)}`
      case "invalid":
        return `invalid ${this.hostEvent ?? "hook"} payload: ${
          this.issues.map((i) => `${i.path || "/"}: ${i.message}`).join("; ")
        }`
    }
  }
}

/**
 * Whether a value is a `PayloadError`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isPayloadError = (u: unknown): u is PayloadError => hasProperty(u, PayloadErrorTypeId)

/**
 * How the payload is turned into an event.
 *
 * @since 0.1.0
 * @category models
 */
export interface MapOptions {
  /** The harness URI of the event (default: the host's `urn:effect-ahp:<host>`). */
  readonly source?: string | undefined
  /** The event's creation time (RFC 3339). */
  readonly time: string
  /** Whether to keep the host's payload in `native` (only when a subscription asked for it). */
  readonly includeNative: boolean
}

/**
 * A payload mapped to an AHP event.
 *
 * @since 0.1.0
 * @category models
 */
export interface Mapped {
  readonly _tag: "Event"
  readonly event: HostEvents.HostEvent
  readonly type: Event.EventType
  /** The event, envelope included. */
  readonly input: Json.JsonObject
  /** What the host enforces at this event; `undefined` when it can only be observed. */
  readonly capabilities: Capabilities.Capabilities | undefined
  readonly payload: Json.JsonObject
}

/**
 * A known host event with no AHP counterpart, answered with "no opinion".
 *
 * @since 0.1.0
 * @category models
 */
export interface PassThrough {
  readonly _tag: "PassThrough"
  readonly event: HostEvents.HostEvent
}

/**
 * The host-neutral content of a settled decision, as the renderers use it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Verdict {
  readonly permission: "deny" | "ask" | "allow" | "none"
  /** The deny reason (shown to the agent). */
  readonly reason: string | undefined
  /** Whether the denial was made by a failure policy rather than a backend. */
  readonly synthetic: boolean
  /** The whole effective tool input, when an accepted `modify(input)` changed it. */
  readonly input: Json.JsonObject | undefined
  /** The effective tool output as text, when an accepted `modify(output)` changed it. */
  readonly output: string | undefined
  /** Injected context text. */
  readonly context: string | undefined
  /** Messages to the user. */
  readonly messages: ReadonlyArray<string>
  readonly flow: "none" | "stop" | "continue"
  readonly stopReason: string | undefined
  /** Continuation instructions, in acceptance order. */
  readonly instructions: ReadonlyArray<string>
}

/**
 * The verdict that says nothing.
 *
 * @since 0.1.0
 * @category constructors
 */
export const emptyVerdict: Verdict = {
  permission: "none",
  reason: undefined,
  synthetic: false,
  input: undefined,
  output: undefined,
  context: undefined,
  messages: [],
  flow: "none",
  stopReason: undefined,
  instructions: []
}

/**
 * A denial made by the bridge itself (a fail-closed policy it could not evaluate).
 *
 * @since 0.1.0
 * @category constructors
 */
export const denyVerdict = (reason: string): Verdict => ({
  ...emptyVerdict,
  permission: "deny",
  reason,
  synthetic: true
})

/**
 * The host's answer: what to print on stdout and stderr, and the exit code.
 *
 * @since 0.1.0
 * @category models
 */
export interface Answer {
  /** Empty (no opinion) or one JSON object and a newline. */
  readonly stdout: string
  /** Notices for the user's log, one per line (may be empty). */
  readonly stderr: string
  readonly exitCode: 0
}

/**
 * The answer for an output object (`undefined`: the host's "no opinion" form).
 *
 * @since 0.1.0
 * @category constructors
 */
export const answer = (
  output: Json.JsonObject | undefined,
  empty: string,
  notices: ReadonlyArray<string> = []
): Answer => ({
  stdout: output === undefined ? empty : `${Json.stringify(output)}\n`,
  stderr: notices.map((n) => `ahp: ${n}\n`).join(""),
  exitCode: 0
})

/**
 * A host adapter.
 *
 * @since 0.1.0
 * @category models
 */
export interface Host {
  readonly name: HostEvents.HostName
  /** The host's name for people. */
  readonly title: string
  /** The default `source` of its events. */
  readonly source: string
  /** What the host enforces, per AHP event (the union over the host events mapped to it). */
  readonly grant: Grant.Grant
  /** The bridge's capability manifest for this host. */
  readonly manifest: Discovery.Manifest
  /** What the host enforces at one of its events. */
  readonly capabilities: (event: HostEvents.HostEvent) => Capabilities.Capabilities | undefined
  /** Maps a parsed hook payload. */
  readonly map: (payload: Json.JsonValue, options: MapOptions) => Either.Either<Mapped | PassThrough, PayloadError>
  /** The host's answer for a verdict at one of its events (with the payload, when there is one). */
  readonly render: (event: HostEvents.HostEvent, verdict: Verdict, payload?: Json.JsonObject) => Answer
  /** The host's "no opinion" answer, with an optional visible message. */
  readonly noOpinion: (message?: string) => Answer
}

/**
 * The text of the body text parts of a message list, one message per paragraph.
 *
 * @since 0.1.0
 * @category accessors
 */
export const textOf = (messages: Json.JsonValue | undefined): string => {
  if (!Array.isArray(messages)) return ""
  const paragraphs: Array<string> = []
  for (const message of messages) {
    if (!Json.isObject(message) || !Array.isArray(message.parts)) continue
    const texts = message.parts.flatMap((part) =>
      Json.isObject(part) && part.kind === "text" && typeof part.text === "string" ? [part.text] : []
    )
    if (texts.length > 0) paragraphs.push(texts.join(""))
  }
  return paragraphs.join("\n\n")
}

const modified = (decision: Settlement.Decision, target: HookEffect.ModifyTarget) =>
  decision.effects.some((a) => a.effect.type === "modify" && a.effect.target === target)

/**
 * The verdict of a settled decision over the effective event.
 *
 * @since 0.1.0
 * @category constructors
 */
export const verdict = (decision: Settlement.Decision, effective: Json.JsonObject): Verdict => {
  const tool = Json.isObject(effective.tool) ? effective.tool : undefined
  const context = decision.injections
    .map((injection) => textOf(Json.isObject(injection) ? injection.messages : undefined))
    .filter((text) => text !== "")
    .join("\n\n")
  return {
    permission: decision.permission,
    reason: decision.denial?.reason,
    synthetic: decision.denial?.synthetic === true,
    input: modified(decision, "input") && tool !== undefined && Json.isObject(tool.input) ? tool.input : undefined,
    output: modified(decision, "output") ? textOf(effective.items) : undefined,
    context: context === "" ? undefined : context,
    messages: decision.messages.filter((m) => m !== ""),
    flow: decision.flow,
    stopReason: decision.stopReason,
    instructions: decision.instructions
  }
}

/**
 * Capabilities for one host event: effects, and the blocks they need.
 *
 * @since 0.1.0
 * @category constructors
 */
export const capabilities = (
  effects: ReadonlyArray<HookEffect.Kind>,
  blocks: {
    readonly modify?: HookEffect.ModifyTarget
    readonly flow?: ReadonlyArray<Capabilities.FlowOperation>
    readonly maxContinuations?: number
  } = {}
): Capabilities.Capabilities => ({
  effects,
  ...(blocks.modify !== undefined ? { modify: { [blocks.modify]: { replace: true, merge: true } } } : {}),
  ...(blocks.flow !== undefined
    ? {
      flow: blocks.flow.includes("continue")
        ? { operations: blocks.flow, remainingContinuations: blocks.maxContinuations ?? 0, continuationCount: 0 }
        : { operations: blocks.flow }
    }
    : {}),
  ...(effects.includes("inject") ? { inject: { context: { append: true as const, deliverAt: ["now" as const] } } } : {})
})

const union = (a: Capabilities.Capabilities, b: Capabilities.Capabilities): Capabilities.Capabilities => {
  const effects = [...new Set([...a.effects, ...b.effects])] as Array<HookEffect.Kind>
  const operations = [...new Set([...(a.flow?.operations ?? []), ...(b.flow?.operations ?? [])])]
  const flow = a.flow !== undefined && b.flow !== undefined
    ? { ...a.flow, ...b.flow, operations }
    : a.flow ?? b.flow
  const modify = a.modify !== undefined || b.modify !== undefined ? { ...a.modify, ...b.modify } : undefined
  const inject = a.inject ?? b.inject
  return {
    effects,
    ...(modify !== undefined ? { modify: modify as Capabilities.Modify } : {}),
    ...(flow !== undefined ? { flow } : {}),
    ...(inject !== undefined ? { inject } : {})
  }
}

/**
 * The grant and the manifest of a host from what each of its events enforces: an AHP
 * event is offered for observation when some host event becomes it, and for interception
 * with the union of the capabilities of those host events.
 *
 * @since 0.1.0
 * @category constructors
 */
export const offer = (
  events: ReadonlyArray<readonly [HostEvents.HostEvent, Capabilities.Capabilities | undefined]>,
  maxContinuations: number
): { readonly grant: Grant.Grant; readonly manifest: Discovery.Manifest } => {
  const byType = new Map<Event.EventType, Capabilities.Capabilities | undefined>()
  for (const [event, caps] of events) {
    if (event.type === undefined) continue
    const known = byType.get(event.type)
    byType.set(event.type, caps === undefined ? known : known === undefined ? caps : union(known, caps))
  }
  const entries = [...byType]
  return {
    grant: {
      maxContinuations,
      events: Object.fromEntries(entries.map(([type, intercept]) => [type, { intercept, observe: true }]))
    },
    manifest: {
      events: entries.map(([event, caps]) =>
        caps === undefined
          ? { event, modes: ["observe"] }
          : { event, modes: ["intercept", "observe"], capabilities: caps }
      ),
      gaps: [],
      transports: ["stdio", "http"],
      authentication: ["bearer", "oauth"],
      toolPaths: ["native", "mcp"],
      contentCategories: ["text"],
      limits: { maxContinuations },
      managedPolicy: { scopes: ["user", "project"], disableable: true },
      correlationIdentityFields: ["id", "session.id", "turn.id", "call.id"]
    }
  }
}
