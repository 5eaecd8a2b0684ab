/**
 * Writing JSON text iteratively (explicit stack), with bounded nesting and verbatim
 * lossless numbers. The text is what `JSON.stringify(value, null, indent)` writes — `toJSON`
 * is honoured, members whose value is `undefined`, a function or a symbol are left out (and
 * written as `null` in arrays) — except that:
 * - a lossless number (`isVerbatim`) is written as its source text;
 * - a container opened beyond `maxDepth` levels fails with reason `depth` (so does a cyclic
 *   value, which is infinitely deep);
 * - a number that is not finite, a bigint, or a root that is not a value fails with reason
 *   `value`, as does a `toJSON` or getter that throws.
 *
 * `write` first walks the value (`isNative`): a value made only of strings, finite numbers,
 * booleans, null, arrays and objects without `toJSON`, within the depth limit, is written by
 * `JSON.stringify` itself (its recursion is then bounded by the limit), about twice as fast
 * as the iterative writer that handles everything else.
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as walk from "./jsonWalk.js"

/** Why a value could not be written. @internal */
export interface WriteProblem {
  readonly reason: "depth" | "value"
  readonly message: string
}

interface Frame {
  readonly array: boolean
  readonly holder: any
  readonly keys: ReadonlyArray<string> | undefined
  index: number
  wrote: boolean
}

const skip = Symbol()

/** Whether `JSON.stringify` writes a value exactly as `write` would (see the module comment). */
const isNative = (value: unknown, maxDepth: number, isVerbatim: (u: object) => boolean): boolean =>
  value !== undefined && walk.every(value, maxDepth, isVerbatim, (v) => {
    switch (typeof v) {
      case "string":
      case "boolean":
      case "undefined":
        return true
      case "number":
        return Number.isFinite(v)
      case "object":
        return v === null || (!isVerbatim(v) && typeof (v as { toJSON?: unknown }).toJSON !== "function")
      default:
        return false
    }
  })

/**
 * The JSON text of a value (see the module comment). `indent` is the indentation unit, `""`
 * for compact text.
 *
 * @internal
 */
export const write = (
  value: unknown,
  indent: string,
  maxDepth: number,
  isVerbatim: (u: object) => u is { readonly source: string }
): Either.Either<string, WriteProblem> => {
  try {
    if (isNative(value, maxDepth, isVerbatim)) return Either.right(JSON.stringify(value, null, indent))
  } catch {
    return Either.left({ reason: "value", message: "reading the value failed (a toJSON or getter threw)" })
  }
  return writeIteratively(value, indent, maxDepth, isVerbatim)
}

const writeIteratively = (
  value: unknown,
  indent: string,
  maxDepth: number,
  isVerbatim: (u: object) => u is { readonly source: string }
): Either.Either<string, WriteProblem> => {
  const stack: Array<Frame> = []
  const indents: Array<string> = [""]
  const lineAt = (depth: number): string => {
    if (indent === "") return ""
    while (indents.length <= depth) indents.push(indents[indents.length - 1]! + indent)
    return "\n" + indents[depth]!
  }
  const colon = indent === "" ? ":" : ": "
  let out = ""
  let problem: WriteProblem | undefined

  /** Applies `toJSON`, as `JSON.stringify` does. */
  const resolve = (key: string, v: unknown): unknown => {
    if ((typeof v === "object" && v !== null && !isVerbatim(v)) || typeof v === "bigint") {
      const toJSON = (v as { toJSON?: unknown }).toJSON
      if (typeof toJSON === "function") return toJSON.call(v, key)
    }
    return v
  }

  /**
   * Writes a scalar, or opens a container (pushing its frame: `true`); `skip` for what JSON
   * leaves out. A value that cannot be written sets `problem`.
   */
  const put = (v: unknown): typeof skip | boolean => {
    switch (typeof v) {
      case "string":
        out += JSON.stringify(v)
        return false
      case "number":
        if (Number.isFinite(v)) out += JSON.stringify(v)
        else problem = { reason: "value", message: `the number ${v} is not a JSON number` }
        return false
      case "boolean":
        out += v ? "true" : "false"
        return false
      case "bigint":
        problem = { reason: "value", message: "a bigint is not a JSON value" }
        return false
      case "object": {
        if (v === null) {
          out += "null"
          return false
        }
        if (isVerbatim(v)) {
          out += v.source
          return false
        }
        if (stack.length >= maxDepth) {
          problem = { reason: "depth", message: `JSON nested deeper than ${maxDepth} levels (or cyclic)` }
          return false
        }
        const array = Array.isArray(v)
        out += array ? "[" : "{"
        stack.push({ array, holder: v, keys: array ? undefined : Object.keys(v), index: 0, wrote: false })
        return true
      }
      default:
        return skip
    }
  }

  try {
    if (put(resolve("", value)) === skip) {
      return Either.left({ reason: "value", message: `${typeof value} is not a JSON value` })
    }
    while (stack.length > 0 && problem === undefined) {
      const frame = stack[stack.length - 1]!
      let opened = false
      if (frame.array) {
        const items = frame.holder as ReadonlyArray<unknown>
        while (!opened && problem === undefined && frame.index < items.length) {
          const index = frame.index++
          if (index > 0) out += ","
          out += lineAt(stack.length)
          const result = put(resolve(String(index), items[index]))
          if (result === skip) out += "null"
          else opened = result
        }
      } else {
        const keys = frame.keys!
        while (!opened && problem === undefined && frame.index < keys.length) {
          const key = keys[frame.index++]!
          const member = resolve(key, frame.holder[key])
          const kind = typeof member
          if (member === undefined || kind === "function" || kind === "symbol") continue
          if (frame.wrote) out += ","
          frame.wrote = true
          out += lineAt(stack.length) + JSON.stringify(key) + colon
          opened = put(member) === true
        }
      }
      if (opened || problem !== undefined) continue
      stack.pop()
      const empty = frame.array ? (frame.holder as ReadonlyArray<unknown>).length === 0 : !frame.wrote
      out += (empty ? "" : lineAt(stack.length)) + (frame.array ? "]" : "}")
    }
  } catch {
    return Either.left({ reason: "value", message: "reading the value failed (a toJSON or getter threw)" })
  }
  return problem === undefined ? Either.right(out) : Either.left(problem)
}
