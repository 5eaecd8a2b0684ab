/**
 * Validation problems as data: a JSON Pointer (RFC 6901) to the offending value and a
 * message. Every decoder in this package reports all problems, never only the first.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import { compile } from "./internal/accepts.js"
import * as jsonWalk from "./internal/jsonWalk.js"
import * as Json from "./Json.js"

/**
 * One problem found in a JSON value.
 *
 * @since 0.1.0
 * @category models
 */
export interface Issue {
  /** JSON Pointer to the offending value; `""` is the whole document. */
  readonly path: string
  readonly message: string
}

/**
 * Makes an issue.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (path: ReadonlyArray<PropertyKey>, message: string): Issue => ({ path: pointer(path), message })

/**
 * Renders a path as a JSON Pointer.
 *
 * @since 0.1.0
 * @category formatting
 */
export const pointer = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((segment) => "/" + String(segment).replace(/~/g, "~0").replace(/\//g, "~1")).join("")

/**
 * Prefixes every issue's path with a parent path.
 *
 * @since 0.1.0
 * @category combinators
 */
export const within = (issues: ReadonlyArray<Issue>, parent: ReadonlyArray<PropertyKey>): Array<Issue> =>
  issues.map((issue) => ({ path: pointer(parent) + issue.path, message: issue.message }))

const describeActual = (actual: unknown): string => {
  if (actual === undefined) return "nothing"
  if (actual === null) return "null"
  if (Array.isArray(actual)) return "an array"
  switch (typeof actual) {
    case "string":
      return actual.length > 40 ? "a string" : JSON.stringify(actual)
    case "number":
    case "boolean":
      return String(actual)
    case "object":
      return actual instanceof Json.LosslessNumber ? `${actual.source}, beyond exact number precision` : "an object"
    default:
      return typeof actual
  }
}

const objectAst = (ast: AST.AST): AST.TypeLiteral | undefined => {
  switch (ast._tag) {
    case "TypeLiteral":
      return ast
    case "Refinement":
      return objectAst(ast.from)
    case "Transformation":
      return objectAst(ast.to)
    case "Suspend":
      return objectAst(ast.f())
    default:
      return undefined
  }
}

const expected = (ast: AST.AST): string => {
  const identifier = AST.getIdentifierAnnotation(ast)
  switch (ast._tag) {
    case "Literal":
      return JSON.stringify(ast.literal)
    case "TypeLiteral":
      return "an object"
    case "TupleType":
      return "an array"
    case "StringKeyword":
      return "a string"
    case "NumberKeyword":
      return "a number"
    case "BooleanKeyword":
      return "a boolean"
    case "Declaration":
      return AST.getDescriptionAnnotation(ast).pipe(Option.orElse(() => identifier), Option.getOrElse(() => "a valid value"))
    case "Refinement":
    case "Transformation":
      return Option.getOrElse(identifier, () => expected(ast._tag === "Refinement" ? ast.from : ast.to))
    case "Union": {
      if (ast.types.every(isObjectLike)) return Option.getOrElse(identifier, () => "an object")
      const members = [...new Set(ast.types.map(expected))]
      const text = members.join(" or ")
      return text.length <= 120 ? text : Option.getOrElse(identifier, () => "one of the allowed shapes")
    }
    default:
      return String(ast)
  }
}

const isObjectLike = (ast: AST.AST): boolean =>
  ast._tag === "Union" ? ast.types.every(isObjectLike) : objectAst(ast) !== undefined

const annotatedMessage = (issue: ParseResult.ParseIssue): string | undefined => {
  const ast = "ast" in issue ? issue.ast : undefined
  if (ast === undefined) return undefined
  const annotation = AST.getMessageAnnotation(ast)
  if (Option.isNone(annotation)) return undefined
  const result = annotation.value(issue)
  if (typeof result === "string") return result
  if (typeof result === "object" && result !== null && "message" in result && typeof result.message === "string") {
    return result.message
  }
  return undefined
}

const childrenOf = (issue: ParseResult.Composite): ReadonlyArray<ParseResult.ParseIssue> =>
  Array.isArray(issue.issues) ? (issue.issues as ReadonlyArray<ParseResult.ParseIssue>) : [issue.issues as ParseResult.ParseIssue]

const isLiteralMismatch = (issue: ParseResult.ParseIssue): boolean =>
  issue._tag === "Type" && (issue.ast._tag === "Literal" || (issue.ast._tag === "Union" && issue.ast.types.every((t) => t._tag === "Literal")))

/** Whether a member's failure is a mismatch of one of its literal (discriminating) members. */
const failsDiscriminator = (issue: ParseResult.ParseIssue): boolean => {
  if (isLiteralMismatch(issue)) return true
  if (issue._tag === "Composite" && issue.ast._tag === "TypeLiteral") {
    const children = childrenOf(issue)
    return children.some((c) => c._tag === "Pointer" && isLiteralMismatch(c.issue))
  }
  return false
}

const literalsOf = (ast: AST.AST): ReadonlyArray<AST.LiteralValue> | undefined => {
  if (ast._tag === "Literal") return [ast.literal]
  if (ast._tag === "Union" && ast.types.every((t) => t._tag === "Literal")) {
    return ast.types.map((t) => (t as AST.Literal).literal)
  }
  return undefined
}

/** The members' literal values of each key that is literal-valued in every member. */
const discriminators = (members: ReadonlyArray<AST.AST>): Map<string, Array<ReadonlyArray<AST.LiteralValue>>> | undefined => {
  const objects = members.map(objectAst)
  if (objects.some((o) => o === undefined)) return undefined
  const keys = new Map<string, Array<ReadonlyArray<AST.LiteralValue>>>()
  const first = objects[0]!
  for (const signature of first.propertySignatures) {
    if (typeof signature.name !== "string") continue
    const values = objects.map((o) => {
      const own = o!.propertySignatures.find((p) => p.name === signature.name)
      return own === undefined || own.isOptional ? undefined : literalsOf(own.type)
    })
    if (values.every((v) => v !== undefined)) keys.set(signature.name, values as Array<ReadonlyArray<AST.LiteralValue>>)
  }
  return keys
}

const issuesFor = (ast: AST.AST, actual: unknown, path: ReadonlyArray<PropertyKey>): Array<Issue> => {
  const result = ParseResult.decodeUnknownEither(Schema.make(ast), parseOptions)(actual)
  if (Either.isRight(result)) return []
  const out: Array<Issue> = []
  walk(result.left, path, out)
  return out
}

/**
 * A union failed. When its members are told apart by literal members (an effect's `type`),
 * report the members matching the value's literals — or, when none matches, the literal
 * member itself. Otherwise report the member the value most plausibly meant (its literal
 * members match, fewest problems) rather than every member's failure.
 */
const walkUnion = (
  ast: AST.Union,
  actual: unknown,
  children: ReadonlyArray<ParseResult.ParseIssue>,
  path: ReadonlyArray<PropertyKey>,
  out: Array<Issue>
): void => {
  if (children.every(isLiteralMismatch)) {
    out.push(make(path, `expected ${expected(ast)}, got ${describeActual(actual)}`))
    return
  }
  const keys = typeof actual === "object" && actual !== null && !Array.isArray(actual) ? discriminators(ast.types) : undefined
  if (keys !== undefined && keys.size > 0) {
    const record = actual as Record<string, unknown>
    const present = [...keys.keys()].filter((k) => k in record)
    const matching = ast.types.filter((_, i) =>
      present.every((k) => keys.get(k)![i]!.includes(record[k] as AST.LiteralValue))
    )
    if (matching.length === 0 && present.length > 0) {
      const key = present.find((k) => !ast.types.some((_, i) => keys.get(k)![i]!.includes(record[k] as AST.LiteralValue)))
      if (key !== undefined) {
        const allowed = [...new Set(keys.get(key)!.flat())].map((v) => JSON.stringify(v)).join(", ")
        out.push(make([...path, key], `must be one of ${allowed}, got ${describeActual(record[key])}`))
        return
      }
    }
    if (matching.length > 0 && matching.length < ast.types.length) {
      let best: Array<Issue> | undefined
      for (const member of matching) {
        const found = issuesFor(member, actual, path)
        if (best === undefined || found.length < best.length) best = found
      }
      out.push(...(best ?? []))
      return
    }
  }
  const plausible = children.filter((c) => !failsDiscriminator(c))
  const candidates = plausible.length > 0 ? plausible : children
  let best: Array<Issue> | undefined
  for (const child of candidates) {
    const collected: Array<Issue> = []
    walk(child, path, collected)
    if (best === undefined || collected.length < best.length) best = collected
  }
  if (plausible.length === 0 && candidates.length > 1) {
    out.push(make(path, `expected ${expected(ast)}`))
    return
  }
  out.push(...(best ?? []))
}

const walk = (issue: ParseResult.ParseIssue, path: ReadonlyArray<PropertyKey>, out: Array<Issue>): void => {
  switch (issue._tag) {
    case "Pointer":
      return walk(issue.issue, [...path, ...(Array.isArray(issue.path) ? issue.path : [issue.path])], out)
    case "Composite": {
      const own = annotatedMessage(issue)
      if (own !== undefined) {
        out.push(make(path, own))
        return
      }
      const children = childrenOf(issue)
      if (issue.ast._tag === "Union" && children.length > 1) return walkUnion(issue.ast, issue.actual, children, path, out)
      for (const child of children) walk(child, path, out)
      return
    }
    case "Refinement": {
      if (issue.kind === "From") return walk(issue.issue, path, out)
      const own = annotatedMessage(issue)
      if (own !== undefined) {
        out.push(make(path, own))
        return
      }
      return walk(issue.issue, path, out)
    }
    case "Transformation":
      return walk(issue.issue, path, out)
    case "Type": {
      const message = annotatedMessage(issue) ?? issue.message
      if (message !== undefined) out.push(make(path, message))
      else if (issue.ast._tag === "Refinement") out.push(make(path, `is not ${expected(issue.ast)}`))
      else out.push(make(path, `expected ${expected(issue.ast)}, got ${describeActual(issue.actual)}`))
      return
    }
    case "Missing":
      out.push(make(path, "is required"))
      return
    case "Unexpected":
      out.push(make(path, "is not an allowed member here"))
      return
    case "Forbidden":
      out.push(make(path, issue.message ?? "cannot be checked"))
      return
  }
}

/**
 * Converts a Schema `ParseError` into issues with JSON Pointer paths.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromParseError = (error: ParseResult.ParseError): Array<Issue> => {
  const out: Array<Issue> = []
  walk(error.issue, [], out)
  return dedupe(out)
}

const dedupe = (issues: Array<Issue>): Array<Issue> => {
  const seen = new Set<string>()
  return issues.filter((i) => {
    const key = i.path + "\u0000" + i.message
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

/**
 * Describes a value briefly for a message without echoing long or secret text.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describe = describeActual

/**
 * Parse options used by every decoder here: report all errors; keep unknown members of
 * open objects (they are ignored, and forwarded untouched). Closed objects (effects,
 * content parts) override this with `onExcessProperty: "error"`.
 *
 * @since 0.1.0
 * @category constants
 */
export const parseOptions = { errors: "all", onExcessProperty: "preserve" } as const

/** The issue for an input effect's decoder throws on (a value without a string form where a tag is read). */
const unreadable: Issue = { path: "", message: "holds a value that cannot be read as JSON (an object without a string form)" }

/** `decode`, or `undefined` where effect's decoder throws instead of failing (hostile values only). */
const guarded = <A>(decode: (u: unknown) => Either.Either<A, ParseResult.ParseError>) =>
(u: unknown): Either.Either<A, ParseResult.ParseError> | undefined => {
  try {
    return decode(u)
  } catch {
    return undefined
  }
}

/**
 * Builds a decoder that reports issues instead of a `ParseError`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const decoder = <A, I>(
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
 * value, see `decoder`), the result is a `ParseError` instead.
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
 * Builds a check reporting exactly the issues `decoder(schema)` reports (an empty array
 * when the input is valid) without building the decoded value. A valid input is accepted
 * by a plain predicate compiled once from the schema, several times faster than decoding;
 * anything that predicate does not accept is decoded (without copying the unknown members
 * of open objects) for its issues. For where only validity matters.
 *
 * @since 0.1.0
 * @category constructors
 */
export const validator = <A, I>(schema: Schema.Schema<A, I>) => {
  const exact = decoder(schema)
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
  const stack: Array<{ readonly input: unknown; readonly output: unknown; readonly at: Link | undefined; readonly depth: number }> = [
    { input, output, at: undefined, depth: 0 }
  ]
  while (stack.length > 0) {
    const { at, depth, input: i, output: o } = stack.pop()!
    if (!isContainer(i) || depth >= Json.maxDepth) continue
    const owns = !Array.isArray(i) && hasOwn(i, protoKey)
    if (owns && !hasOwn(o, protoKey)) {
      lost.push(make([...pathOf(at), protoKey], `the member name "${protoKey}" is not accepted here`))
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
