/**
 * Building blocks shared by the event modules: optional and forbidden members, closed
 * identities, cross-field rules and the common envelope.
 *
 * @internal
 */
import * as Arbitrary from "effect/Arbitrary"
import type * as FastCheck from "effect/FastCheck"
import * as Schema from "effect/Schema"
import {
  AbsoluteUri,
  closed,
  dropUndefined,
  Extensions,
  FieldGap,
  forbidden,
  Identity,
  NonEmpty,
  optional,
  Session,
  struct,
  synthesized,
  Timestamp
} from "../../Common.js"
import * as Content from "../../Content.js"
import { EventType } from "../../EventType.js"
import * as Json from "../../Json.js"

export {
  /** @internal */
  forbidden,
  /** @internal */
  optional,
  /** @internal */
  struct
}

/** @internal */
export interface Problem {
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * Adds cross-field rules (the official if/then/else conditions) to a struct. `rules` lists
 * the problems of a value, each pointing at the offending member; `repair` turns any
 * random value into one that satisfies the rules, so property tests need no rejection.
 * Random values drop `forbidden` members first (a refinement's arbitrary is built from
 * the struct's members, not from the struct's own arbitrary).
 *
 * @internal
 */
export const crossField = <S extends Schema.Schema.AnyNoContext>(
  self: S,
  rules: (value: Schema.Schema.Type<S>) => ReadonlyArray<Problem>,
  repair: (value: Schema.Schema.Type<S>) => Schema.Schema.Type<S>
): CrossField<S> =>
  Schema.filter<S>((value) => rules(value))(self).annotations({
    arbitrary: (from: Arbitrary.LazyArbitrary<Schema.Schema.Type<S>>) => (fc: typeof FastCheck) =>
      from(fc).map((value) => repair(dropUndefined(value)))
  }) as CrossField<S>

/**
 * What `crossField` returns: a refinement of `S`, named so that emitted declarations refer
 * to `S` instead of spelling out its decoded type (`annotations` keeps the name).
 *
 * @internal
 */
export interface CrossField<S extends Schema.Schema.AnyNoContext> extends Schema.refine<Schema.Schema.Type<S>, S> {
  annotations(annotations: Schema.Annotations.Schema<Schema.Schema.Type<S>>): CrossField<S>
}

/** @internal */
export const NonNegativeNumber = Schema.Number.pipe(
  Schema.finite({ message: () => "must be a finite number" }),
  Schema.greaterThanOrEqualTo(0, { message: () => "must be a non-negative number" })
).annotations({ arbitrary: () => (fc) => fc.double({ min: 0, max: 1e9, noNaN: true }).map((n) => n + 0) })

/** @internal */
export const Currency = Schema.String.pipe(
  Schema.pattern(/^[A-Z]{3}$/, { message: () => "must be a three-letter uppercase currency code such as USD" })
)

/**
 * A list of distinct non-empty strings.
 *
 * @internal
 */
export const uniqueStrings = (minItems: number) =>
  Schema.Array(NonEmpty).pipe(
    Schema.filter((items) => items.length >= minItems && new Set(items).size === items.length, {
      message: (issue) =>
        Array.isArray(issue.actual) && issue.actual.length < minItems
          ? `must contain at least ${minItems} item(s)`
          : "must not contain duplicates",
      arbitrary: () => (fc) => fc.uniqueArray(fc.string({ minLength: 1 }), { minLength: minItems, maxLength: 4 })
    })
  )

/**
 * A closed `{ id, synthesized? }` identity (call, execution-event turn, item references).
 *
 * @internal
 */
export const ClosedIdentity = Identity.annotations({ ...closed })

/**
 * Extensions whose keys must all be reverse-DNS names (an unknown key is reported at its
 * own path).
 *
 * @internal
 */
export const StrictExtensions = Extensions

/**
 * The members every catalogue event may carry. Events narrow `type` to their own name and
 * override `turn`, `items` and `parentEventId` where their official schema differs.
 *
 * @internal
 */
export const envelope = {
  /** The event's id: unique among the events of its `source`, the same across retries. */
  id: NonEmpty,
  /** The stable URI of the harness installation that made the event (never a secret). */
  source: AbsoluteUri,
  /** The event type, from the catalogue. */
  type: EventType,
  /** When the harness made the event (RFC 3339). */
  time: Timestamp,
  /** The session the event belongs to (required by session events; never made up). */
  session: optional(Session),
  /** The id of the event this one follows from, in the same `source`, when it is known. */
  parentEventId: optional(NonEmpty),
  /** The turn the event belongs to. */
  turn: optional(Identity),
  /** Content the model sees, as canonical messages or parts. */
  items: optional(Schema.Array(Content.Part)),
  /** Members whose values are unavailable, each with its path and the reason. */
  gaps: optional(Schema.Array(FieldGap)),
  /** The provider's own payload, for fidelity; absent unless enabled. */
  native: optional(Json.Value),
  /** Extension members, keyed by reverse-DNS names (`org.w3c.trace_context`, …). */
  extensions: optional(StrictExtensions),
  synthesized
}
