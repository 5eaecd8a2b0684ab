/**
 * Decoders that report `Issue`s: `make` (all problems, JSON Pointer paths, never a throw),
 * `acceptOrDecode` (a valid input returned as it is) and `validator` (issues only, without
 * building the decoded value); `lazy` compiles any of them, or a guard or encoder, on its
 * first call.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { compile } from "./internal/accepts.js"
import { fromParseError, type Issue, make as issue, parseOptions } from "./internal/issue.js"
import * as jsonWalk from "./internal/jsonWalk.js"
import * as Json from "./Json.js"

/**
 * Parse options used by every decoder here: report all errors; keep unknown members of
 * open objects (they are ignored, and forwarded untouched). Closed objects (effects,
 * content parts) override this with `onExcessProperty: "error"`.
 *
 * @since 0.1.0
 * @category constants
 */
export { parseOptions }

/** The issue for an input effect's decoder throws on (a value without a string form where a tag is read). */
const unreadable: Issue = {
  path: "",
  message: "holds a value that cannot be read as JSON (an object without a string form)"
}

/** `decode`, or `undefined` where effect's decoder throws instead of failing (hostile values only). */
const guarded =
  <A>(decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>) =>
  (u: unknown): Either.Either<A, ParseResult.ParseError> | undefined => {
    try {
      return decode(u)
    } catch {
      return undefined
    }
  }

/**
 * A one-argument function built on its first call and reused after: a decoder, guard or
 * encoder compiled from a schema at module level (`lazy(() => Schema.is(Messages))`), so
 * that importing the module compiles nothing. Compiling a large schema's parser takes
 * milliseconds; a module that compiles several when it loads delays every process that
 * imports it, whether or not it ever decodes. A refinement stays a refinement.
 *
 * @since 0.1.0
 * @category constructors
 */
export const lazy: {
  <I, A extends I>(build: () => (input: I) => input is A): (input: I) => input is A
  <I, A>(build: () => (input: I) => A): (input: I) => A
} = <I, A>(build: () => (input: I) => A): any => {
  let built: ((input: I) => A) | undefined
  return (input: I): A => (built ??= build())(input)
}

/**
 * Builds a decoder that reports issues instead of a `ParseError`: every problem (never
 * only the first), with JSON Pointer paths; a hostile value (one effect's decoder would
 * throw on) and a `__proto__` member a decoded object would lose are issues too.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = <A, I>(
  schema: Schema.Schema<A, I>,
  options: { readonly onExcessProperty?: "preserve" | "error" } = {}
) => {
  const decode = guarded(Schema.decodeUnknownEither(schema, { ...parseOptions, ...options }))
  return (input: unknown): Either.Either<A, Array<Issue>> => {
    const decoded = decode(input)
    if (decoded === undefined) return Either.left([unreadable])
    if (Either.isLeft(decoded)) return Either.left(fromParseError(decoded.left))
    const lost = lostProtoMembers(input, decoded.right)
    return lost.length === 0 ? Either.right(decoded.right) : Either.left(lost)
  }
}

/**
 * `Schema.decodeUnknownEither(schema, options)` (all errors reported) that returns a valid
 * input as it is: a plain predicate compiled once from the schema accepts it first, and
 * only what that predicate does not accept is decoded. The predicate accepts nothing a
 * schema with transformations would change, so the result is the decoded value either
 * way; a valid input is simply not copied. Where effect's decoder would throw (a hostile
 * value, see `make`), the result is a `ParseError` instead.
 *
 * @since 0.1.0
 * @category constructors
 */
export const acceptOrDecode = <A, I>(
  schema: Schema.Schema<A, I>,
  options: { readonly onExcessProperty?: "preserve" | "error" } = {}
) => {
  const accepts = compile(schema.ast, options.onExcessProperty)
  const decode = guarded(Schema.decodeUnknownEither(schema, { errors: "all", ...options }))
  return (input: unknown): Either.Either<A, ParseResult.ParseError> => {
    if (accepts(input)) return Either.right(input as A)
    return decode(input) ??
      Either.left(new ParseResult.ParseError({ issue: new ParseResult.Type(schema.ast, input, unreadable.message) }))
  }
}

/**
 * Builds a check reporting exactly the issues `make(schema)` reports (an empty array
 * when the input is valid) without building the decoded value. A valid input is accepted
 * by a plain predicate compiled once from the schema, cheaper than decoding;
 * anything that predicate does not accept is decoded (without copying the unknown members
 * of open objects) for its issues. For where only validity matters.
 *
 * @since 0.1.0
 * @category constructors
 */
export const validator = <A, I>(schema: Schema.Schema<A, I>) => {
  const exact = make(schema)
  const check = guarded(Schema.decodeUnknownEither(schema, { ...parseOptions, onExcessProperty: "ignore" }))
  const accepts = compile(schema.ast)
  return (input: unknown): Array<Issue> => {
    if (accepts(input)) return []
    // Only the exact decoder tells which `__proto__` members a decoded value would lose.
    if (hasProtoOwner(input)) return Either.match(exact(input), { onLeft: (issues) => issues, onRight: () => [] })
    const checked = check(input)
    return checked === undefined ? [unreadable] : Either.isLeft(checked) ? fromParseError(checked.left) : []
  }
}

const protoKey = "__proto__"

const hasOwn = (value: unknown, key: string): boolean =>
  typeof value === "object" && value !== null && Object.prototype.hasOwnProperty.call(value, key)

const isContainer = (value: unknown): value is object =>
  typeof value === "object" && value !== null && !(value instanceof Json.LosslessNumber)

/**
 * Whether an object in `value` has an own `__proto__` member, or `value` nests deeper than
 * `Json.maxDepth` (then only the exact decoder can tell). Iterative.
 */
const hasProtoOwner = (value: unknown): boolean =>
  !jsonWalk.every(value, Json.maxDepth, isLossless, (v) => Array.isArray(v) || !hasOwn(v, protoKey))

const isLossless = (u: object): boolean => u instanceof Json.LosslessNumber

/** A path as a chain of links (materialised only for the paths reported). */
interface Link {
  readonly parent: Link | undefined
  readonly key: PropertyKey
}

const pathOf = (link: Link | undefined): Array<PropertyKey> => {
  const path: Array<PropertyKey> = []
  for (let l = link; l !== undefined; l = l.parent) path.push(l.key)
  return path.reverse()
}

/**
 * The own `__proto__` members of `input` that a decoded value does not keep. Free-form JSON
 * values keep them, but Schema's structs and records copy members by assignment, which would
 * drop such a member or turn it into the copy's prototype. Such a member is an error at its
 * path instead (nothing is silently lost, no prototype is ever injected); what lies inside a
 * lost member is not reported again. One iterative walk of both values, outermost first,
 * down to `Json.maxDepth` levels.
 *
 * @since 0.1.0
 * @category validation
 */
export const lostProtoMembers = (input: unknown, output: unknown): Array<Issue> => {
  const lost: Array<Issue> = []
  const stack: Array<
    { readonly input: unknown; readonly output: unknown; readonly at: Link | undefined; readonly depth: number }
  > = [
    { input, output, at: undefined, depth: 0 }
  ]
  while (stack.length > 0) {
    const { at, depth, input: i, output: o } = stack.pop()!
    if (!isContainer(i) || depth >= Json.maxDepth) continue
    const owns = !Array.isArray(i) && hasOwn(i, protoKey)
    if (owns && !hasOwn(o, protoKey)) {
      lost.push(issue([...pathOf(at), protoKey], `the member name "${protoKey}" is not accepted here`))
    }
    const keys = Object.keys(i)
    for (let k = keys.length - 1; k >= 0; k--) {
      const key = keys[k]!
      if (owns && key === protoKey && !hasOwn(o, protoKey)) continue
      const member = Array.isArray(i) ? Number(key) : key
      stack.push({
        input: (i as Record<string, unknown>)[key],
        output: hasOwn(o, key) ? (o as Record<string, unknown>)[key] : undefined,
        at: { parent: at, key: member },
        depth: depth + 1
      })
    }
  }
  return lost
}
