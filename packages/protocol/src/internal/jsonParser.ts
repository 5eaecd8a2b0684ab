/**
 * Reading JSON text in time linear in its length, with bounded nesting and exact numbers.
 *
 * - `scan` is one pass over the text that skips strings (`indexOf` to each closing quote)
 *   and looks at what lies between them: the nesting depth and the number literals. It tells
 *   whether `JSON.parse` may read the text (nesting within the limit, every number literal
 *   plain) before any value is built: `JSON.parse` itself is iterative but slow on deep
 *   nesting, so an over-deep text must never reach it.
 * - `parseLossless` is an iterative parser (explicit stack) for texts with number literals
 *   that are not plain: they become `LosslessNumber`s. It also locates errors: the first
 *   syntax error or the first bracket beyond the nesting limit, whichever comes first.
 *
 * A number literal is plain when the JavaScript number it reads as stands for the same
 * decimal value as the literal: `String(Number(literal))` is the same number, written
 * perhaps differently (`1.50`, `1E2`, `0.1`, `1e-7`). Any other literal — one that overflows
 * to ±Infinity, underflows (`1e-400`), or has digits the double cannot hold (beyond 2^53, a
 * long fraction, `2^70` written out in full) — is kept verbatim.
 *
 * @internal
 */
import * as Either from "effect/Either"

/** A parse failure: what went wrong, where, and whether it is the nesting limit. @internal */
export interface SyntaxProblem {
  readonly reason: "syntax" | "depth"
  readonly message: string
  readonly offset?: number | undefined
}

type Container =
  | { readonly kind: "array"; readonly value: Array<unknown> }
  | { readonly kind: "object"; readonly value: Record<string, unknown>; key: string; empty: boolean }

const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const literalPattern = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/

/** A string of decimal digits plus one (`"199"` → `"200"`). */
const increment = (digits: string): string => {
  let i = digits.length - 1
  while (i >= 0 && digits.charCodeAt(i) === 0x39) i--
  return i < 0
    ? "1" + "0".repeat(digits.length)
    : digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) + 1) + "0".repeat(digits.length - i - 1)
}

/** A string of decimal digits (a positive number) minus one (`"200"` → `"199"`). */
const decrement = (digits: string): string => {
  let i = digits.length - 1
  while (i >= 0 && digits.charCodeAt(i) === 0x30) i--
  return digits.slice(0, i) + String.fromCharCode(digits.charCodeAt(i) - 1) + "9".repeat(digits.length - i - 1)
}

/** The last 15 digits of a long exponent are added to as a number (exact below 2^53). */
const low15 = 1e15

/**
 * A literal's exponent (`[+-]?\d+`, any length) plus a small integer (|delta| < 2^31), as a
 * normalised decimal integer. Linear in the exponent's length: `BigInt` parsing takes time
 * quadratic in the digits, which a hostile exponent could have millions of.
 */
const shift = (exponent: string, delta: number): string => {
  const negative = exponent.charCodeAt(0) === 0x2d
  let first = exponent.charCodeAt(0) === 0x2d || exponent.charCodeAt(0) === 0x2b ? 1 : 0
  while (first < exponent.length - 1 && exponent.charCodeAt(first) === 0x30) first++
  const digits = exponent.slice(first)
  if (digits.length <= 15) return String((negative ? -1 : 1) * Number(digits) + delta)
  // |exponent| ≥ 10^15 > |delta|: the sign stays, and at most one carry leaves the last 15 digits.
  let low = Number(digits.slice(-15)) + (negative ? -delta : delta)
  let head = digits.slice(0, -15)
  if (low >= low15) {
    low -= low15
    head = increment(head)
  } else if (low < 0) {
    low += low15
    head = decrement(head)
  }
  let magnitude = head + String(low).padStart(15, "0")
  let lead = 0
  while (lead < magnitude.length - 1 && magnitude.charCodeAt(lead) === 0x30) lead++
  magnitude = magnitude.slice(lead)
  return negative ? `-${magnitude}` : magnitude
}

/**
 * The exact decimal value of a JSON number literal in one canonical text (`-` sign,
 * significant digits, `e`, exponent), equal for two literals exactly when their values are
 * equal; `undefined` for text that is not a number literal. Linear in the literal.
 *
 * @internal
 */
export const canonical = (source: string): string | undefined => {
  const match = literalPattern.exec(source)
  if (match === null) return undefined
  const fraction = match[3] ?? ""
  const digits = match[2]! + fraction
  let first = 0
  while (first < digits.length && digits.charCodeAt(first) === 0x30) first++
  if (first === digits.length) return "0"
  let last = digits.length
  while (digits.charCodeAt(last - 1) === 0x30) last--
  return `${match[1]}${digits.slice(first, last)}e${shift(match[4] ?? "0", digits.length - last - fraction.length)}`
}

/**
 * Whether a number literal is plain (see the module comment): its JavaScript number writes
 * back as the same value. Up to 15 digits without an exponent always are.
 *
 * @internal
 */
export const isPlainLiteral = (source: string): boolean => {
  if (source.length <= 15 && source.indexOf("e") === -1 && source.indexOf("E") === -1) return true
  const value = Number(source)
  return Number.isFinite(value) && canonical(source) === canonical(String(value))
}

/** Line and column (1-based) of a character offset. */
const position = (text: string, offset: number): string => {
  let line = 1
  let lineStart = 0
  let newline = text.indexOf("\n")
  while (newline !== -1 && newline < offset) {
    line++
    lineStart = newline + 1
    newline = text.indexOf("\n", lineStart)
  }
  return `line ${line} column ${offset - lineStart + 1}`
}

/** The message of a text nested deeper than the limit. */
const tooDeep = (maxDepth: number): string => `JSON nested deeper than ${maxDepth} levels`

/** What `scan` found. @internal */
export type Scan = "plain" | "lossless" | "deep"

/**
 * The index of the quote closing the string opened at `open`, or -1 when it is not closed.
 * A quote closes when an even number of backslashes precedes it; each backslash is counted
 * for at most one quote, so the search is linear in the text.
 */
const closingQuote = (text: string, open: number): number => {
  let quote = open
  for (;;) {
    quote = text.indexOf("\"", quote + 1)
    if (quote === -1) return -1
    let backslashes = 0
    while (text.charCodeAt(quote - 1 - backslashes) === 0x5c) backslashes++
    if ((backslashes & 1) === 0) return quote
  }
}

const isNumberChar = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d

/**
 * One linear pass over a text (see the module comment): `deep` when a bracket opens beyond
 * `maxDepth` levels, else `lossless` when a number literal is not plain, else `plain`. For
 * text that is not JSON the answer only decides which parser reports the error.
 *
 * @internal
 */
export const scan = (text: string, maxDepth: number): Scan => {
  let depth = 0
  let lossless = false
  const length = text.length
  let i = 0
  while (i < length) {
    const c = text.charCodeAt(i)
    if (c === 0x22) {
      const close = closingQuote(text, i)
      if (close === -1) break
      i = close + 1
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return "deep"
      i++
    } else if (c === 0x5d || c === 0x7d) {
      depth--
      i++
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      let end = i + 1
      while (end < length && isNumberChar(text.charCodeAt(end))) end++
      if (!lossless && !isPlainLiteral(text.slice(i, end))) lossless = true
      i = end
    } else {
      i++
    }
  }
  return lossless ? "lossless" : "plain"
}

const defineOwn = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })

/**
 * Parses a JSON text, keeping number literals that are not plain as `makeLossless(source)`.
 * Linear in the text; iterative; keys are own properties (`__proto__` is never interpreted);
 * a bracket opening beyond `maxDepth` levels fails with reason `depth`.
 *
 * @internal
 */
export const parseLossless = <L>(
  text: string,
  makeLossless: (source: string) => L,
  maxDepth: number
): Either.Either<unknown, SyntaxProblem> => {
  let i = 0
  const fail = (message: string, reason: SyntaxProblem["reason"] = "syntax") =>
    Either.left<SyntaxProblem>({
      reason,
      message: `${reason === "depth" ? message : `invalid JSON: ${message}`} at ${position(text, i)}`,
      offset: i
    })
  const skipWhitespace = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i)
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++
      else break
    }
  }
  /** The string starting at `i` (a quote), or undefined when it is not a valid JSON string. */
  const readString = (): string | undefined => {
    const close = closingQuote(text, i)
    if (close === -1) return undefined
    const raw = text.slice(i + 1, close)
    let value: string
    if (raw.indexOf("\\") === -1 && !/[\u0000-\u001f]/.test(raw)) {
      value = raw
    } else {
      try {
        value = JSON.parse(text.slice(i, close + 1))
      } catch {
        return undefined
      }
    }
    i = close + 1
    return value
  }
  const stack: Array<Container> = []
  let root: unknown = undefined
  let done = false
  const emit = (value: unknown): void => {
    const top = stack[stack.length - 1]
    if (top === undefined) {
      root = value
      done = true
    } else if (top.kind === "array") {
      top.value.push(value)
    } else {
      if (top.key === "__proto__") defineOwn(top.value, top.key, value)
      else top.value[top.key] = value
      top.empty = false
    }
  }
  while (!done) {
    skipWhitespace()
    const top = stack[stack.length - 1]
    if (top !== undefined) {
      const c = text.charCodeAt(i)
      if ((top.kind === "array" && c === 0x5d) || (top.kind === "object" && c === 0x7d)) {
        i++
        stack.pop()
        emit(top.value)
        continue
      }
      const empty = top.kind === "array" ? top.value.length === 0 : top.empty
      if (!empty) {
        if (c !== 0x2c) return fail("expected ',' or a closing bracket")
        i++
        skipWhitespace()
      }
      if (top.kind === "object") {
        if (text.charCodeAt(i) !== 0x22) return fail("expected a property name")
        const key = readString()
        if (key === undefined) return fail("invalid string")
        skipWhitespace()
        if (text.charCodeAt(i) !== 0x3a) return fail("expected ':'")
        i++
        skipWhitespace()
        top.key = key
      }
    }
    const c = text.charCodeAt(i)
    if (c === 0x7b || c === 0x5b) {
      if (stack.length >= maxDepth) return fail(tooDeep(maxDepth), "depth")
      i++
      stack.push(c === 0x7b ? { kind: "object", value: {}, key: "", empty: true } : { kind: "array", value: [] })
    } else if (c === 0x22) {
      const s = readString()
      if (s === undefined) return fail("invalid string")
      emit(s)
    } else if (text.startsWith("true", i)) {
      i += 4
      emit(true)
    } else if (text.startsWith("false", i)) {
      i += 5
      emit(false)
    } else if (text.startsWith("null", i)) {
      i += 4
      emit(null)
    } else {
      numberPattern.lastIndex = i
      const match = numberPattern.exec(text)
      if (match === null) return fail(i >= text.length ? "unexpected end of input" : "unexpected character")
      const source = match[0]
      i += source.length
      emit(isPlainLiteral(source) ? Number(source) : makeLossless(source))
    }
  }
  skipWhitespace()
  if (i !== text.length) return fail("unexpected text after the JSON value")
  return Either.right(root)
}

/** Whether a text holds only JSON whitespace (stops at the first other character). */
const isBlank = (text: string): boolean => {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return false
  }
  return true
}

/**
 * Describes why a text is not JSON (or nested too deep) with a line and column, without
 * echoing the text (it may hold secrets): the lossless parser locates the first problem.
 *
 * @internal
 */
export const describe = (text: string, maxDepth: number): SyntaxProblem => {
  if (isBlank(text)) return { reason: "syntax", message: "invalid JSON: empty input", offset: text.length }
  const located = parseLossless(text, (source) => source, maxDepth)
  return Either.isLeft(located)
    ? located.left
    : { reason: "syntax", message: "invalid JSON", offset: undefined }
}
