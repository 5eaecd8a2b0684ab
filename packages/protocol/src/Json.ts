/**
 * JSON values as they travel on the AHP wire.
 *
 * `parse` never loses precision silently: an integer literal that a JavaScript number cannot
 * hold exactly (beyond 2^53 and not a representable value), or a number that would overflow
 * to ±Infinity, is kept as a `LosslessNumber` holding its exact source text, and `stringify` writes that text back unchanged. Schemas that need a JavaScript
 * number (timeouts, sizes, counters) therefore reject such a value with a clear message
 * instead of accepting a rounded one.
 *
 * @since 0.1.0
 */
import * as Arbitrary from "effect/Arbitrary"
import * as Data from "effect/Data"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as internal from "./internal/jsonParser.js"

/** How many `LosslessNumber`s were written so far: `stringify` scans its text only when one was. */
let losslessWritten = 0

/**
 * A JSON number literal kept verbatim because a JavaScript number cannot hold it exactly.
 *
 * @since 0.1.0
 * @category models
 */
export class LosslessNumber {
  constructor(
    /** The literal exactly as it appeared in the JSON text. */
    readonly source: string
  ) {}
  /** The nearest JavaScript number (may be rounded or infinite). */
  get approximate(): number {
    return Number(this.source)
  }
  /** Whether the literal is an integer (no fraction or exponent). */
  get isInteger(): boolean {
    return /^-?\d+$/.test(this.source)
  }
  toString(): string {
    return `${this.source} (beyond exact number precision)`
  }
  toJSON(): string {
    losslessWritten++
    return `${marker}${this.source}`
  }
}

const nonce = Math.random().toString(36).slice(2)
const marker = `\u0000ahp-lossless-${nonce}:`
const markerPattern = new RegExp(`"\\\\u0000ahp-lossless-${nonce}:([^"]+)"`, "g")

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
 * A JSON text that could not be parsed.
 *
 * @since 0.1.0
 * @category errors
 */
export class JsonParseError extends Data.TaggedError("JsonParseError")<{
  readonly message: string
  /** Zero-based character offset of the problem, when known. */
  readonly offset?: number | undefined
}> {}

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
 * arrays, plain objects, `LosslessNumber`s). Iterative, so deep values cannot overflow the stack.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isJsonValue = (u: unknown): u is JsonValue => {
  const stack: Array<unknown> = [u]
  while (stack.length > 0) {
    const v = stack.pop()
    switch (typeof v) {
      case "string":
      case "boolean":
        continue
      case "number":
        if (!Number.isFinite(v)) return false
        continue
      case "object": {
        if (v === null || v instanceof LosslessNumber) continue
        if (Array.isArray(v)) {
          for (let i = 0; i < v.length; i++) stack.push(v[i])
          continue
        }
        const proto = Object.getPrototypeOf(v)
        if (proto !== Object.prototype && proto !== null) return false
        for (const key in v) stack.push((v as Record<string, unknown>)[key])
        continue
      }
      default:
        return false
    }
  }
  return true
}

const jsonArbitrary = (fc: typeof import("effect/FastCheck")) =>
  fc.jsonValue({ maxDepth: 3, noUnicodeString: false }).map((v) => normalizeNumbers(v) as JsonValue)

/** Makes a generated value survive JSON text unchanged: no `-0`, no integers beyond exact precision. */
const normalizeNumbers = (v: unknown): unknown => {
  if (typeof v === "number") return (Number.isInteger(v) && !Number.isSafeInteger(v) ? v % Number.MAX_SAFE_INTEGER : v) + 0
  if (Array.isArray(v)) return v.map(normalizeNumbers)
  if (typeof v === "object" && v !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, x] of Object.entries(v)) {
      Object.defineProperty(out, k, { value: normalizeNumbers(x), enumerable: true, writable: true, configurable: true })
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

const hasSuspiciousNumber = /\d{16,}|[eE][+-]?\d{3,}/

/**
 * Whether a `JSON.parse` result holds a number that may stand for a literal JavaScript
 * cannot hold exactly: one beyond the safe integer range, or an infinite one. Every literal
 * the lossless parser keeps verbatim parses to such a number, so when there is none the
 * `JSON.parse` result is already exact (the text pre-scan alone also matches digits inside
 * strings, such as `"value123"`). Iterative, like `isJsonValue`.
 */
const hasUnsafeNumber = (value: unknown): boolean => {
  const stack: Array<unknown> = [value]
  while (stack.length > 0) {
    const v = stack.pop()
    if (typeof v === "number") {
      if (!(Math.abs(v) <= Number.MAX_SAFE_INTEGER)) return true
    } else if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) stack.push(v[i])
    } else if (typeof v === "object" && v !== null) {
      for (const key in v) stack.push((v as Record<string, unknown>)[key])
    }
  }
  return false
}

/**
 * Parses a JSON text. Precision is never lost silently: see the module comment.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string): Either.Either<JsonValue, JsonParseError> =>
  Either.flatMap(read(text), (value) =>
    !hasSuspiciousNumber.test(text) || !hasUnsafeNumber(value)
      ? Either.right(value)
      : internal.parseLossless(text, (source) => new LosslessNumber(source)).pipe(
        Either.map((v) => v as JsonValue),
        Either.mapLeft((problem) => new JsonParseError(problem))
      ))

/** `JSON.parse`, its syntax errors described without echoing the text. */
const read = (text: string): Either.Either<JsonValue, JsonParseError> => {
  try {
    return Either.right(JSON.parse(text))
  } catch (e) {
    return Either.left(new JsonParseError(internal.describeSyntaxError(text, e)))
  }
}

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
    return Either.left(new JsonParseError({ message: "invalid UTF-8" }))
  }
  return parse(text)
}

/**
 * Writes a JSON value as compact JSON text (one line), restoring `LosslessNumber`s verbatim.
 *
 * @since 0.1.0
 * @category encoding
 */
export const stringify = (value: unknown, space?: number): string => write(value, space).text

/** The JSON text of a value, and whether it holds a `LosslessNumber`. */
const write = (value: unknown, space?: number): { readonly text: string; readonly lossless: boolean } => {
  const before = losslessWritten
  const text = JSON.stringify(value, null, space)
  return losslessWritten !== before ? { text: text.replace(markerPattern, "$1"), lossless: true } : { text, lossless: false }
}

/**
 * The JavaScript number nearest to a JSON number (a `LosslessNumber` may round or be
 * infinite): for comparisons with limits, never for forwarding.
 *
 * @since 0.1.0
 * @category conversions
 */
export const toNumber = (n: number | LosslessNumber): number => typeof n === "number" ? n : n.approximate

/**
 * Structural equality of two JSON values; object key order is irrelevant.
 *
 * @since 0.1.0
 * @category equality
 */
export const equals = (a: unknown, b: unknown): boolean => {
  if (a === b) return true
  if (a instanceof LosslessNumber || b instanceof LosslessNumber) {
    return a instanceof LosslessNumber && b instanceof LosslessNumber && a.source === b.source
  }
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!equals(a[i], b[i])) return false
    return true
  }
  if (Array.isArray(b)) return false
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  for (const k of ka) {
    if (!Object.prototype.hasOwnProperty.call(b, k)) return false
    if (!equals((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k])) return false
  }
  return true
}

/**
 * Arbitrary for JSON values, for property tests of open fields.
 *
 * @since 0.1.0
 * @category testing
 */
export const arbitrary = Arbitrary.make(Value)

/**
 * A deep copy of a JSON value, through its JSON text. Numbers come back exactly; when the
 * value holds no `LosslessNumber`, its text holds only numbers written from doubles, which
 * read back as the same doubles, so the text is not scanned for unsafe numbers.
 *
 * @since 0.1.0
 * @category encoding
 */
export const copy = (value: JsonValue): Either.Either<JsonValue, JsonParseError> => {
  const { lossless, text } = write(value)
  return lossless ? parse(text) : read(text)
}

/**
 * A deep copy of a JSON value that shares no array or object with it (`LosslessNumber`s,
 * being immutable, are shared). Equal to the value read back from its JSON text, without
 * the text: members whose value is `undefined` are left out, as `JSON.stringify` leaves
 * them out, and own `__proto__` members stay own members. For values known to be JSON;
 * use `copy` for values that may hold anything else.
 *
 * @since 0.1.0
 * @category encoding
 */
export const clone = <A extends JsonValue>(value: A): A => cloneValue(value) as A

const cloneValue = (value: JsonValue): JsonValue => {
  if (typeof value !== "object" || value === null || value instanceof LosslessNumber) return value
  if (Array.isArray(value)) return value.map(cloneValue)
  const out: Record<string, JsonValue> = {}
  for (const key of Object.keys(value)) {
    const member = (value as Record<string, JsonValue | undefined>)[key]
    if (member === undefined) continue
    if (key === "__proto__") {
      Object.defineProperty(out, key, { value: cloneValue(member), enumerable: true, writable: true, configurable: true })
    } else {
      out[key] = cloneValue(member)
    }
  }
  return out
}
