/**
 * A JSON parser that keeps number literals JavaScript cannot represent exactly.
 * Iterative (explicit stack), so deeply nested input cannot overflow the call stack, and
 * keys are defined as own properties so `__proto__` is never interpreted.
 *
 * @internal
 */
import * as Either from "effect/Either"

/** A parse failure: what went wrong and where. @internal */
export interface SyntaxProblem {
  readonly message: string
  readonly offset?: number | undefined
}

type Container =
  | { kind: "array"; value: Array<unknown> }
  | { kind: "object"; value: Record<string, unknown>; key: string | undefined }

const defineOwn = (target: Record<string, unknown>, key: string, value: unknown) =>
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })

const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const integerPattern = /^-?\d+$/

/** Whether a number literal is held exactly by its JavaScript number (integers are checked digit for digit). */
const isExact = (source: string, value: number): boolean =>
  Number.isFinite(value) &&
  (!integerPattern.test(source) || Number.isSafeInteger(value) || BigInt(source) === BigInt(value))

/** @internal */
export const parseLossless = <L>(
  text: string,
  makeLossless: (source: string) => L
): Either.Either<unknown, SyntaxProblem> => {
  let i = 0
  const fail = (message: string) => Either.left({ message: `invalid JSON: ${message} at ${position(text, i)}`, offset: i })
  const skipWhitespace = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i)
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++
      else break
    }
  }
  const readString = (): string | undefined => {
    const start = i
    i++
    while (i < text.length) {
      const c = text.charCodeAt(i)
      if (c === 0x22) {
        i++
        try {
          return JSON.parse(text.slice(start, i))
        } catch {
          i = start
          return undefined
        }
      }
      if (c < 0x20) {
        i = start
        return undefined
      }
      i += c === 0x5c ? 2 : 1
    }
    return undefined
  }
  const stack: Array<Container> = []
  let root: unknown = undefined
  let done = false
  const emit = (value: unknown): void => {
    const top = stack[stack.length - 1]
    if (top === undefined) {
      root = value
      done = true
    } else if (top.kind === "array") top.value.push(value)
    else defineOwn(top.value, top.key!, value)
  }
  while (!done) {
    skipWhitespace()
    const top = stack[stack.length - 1]
    if (top !== undefined) {
      const c = text[i]
      const empty = top.kind === "array" ? top.value.length === 0 : Object.keys(top.value).length === 0
      if ((top.kind === "array" && c === "]") || (top.kind === "object" && c === "}")) {
        i++
        stack.pop()
        emit(top.value)
        continue
      }
      if (!empty) {
        if (c !== ",") return fail("expected ',' or a closing bracket")
        i++
        skipWhitespace()
      }
      if (top.kind === "object") {
        if (text[i] !== "\"") return fail("expected a property name")
        const key = readString()
        if (key === undefined) return fail("invalid string")
        skipWhitespace()
        if (text[i] !== ":") return fail("expected ':'")
        i++
        skipWhitespace()
        top.key = key
      }
    }
    const c = text[i]
    if (c === "{") {
      i++
      stack.push({ kind: "object", value: {}, key: undefined })
    } else if (c === "[") {
      i++
      stack.push({ kind: "array", value: [] })
    } else if (c === "\"") {
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
      if (match === null) return fail("unexpected character")
      i += match[0].length
      const n = Number(match[0])
      emit(isExact(match[0], n) ? n : makeLossless(match[0]))
    }
  }
  skipWhitespace()
  if (i !== text.length) return fail("unexpected text after the JSON value")
  return Either.right(root)
}

/** Line and column (1-based) of a character offset. */
const position = (text: string, offset: number): string => {
  let line = 1
  let lineStart = 0
  for (let k = 0; k < offset && k < text.length; k++) {
    if (text.charCodeAt(k) === 0x0a) {
      line++
      lineStart = k + 1
    }
  }
  return `line ${line} column ${offset - lineStart + 1}`
}

/**
 * Describes a `JSON.parse` failure with a line and column, without
 * echoing the input text (it may hold secrets).
 *
 * @internal
 */
export const describeSyntaxError = (text: string, error: unknown): SyntaxProblem => {
  const raw = error instanceof Error ? error.message : String(error)
  const located = parseLossless(text, (source) => source)
  if (Either.isLeft(located) && text.trim() !== "") return located.left
  const match = /position (\d+)/.exec(raw)
  const offset = match ? Number(match[1]) : raw.includes("end of JSON input") ? text.length : undefined
  const reason = raw
    .replace(/, ".*" is not valid JSON$/s, "")
    .replace(/ in JSON at position \d+.*$/s, "")
    .replace(/^Unexpected token '(.)'.*$/s, "unexpected character '$1'")
  const where = offset === undefined ? "" : ` at ${position(text, offset)}`
  return { message: `invalid JSON: ${text.trim() === "" ? "empty input" : reason}${where}`, offset }
}
