/**
 * The issue model's implementation: issues, JSON Pointers, and the conversion of a Schema
 * `ParseError` into issues. Public through `Issue.ts`; `Decoder.ts` builds on it (a module
 * of its own, so that `Issue.ts` can re-export the decoders without an import cycle).
 *
 * @internal
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import * as AST from "effect/SchemaAST"
import * as Json from "../Json.js"

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
  /** The rule's code, for a problem found by a coded rule (see `CodeAnnotationId`). */
  readonly code?: string | undefined
}

/**
 * The annotation naming the code of a rule: an issue raised on a schema carrying it has
 * that `code`, and replaces the structural issues at, above and below its path. Its value
 * is the code, or `{ code, message }` to also word the issue of a value of the wrong type.
 *
 * @since 0.1.0
 * @category annotations
 */
export const CodeAnnotationId: unique symbol = Symbol.for("@effect-ahp/protocol/Issue/Code")

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
  issues.map((issue) => ({ ...issue, path: pointer(parent) + issue.path }))

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
      return AST.getDescriptionAnnotation(ast).pipe(
        Option.orElse(() => identifier),
        Option.getOrElse(() => "a valid value")
      )
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
  Array.isArray(issue.issues)
    ? (issue.issues as ReadonlyArray<ParseResult.ParseIssue>)
    : [issue.issues as ParseResult.ParseIssue]

const isLiteralMismatch = (issue: ParseResult.ParseIssue): boolean =>
  issue._tag === "Type" &&
  (issue.ast._tag === "Literal" || (issue.ast._tag === "Union" && issue.ast.types.every((t) => t._tag === "Literal")))

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
const discriminators = (
  members: ReadonlyArray<AST.AST>
): Map<string, Array<ReadonlyArray<AST.LiteralValue>>> | undefined => {
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
  const keys = typeof actual === "object" && actual !== null && !Array.isArray(actual)
    ? discriminators(ast.types)
    : undefined
  if (keys !== undefined && keys.size > 0) {
    const record = actual as Record<string, unknown>
    const present = [...keys.keys()].filter((k) => k in record)
    const matching = ast.types.filter((_, i) =>
      present.every((k) => keys.get(k)![i]!.includes(record[k] as AST.LiteralValue))
    )
    if (matching.length === 0 && present.length > 0) {
      const key = present.find((k) =>
        !ast.types.some((_, i) => keys.get(k)![i]!.includes(record[k] as AST.LiteralValue))
      )
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

/** The rule annotated on a schema: its code, and the message of a value of the wrong type. */
const codeOf = (ast: AST.AST): { readonly code: string; readonly message?: string | undefined } | undefined => {
  const annotation = ast.annotations[CodeAnnotationId]
  if (typeof annotation === "string") return { code: annotation }
  if (
    typeof annotation === "object" && annotation !== null && "code" in annotation && typeof annotation.code === "string"
  ) {
    return {
      code: annotation.code,
      message: "message" in annotation && typeof annotation.message === "string" ? annotation.message : undefined
    }
  }
  return undefined
}

/**
 * Runs `walk`, giving `code` to the issues it finds at `path` itself that have none: a
 * coded schema names the problems of its value, not those of its members.
 */
const coding = (
  code: string,
  path: ReadonlyArray<PropertyKey>,
  out: Array<Issue>,
  walk: (into: Array<Issue>) => void
): void => {
  const found: Array<Issue> = []
  walk(found)
  const at = pointer(path)
  for (const issue of found) out.push(issue.code === undefined && issue.path === at ? { ...issue, code } : issue)
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
      if (issue.ast._tag === "Union" && children.length > 1) {
        return walkUnion(issue.ast, issue.actual, children, path, out)
      }
      for (const child of children) walk(child, path, out)
      return
    }
    case "Refinement": {
      const rule = codeOf(issue.ast)
      if (rule !== undefined && issue.kind === "From") {
        return coding(rule.code, path, out, (into) => walk(issue.issue, path, into))
      }
      if (issue.kind === "From") return walk(issue.issue, path, out)
      const own = annotatedMessage(issue)
      if (own !== undefined) {
        out.push(rule === undefined ? make(path, own) : { ...make(path, own), code: rule.code })
        return
      }
      if (rule !== undefined) return coding(rule.code, path, out, (into) => walk(issue.issue, path, into))
      return walk(issue.issue, path, out)
    }
    case "Transformation":
      return walk(issue.issue, path, out)
    case "Type": {
      const message = annotatedMessage(issue) ?? issue.message
      const rule = codeOf(issue.ast)
      if (rule !== undefined) {
        out.push({ ...make(path, rule.message ?? message ?? `is not ${expected(issue.ast)}`), code: rule.code })
      } else if (message !== undefined) out.push(make(path, message))
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

/** Whether a coded issue covers `path`: at it, above it or below it. */
const covers = (coded: ReadonlyArray<Issue>, path: string): boolean =>
  coded.some((c) => c.path === path || path.startsWith(c.path + "/") || c.path.startsWith(path + "/"))

const dedupe = (found: Array<Issue>): Array<Issue> => {
  const seen = new Set<string>()
  const coded = found.filter((i) => i.code !== undefined)
  const issues = coded.length === 0 ? found : found.filter((i) => i.code !== undefined || !covers(coded, i.path))
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

const codeAsts = new Map<string, AST.AST>()

/**
 * A parse issue raised by a coded rule at `path` (relative to the value the rule checks),
 * for a Schema filter to return: the issue it becomes carries `code`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const coded = (
  code: string,
  path: ReadonlyArray<PropertyKey>,
  actual: unknown,
  message: string
): ParseResult.ParseIssue => {
  let ast = codeAsts.get(code)
  if (ast === undefined) {
    ast = AST.annotations(AST.neverKeyword, { [CodeAnnotationId]: code })
    codeAsts.set(code, ast)
  }
  const type = new ParseResult.Type(ast, actual, message)
  return path.length === 0 ? type : new ParseResult.Pointer(path as [PropertyKey, ...Array<PropertyKey>], actual, type)
}
