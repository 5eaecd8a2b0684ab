/**
 * Small shared pieces of the AHP wire: the protocol version literal, identifiers,
 * timestamps, URIs, extensions, gaps and the session object.
 *
 * @since 0.1.0
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Schema from "effect/Schema"
import * as Json from "./Json.js"

/**
 * The protocol snapshot this package implements.
 *
 * @since 0.1.0
 * @category constants
 */
export const protocolVersion = "draft" as const

/**
 * `protocolVersion`: exactly `"draft"` (exact string matching, no ordering).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ProtocolVersion = Schema.Literal(protocolVersion).annotations({ identifier: "ProtocolVersion" })

/**
 * A non-empty string.
 *
 * @since 0.1.0
 * @category schemas
 */
export const NonEmpty = Schema.String.pipe(Schema.minLength(1, { message: () => "must be a non-empty string" }))

/**
 * An integer too large for a JavaScript number, kept exactly as a `LosslessNumber`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const LargeInteger = Schema.declare(
  (u: unknown): u is Json.LosslessNumber => u instanceof Json.LosslessNumber && u.isInteger,
  {
    identifier: "LargeInteger",
    description: "an integer",
    arbitrary: () => (fc) =>
      fc.tuple(fc.bigInt({ min: 2n ** 60n, max: 2n ** 64n }), fc.boolean()).map(([n, negative]) =>
        new Json.LosslessNumber(`${negative ? "-" : ""}${n | 1n}`)
      )
  }
)

/**
 * An integer of any size, as JSON Schema's `integer`: a JavaScript number when it holds the
 * value exactly, else a `LosslessNumber` (never a rounded number).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Int = Schema.Union(Schema.Number.pipe(Schema.int()), LargeInteger).annotations({
  identifier: "Integer",
  message: () => "must be an integer"
})

/**
 * @since 0.1.0
 * @category models
 */
export type Int = typeof Int.Type

const sign = (n: Int): number => typeof n === "number" ? Math.sign(n) : n.source.startsWith("-") ? -1 : 1

/**
 * A non-negative integer of any size.
 *
 * @since 0.1.0
 * @category schemas
 */
export const NonNegativeInt = Int.pipe(
  Schema.filter((n) => sign(n) >= 0 || "must be a non-negative integer")
)

/**
 * A positive integer of any size.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PositiveInt = Int.pipe(
  Schema.filter((n) => (typeof n === "number" ? n >= 1 : sign(n) > 0) || "must be a positive integer")
)

const reverseDnsPattern = /^(?:[A-Za-z][A-Za-z0-9_-]*\.)+[A-Za-z][A-Za-z0-9_-]*$/

/**
 * Whether a string is a reverse-DNS name such as `com.example.policy`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isReverseDns = (s: string): boolean => reverseDnsPattern.test(s)

/**
 * A reverse-DNS name (`com.example.policy`): backend ids, extension keys, deny codes.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ReverseDns = Schema.String.pipe(
  Schema.pattern(reverseDnsPattern, { message: () => "must be a reverse-DNS name such as com.example.policy" })
)

/**
 * A member name of an open map (counters, content selections, elicitation details): any
 * string but `__proto__`, which Schema's records cannot keep (see `Decoder.lostProtoMembers`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const MemberName = Schema.String.pipe(
  Schema.filter((name) => name !== "__proto__", { message: () => "the member name \"__proto__\" is not accepted here" })
)

/**
 * Extension members keyed by reverse-DNS names; values are any JSON. A key that is not a
 * reverse-DNS name is an error at its own path.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Extensions = Schema.Record({ key: ReverseDns, value: Json.Value }).annotations({
  identifier: "Extensions",
  parseOptions: { onExcessProperty: "error" }
})

const daysInMonth = (year: number, month: number): number =>
  month === 2
    ? (year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28)
    : month === 4 || month === 6 || month === 9 || month === 11
    ? 30
    : 31

/** The number written by the `count` ASCII digits of `s` from `at`, or -1 if one is not a digit. */
const digitsAt = (s: string, at: number, count: number): number => {
  let value = 0
  for (let i = at; i < at + count; i++) {
    const digit = s.charCodeAt(i) - 48
    if (!(digit >= 0 && digit <= 9)) return -1
    value = value * 10 + digit
  }
  return value
}

const dash = 0x2d // "-"
const colon = 0x3a // ":"
const dot = 0x2e // "."
const plus = 0x2b // "+"
const lowerT = 0x74 // "t" (and "T", with 0x20 set)
const lowerZ = 0x7a // "z" (and "Z", with 0x20 set)

/**
 * Whether a string is an RFC 3339 date-time with a valid calendar date and time:
 * `YYYY-MM-DD`, `T` or `t`, `hh:mm:ss`, an optional fraction (`.` and digits), and `Z`,
 * `z` or an offset `±hh:mm`. Read character by character (every event's `time` is checked:
 * a regular expression's match allocated an array and nine strings).
 *
 * @since 0.1.0
 * @category refinements
 */
export const isTimestamp = (s: string): boolean => {
  if (s.length < 20) return false
  if (
    s.charCodeAt(4) !== dash || s.charCodeAt(7) !== dash || (s.charCodeAt(10) | 0x20) !== lowerT ||
    s.charCodeAt(13) !== colon || s.charCodeAt(16) !== colon
  ) return false
  const year = digitsAt(s, 0, 4)
  const month = digitsAt(s, 5, 2)
  const day = digitsAt(s, 8, 2)
  const hour = digitsAt(s, 11, 2)
  const minute = digitsAt(s, 14, 2)
  const second = digitsAt(s, 17, 2)
  if (year < 0 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return false
  if (hour < 0 || hour > 23 || minute < 0 || minute > 59 || second < 0 || second > 60) return false
  let i = 19
  if (s.charCodeAt(i) === dot) {
    const first = ++i
    while (i < s.length && digitsAt(s, i, 1) >= 0) i++
    if (i === first) return false
  }
  const zone = s.charCodeAt(i)
  if ((zone | 0x20) === lowerZ) return i + 1 === s.length
  if ((zone !== plus && zone !== dash) || i + 6 !== s.length || s.charCodeAt(i + 3) !== colon) return false
  const offsetHour = digitsAt(s, i + 1, 2)
  const offsetMinute = digitsAt(s, i + 4, 2)
  return offsetHour >= 0 && offsetHour <= 23 && offsetMinute >= 0 && offsetMinute <= 59
}

/**
 * An RFC 3339 timestamp such as `2026-08-24T08:51:14Z`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Timestamp = Schema.String.pipe(
  Schema.filter(isTimestamp, { message: () => "must be an RFC 3339 date-time such as 2026-08-24T08:51:14Z" })
).annotations({
  arbitrary: () => (fc) =>
    fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4102444800000) }).map((d) => d.toISOString())
})

const uriPattern = /^[A-Za-z][A-Za-z0-9+.-]*:(?:[A-Za-z0-9\-._~!$&'()*+,;=:@/?#[\]]|%[0-9A-Fa-f]{2})*$/

/**
 * Whether a string is an RFC 3986 absolute URI (scheme, no spaces, valid percent-escapes).
 *
 * @since 0.1.0
 * @category refinements
 */
export const isAbsoluteUri = (s: string): boolean => uriPattern.test(s)

/**
 * An RFC 3986 absolute URI.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AbsoluteUri = Schema.String.pipe(
  Schema.filter(isAbsoluteUri, { message: () => "must be an absolute URI (RFC 3986)" })
).annotations({ arbitrary: () => (fc) => fc.webUrl() })

/**
 * A lowercase hex SHA-256 digest. Its arbitrary draws 32 bytes rather than matching the
 * pattern: an event's arbitrary holds the digest hundreds of times, and fast-check's
 * generator for a pattern is slow to build.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Sha256 = Schema.String.pipe(
  Schema.pattern(/^[a-f0-9]{64}$/, { message: () => "must be 64 lowercase hexadecimal characters" })
).annotations({
  arbitrary: () => (fc) =>
    fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) =>
      Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("")
    )
})

/**
 * An optional member that, when present, is never `undefined`
 * (`Schema.optionalWith(schema, { exact: true })`, the official schemas' optional
 * properties). Typed as a plain `PropertySignature`, which keeps the types of the structs
 * that use it cheap to compute for the compiler, here and in every consumer.
 *
 * @since 0.1.0
 * @category fields
 */
export const optional = <S extends Schema.Schema.All>(
  schema: S
): Schema.PropertySignature<
  "?:",
  Schema.Schema.Type<S>,
  never,
  "?:",
  Schema.Schema.Encoded<S>,
  false,
  Schema.Schema.Context<S>
> => Schema.optionalWith(schema, { exact: true })

/**
 * The optional `synthesized` marker of adapter-made identities.
 *
 * @since 0.1.0
 * @category fields
 */
export const synthesized = optional(Schema.Boolean)

/**
 * An explicit gap in a field: what is missing and why.
 *
 * @since 0.1.0
 * @category schemas
 */
export const FieldGap = Schema.Struct({ path: NonEmpty, reason: NonEmpty }).annotations({ identifier: "FieldGap" })

/**
 * A simple identity object `{ id, synthesized? }` (turn, call, item references).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Identity = Schema.Struct({ id: NonEmpty, synthesized })

/**
 * The session object carried by events.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Session = Schema.Struct({
  id: NonEmpty,
  cwd: optional(Schema.String),
  workspaceRoots: optional(Schema.Array(Schema.String)),
  model: optional(Schema.String),
  agent: optional(Schema.Struct({ id: NonEmpty, type: optional(Schema.String) })),
  synthesized
}).annotations({ identifier: "Session" })

/**
 * @since 0.1.0
 * @category models
 */
export type Session = typeof Session.Type

const absent = Schema.Never.annotations({ arbitrary: () => (fc) => fc.constant(undefined as never) })

/**
 * A member that must not be present (the official schemas' `not: { required: [...] }`).
 * Use it inside `struct`, whose random values never carry such members.
 *
 * @since 0.1.0
 * @category fields
 */
export const forbidden = (message: string) => optional(absent.annotations({ message: () => message }))

/** Drops members whose value is `undefined` (random values of forbidden members). @internal */
export const dropUndefined = <A>(value: A): A => {
  const out: Record<string, unknown> = {}
  for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
    if (v !== undefined) {
      Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true })
    }
  }
  return out as A
}

/**
 * `Schema.Struct` for objects that may declare `forbidden` members: random values (for
 * property tests) never carry them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const struct = <F extends Schema.Struct.Fields>(fields: F) => {
  const plain = Schema.Struct(fields)
  return plain.annotations({ arbitrary: () => (fc) => Arbitrary.makeLazy(plain)(fc).map(dropUndefined) })
}

/**
 * Schema annotations that make an object closed: an unknown member is an error.
 *
 * @since 0.1.0
 * @category annotations
 */
export const closed = { parseOptions: { onExcessProperty: "error" } } as const
