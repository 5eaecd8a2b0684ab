/**
 * JSON values as they travel on the AHP wire.
 *
 * Numbers are exact. A number literal is read as a JavaScript number when that number stands
 * for the same value: `String(Number(literal))` is the same decimal number, however it is
 * written (`0.1`, `1e-7`, `3.14`, `1.50`, `1E2`, every integer up to 2^53). Any other literal
 * is kept as a `LosslessNumber` holding its exact source text, which `stringify` and
 * `encode` write back unchanged: one that overflows to ±Infinity (`1e400`), underflows
 * (`1e-400`, not `0`), carries more digits than a double holds (a 34-digit fraction, not
 * `0.1`; an integer beyond 2^53), or whose double writes differently (`2^70` written out in
 * full). Schemas that need a JavaScript number (timeouts, sizes, counters) therefore reject
 * such a value with a clear message instead of accepting a rounded one.
 *
 * Nesting is bounded by `maxDepth` (512 levels) everywhere: in the text read, in values
 * checked, in the text written. Reading and writing take time linear in the size of the text
 * and never recurse.
 *
 * @since 0.1.0
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import type * as FastCheck from "effect/FastCheck"
import { hasProperty } from "effect/Predicate"
import * as Schema from "effect/Schema"
import * as internal from "./internal/jsonParser.js"
import * as walk from "./internal/jsonWalk.js"
import * as writer from "./internal/jsonWriter.js"
import { lazy } from "./internal/lazyArbitrary.js"

/**
 * The deepest nesting of arrays and objects read or written: 512 levels (`[]` is one level,
 * `[[]]` two). `parse` fails beyond it before building anything, `encode` refuses to write
 * beyond it, and `isJsonValue` (so the `Value` and `AnyObject` schemas) rejects deeper
 * values, so no walk of a JSON value anywhere can exhaust the call stack.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxDepth = 512

/**
 * A JSON number literal kept verbatim because a JavaScript number cannot stand for it
 * exactly (see the module comment).
 *
 * @since 0.1.0
 * @category models
 */
export class LosslessNumber {
  constructor(
    /** The literal exactly as it appeared in the JSON text. */
    readonly source: string
  ) {}
  /** The nearest JavaScript number (may be rounded, zero or infinite). */
  get approximate(): number {
    return Number(this.source)
  }
  /** Whether the value is an integer (`1e400` and `5.0` are; `0.5` is not). */
  get isInteger(): boolean {
    const exact = internal.canonical(this.source)
    return exact !== undefined && (exact === "0" || !exact.slice(exact.indexOf("e") + 1).startsWith("-"))
  }
  toString(): string {
    return `${this.source} (beyond exact number precision)`
  }
  /** The literal as a string, for serializers other than `stringify` and `encode` (such as loggers). */
  toJSON(): string {
    return this.source
  }
}

const isLossless = (u: object): u is LosslessNumber => u instanceof LosslessNumber

/**
 * Any JSON value. Numbers that JavaScript cannot hold exactly are `LosslessNumber`s.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonValue =
  | null
  | boolean
  | number
  | string
  | LosslessNumber
  | ReadonlyArray<JsonValue>
  | { readonly [key: string]: JsonValue }

/**
 * A JSON object.
 *
 * @since 0.1.0
 * @category models
 */
export type JsonObject = { readonly [key: string]: JsonValue }

/**
 * The brand of a `JsonParseError`.
 *
 * @since 0.1.0
 * @category type ids
 */
export const JsonParseErrorTypeId: unique symbol = Symbol.for("@effect-ahp/protocol/JsonParseError")

/**
 * @since 0.1.0
 * @category type ids
 */
export type JsonParseErrorTypeId = typeof JsonParseErrorTypeId

/**
 * A JSON text that could not be parsed: not UTF-8 (`utf8`), not JSON (`syntax`), or nested
 * deeper than `maxDepth` (`depth`).
 *
 * @since 0.1.0
 * @category errors
 */
export class JsonParseError extends Data.TaggedError("JsonParseError")<{
  readonly reason: "utf8" | "syntax" | "depth"
  readonly message: string
  /** Zero-based character offset of the problem, when known. */
  readonly offset?: number | undefined
}> {
  readonly [JsonParseErrorTypeId]: JsonParseErrorTypeId = JsonParseErrorTypeId
}

/**
 * Whether a value is a `JsonParseError`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isJsonParseError = (u: unknown): u is JsonParseError => hasProperty(u, JsonParseErrorTypeId)

/**
 * The brand of a `JsonEncodeError`.
 *
 * @since 0.1.0
 * @category type ids
 */
export const JsonEncodeErrorTypeId: unique symbol = Symbol.for("@effect-ahp/protocol/JsonEncodeError")

/**
 * @since 0.1.0
 * @category type ids
 */
export type JsonEncodeErrorTypeId = typeof JsonEncodeErrorTypeId

/**
 * A value that cannot be written as JSON text: nested deeper than `maxDepth` or cyclic
 * (`depth`), or holding something that is not JSON (`value`: a bigint, a number that is not
 * finite, a throwing `toJSON`).
 *
 * @since 0.1.0
 * @category errors
 */
export class JsonEncodeError extends Data.TaggedError("JsonEncodeError")<{
  readonly reason: "depth" | "value"
  readonly message: string
}> {
  readonly [JsonEncodeErrorTypeId]: JsonEncodeErrorTypeId = JsonEncodeErrorTypeId
}

/**
 * Whether a value is a `JsonEncodeError`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isJsonEncodeError = (u: unknown): u is JsonEncodeError => hasProperty(u, JsonEncodeErrorTypeId)

/**
 * Whether a value is a plain JSON object (not an array, not null).
 *
 * @since 0.1.0
 * @category refinements
 */
export const isObject = (u: unknown): u is JsonObject =>
  typeof u === "object" && u !== null && !Array.isArray(u) && !(u instanceof LosslessNumber)

/**
 * Whether a value is made only of JSON values (finite numbers, strings, booleans, null,
 * arrays, plain objects, `LosslessNumber`s) nested at most `maxDepth` levels. Iterative and
 * bounded, so neither a deep nor a cyclic value can overflow the stack or loop forever.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isJsonValue = (u: unknown): u is JsonValue => walk.every(u, maxDepth, isLossless, isJsonNode)

/** Whether one value may be part of a JSON value (its members are checked on their own). */
const isJsonNode = (v: unknown): boolean => {
  switch (typeof v) {
    case "string":
    case "boolean":
      return true
    case "number":
      return Number.isFinite(v)
    case "object": {
      if (v === null || Array.isArray(v) || v instanceof LosslessNumber) return true
      const proto = Object.getPrototypeOf(v)
      return proto === Object.prototype || proto === null
    }
    default:
      return false
  }
}

/**
 * Whether arrays and objects nest in a value more than `limit` levels deep (`[]` is one
 * level). Stops at the first container beyond the limit, so it also ends on cyclic values
 * (which are infinitely deep). `LosslessNumber`s are not containers.
 *
 * @since 0.1.0
 * @category refinements
 */
export const exceedsDepth = (value: unknown, limit: number): boolean => !walk.every(value, limit, isLossless, always)

const always = () => true

/**
 * Literals no double stands for: each reads back as a `LosslessNumber`. Not ones that
 * overflow, so that `JSON.parse` (in tests comparing with other JSON tools) still reads a
 * finite number.
 */
const losslessLiterals = (fc: typeof import("effect/FastCheck")) =>
  fc.oneof(
    fc.bigInt({ min: 2n ** 53n + 1n, max: 2n ** 80n }).map((n) => `${n | 1n}`),
    fc.integer({ min: 325, max: 9999 }).map((e) => `-1e-${e}`),
    fc.integer({ min: 20, max: 40 }).map((digits) => `0.${"1".repeat(digits)}`)
  )

const jsonArbitrary = (fc: typeof import("effect/FastCheck")) =>
  fc.tuple(fc.jsonValue({ maxDepth: 3, noUnicodeString: false }), fc.array(losslessLiterals(fc), { maxLength: 3 })).map(
    (
      [v, literals]
    ) => normalizeNumbers(v, literals.map((source) => new LosslessNumber(source)), { next: 0 }) as JsonValue
  )

/**
 * Makes a generated value survive JSON text unchanged (no `-0`, no integers beyond exact
 * precision) and puts the given `LosslessNumber`s in place of its first numbers.
 */
const normalizeNumbers = (v: unknown, lossless: ReadonlyArray<LosslessNumber>, used: { next: number }): unknown => {
  if (typeof v === "number") {
    if (used.next < lossless.length) return lossless[used.next++]
    return (Number.isInteger(v) && !Number.isSafeInteger(v) ? v % Number.MAX_SAFE_INTEGER : v) + 0
  }
  if (Array.isArray(v)) return v.map((x) => normalizeNumbers(x, lossless, used))
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) {
      Object.defineProperty(out, k, {
        value: normalizeNumbers(x, lossless, used),
        enumerable: true,
        writable: true,
        configurable: true
      })
    }
    return out
  }
  return v
}

/**
 * Schema for any JSON value.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Value: Schema.Schema<JsonValue> = Schema.declare(isJsonValue, {
  identifier: "JsonValue",
  description: "a JSON value",
  arbitrary: () => jsonArbitrary
})

/**
 * Schema for a JSON object whose members are any JSON values (open by design: tool input,
 * native payloads, provider params).
 *
 * @since 0.1.0
 * @category schemas
 */
export const AnyObject: Schema.Schema<JsonObject> = Schema.declare(
  (u: unknown): u is JsonObject => isObject(u) && isJsonValue(u),
  {
    identifier: "JsonObject",
    description: "a JSON object",
    arbitrary: () => (fc) => fc.dictionary(fc.string(), jsonArbitrary(fc), { maxKeys: 4 }) as any
  }
)

/**
 * Parses a JSON text: exact numbers (see the module comment), nesting at most `maxDepth`
 * levels, in time linear in the text. One pass over the text checks the nesting and the
 * number literals before any value is built; a text with only plain numbers is then read by
 * `JSON.parse`, any other by an iterative parser that keeps literals verbatim. Own
 * `__proto__` members stay own members. Errors name a line and column and never quote the text.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string): Either.Either<JsonValue, JsonParseError> => {
  switch (internal.scan(text, maxDepth)) {
    case "plain":
      try {
        return Either.right(JSON.parse(text))
      } catch {
        return Either.left(new JsonParseError(internal.describe(text, maxDepth)))
      }
    case "lossless":
      return Either.mapBoth(internal.parseLossless(text, makeLossless, maxDepth), {
        onLeft: (problem) => new JsonParseError(problem),
        onRight: (value) => value as JsonValue
      })
    case "deep":
      return Either.left(new JsonParseError(internal.describe(text, maxDepth)))
  }
}

const makeLossless = (source: string) => new LosslessNumber(source)

const utf8 = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true })

/**
 * Decodes UTF-8 bytes (rejecting invalid sequences) and parses them as JSON.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseBytes = (bytes: Uint8Array): Either.Either<JsonValue, JsonParseError> => {
  let text: string
  try {
    text = utf8.decode(bytes)
  } catch {
    return Either.left(new JsonParseError({ reason: "utf8", message: "invalid UTF-8" }))
  }
  return parse(text)
}

/**
 * Writes a value as JSON text: compact (one line), or indented by `space` spaces. What
 * `JSON.stringify` writes, except that `LosslessNumber`s are written verbatim and that a
 * value nested deeper than `maxDepth` (or cyclic), a bigint or a number that is not finite is
 * a `JsonEncodeError` instead of an exception, a stack overflow or `null`. Iterative, linear
 * in the text written. For values that may come from outside (a host, a backend), and for
 * every message put on the wire.
 *
 * @since 0.1.0
 * @category encoding
 */
export const encode = (value: unknown, space?: number): Either.Either<string, JsonEncodeError> =>
  Either.mapLeft(
    writer.write(value, space === undefined || space <= 0 ? "" : " ".repeat(Math.min(10, space)), maxDepth, isLossless),
    (problem) => new JsonEncodeError(problem)
  )

/**
 * `encode` for values known to be JSON within `maxDepth` — every value `parse` returns or the
 * schemas here accept. Anything else is a defect: the `JsonEncodeError` is thrown, as
 * `JSON.stringify` throws on a cyclic value.
 *
 * @since 0.1.0
 * @category encoding
 */
export const stringify = (value: unknown, space?: number): string =>
  Either.getOrThrowWith(encode(value, space), (error) => error)

/**
 * The JavaScript number nearest to a JSON number (a `LosslessNumber` may round or be
 * infinite): for comparisons with limits, never for forwarding.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toNumber = (n: number | LosslessNumber): number => typeof n === "number" ? n : n.approximate

/**
 * Whether two `LosslessNumber`s stand for the same number, however written (`1e400` and
 * `10e399`).
 *
 * @since 0.1.0
 * @category equality
 */
export const sameNumber = (a: LosslessNumber, b: LosslessNumber): boolean =>
  a.source === b.source || internal.canonical(a.source) === internal.canonical(b.source)

/**
 * Structural equality of two JSON values; object key order is irrelevant, and numbers are
 * compared by value. Iterative; two distinct values nested deeper than `maxDepth` (or
 * cyclic) are never equal.
 *
 * @since 0.1.0
 * @category equality
 */
export const equals = (a: unknown, b: unknown): boolean => {
  // Equal references and two scalars (a request id, say) are answered without a stack.
  if (a === b) return true
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  const lefts: Array<unknown> = [a]
  const rights: Array<unknown> = [b]
  const depths: Array<number> = [0]
  while (lefts.length > 0) {
    const x = lefts.pop()
    const y = rights.pop()
    const depth = depths.pop()!
    if (x === y) continue
    if (x instanceof LosslessNumber || y instanceof LosslessNumber) {
      if (x instanceof LosslessNumber && y instanceof LosslessNumber && sameNumber(x, y)) continue
      return false
    }
    if (typeof x !== "object" || typeof y !== "object" || x === null || y === null || depth >= maxDepth) return false
    if (Array.isArray(x)) {
      if (!Array.isArray(y) || x.length !== y.length) return false
      for (let i = 0; i < x.length; i++) {
        lefts.push(x[i])
        rights.push(y[i])
        depths.push(depth + 1)
      }
      continue
    }
    if (Array.isArray(y)) return false
    const keys = Object.keys(x)
    if (keys.length !== Object.keys(y).length) return false
    for (const key of keys) {
      if (!Object.prototype.hasOwnProperty.call(y, key)) return false
      lefts.push((x as Record<string, unknown>)[key])
      rights.push((y as Record<string, unknown>)[key])
      depths.push(depth + 1)
    }
  }
  return true
}

/**
 * Arbitrary for JSON values, for property tests of open fields.
 *
 * @since 0.1.0
 * @category testing
 */
export const arbitrary: FastCheck.Arbitrary<JsonValue> = lazy(() => Arbitrary.make(Value))

/**
 * A deep copy of a value as read back from its JSON text (`encode`, then `parse`): exact
 * numbers, nothing shared, and a `JsonEncodeError` or `JsonParseError` instead of an
 * exception for a value that is not JSON within `maxDepth`. For values that may hold
 * anything, such as an in-process backend's answers. A value made only of plain JSON —
 * strings, booleans, null, finite numbers other than `-0`, arrays and plain objects, within
 * `maxDepth` — reads back as itself, so it is copied structurally (`clone`), without the
 * text; anything else (a `LosslessNumber`, an `undefined` member, a `toJSON`, a getter that
 * throws) goes through the text.
 *
 * @since 0.1.0
 * @category encoding
 */
export const copy = (value: unknown): Either.Either<JsonValue, JsonEncodeError | JsonParseError> => {
  try {
    if (walk.every(value, maxDepth, never, isPlainNode)) return Either.right(clone(value as JsonValue))
  } catch {
    // A getter threw: `encode` reports it.
  }
  return Either.flatMap(encode(value), parse)
}

const never = () => false

/** Whether one value reads back from its JSON text as itself (its members are checked on their own). */
const isPlainNode = (v: unknown): boolean => isJsonNode(v) && !(v instanceof LosslessNumber) && !Object.is(v, -0)

/**
 * A deep copy of a JSON value that shares no array or object with it (`LosslessNumber`s,
 * being immutable, are shared). Equal to the value read back from its JSON text, without
 * the text: members whose value is `undefined` are left out, as `JSON.stringify` leaves
 * them out, and own `__proto__` members stay own members. Iterative. For values known to be
 * JSON; use `copy` for values that may hold anything else.
 *
 * @since 0.1.0
 * @category encoding
 */
export const clone = <A extends JsonValue>(value: A): A => {
  if (!isContainer(value)) return value
  const root = emptyLike(value)
  const sources: Array<object> = [value]
  const targets: Array<any> = [root]
  while (sources.length > 0) {
    const source = sources.pop()!
    const target = targets.pop()!
    if (Array.isArray(source)) {
      for (let i = 0; i < source.length; i++) {
        const member = source[i]
        if (isContainer(member)) {
          const copied = emptyLike(member)
          target.push(copied)
          sources.push(member)
          targets.push(copied)
        } else {
          target.push(member)
        }
      }
      continue
    }
    for (const key of Object.keys(source)) {
      const member = (source as Record<string, unknown>)[key]
      if (member === undefined) continue
      const copied = isContainer(member) ? emptyLike(member) : member
      if (key === "__proto__") {
        Object.defineProperty(target, key, { value: copied, enumerable: true, writable: true, configurable: true })
      } else {
        target[key] = copied
      }
      if (copied !== member) {
        sources.push(member as object)
        targets.push(copied)
      }
    }
  }
  return root as A
}

const isContainer = (u: unknown): u is object => typeof u === "object" && u !== null && !(u instanceof LosslessNumber)

const emptyLike = (u: object): Array<unknown> | Record<string, unknown> => Array.isArray(u) ? [] : {}
