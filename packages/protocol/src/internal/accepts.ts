/**
 * A fast acceptance check compiled once from a schema's AST: a plain predicate that is true
 * only when decoding the input (all errors, unknown members of open objects kept, closed
 * objects per their annotations) would succeed with nothing lost. It never explains a
 * rejection — a `false` only means "ask the decoder", which then reports the issues.
 *
 * It is conservative by construction. Every node kind it cannot judge exactly compiles to
 * `false`: transformations, template literals, decoding fallbacks, parse options other
 * than the errors mode and an excess-property policy of keep or error, asynchronous
 * declarations, and index signatures keyed by anything but (refined) strings or symbols.
 * So does any object checked against an object schema that has an own `__proto__` member
 * or a prototype other than `Object.prototype` or `null`. Objects are taken to hold only
 * enumerable own members, as any value read from JSON or written as a literal does. A
 * check recurses only through the schema's own structure; through a recursive schema
 * (`Schema.suspend`) it follows the value, at most `Json.maxDepth` suspensions deep (deeper
 * values are left to the decoder), so no value can exhaust the stack. What it accepts, the
 * decoder accepts: property tests compare both on valid and corrupted
 * events of every type and effects of every kind.
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as AST from "effect/SchemaAST"
import * as Json from "../Json.js"

/** The excess-property policy in force at a node (inherited from the nearest annotated ancestor). */
type Excess = "error" | "preserve"

/** A compiled check. */
type Check = (u: unknown) => boolean

const never: Check = () => false
const always: Check = () => true

/** How many suspended (possibly recursive) checks are running on the stack. */
let suspended = 0

const isPlainObject = (u: unknown): u is Record<PropertyKey, unknown> => {
  if (typeof u !== "object" || u === null || Array.isArray(u)) return false
  const proto = Object.getPrototypeOf(u)
  return (proto === Object.prototype || proto === null) && !Object.prototype.hasOwnProperty.call(u, "__proto__")
}

/** The excess-property policy a node's parse-options annotation sets, if it sets only that. */
const policyOf = (ast: AST.AST, inherited: Excess): Excess | undefined => {
  const annotation = AST.getParseOptionsAnnotation(ast)
  if (Option.isNone(annotation)) return inherited
  const { errors, onExcessProperty, ...rest } = annotation.value
  if (Object.keys(rest).length > 0 || (errors !== undefined && errors !== "all" && errors !== "first")) return undefined
  if (onExcessProperty === "ignore") return undefined
  return onExcessProperty ?? inherited
}

/**
 * The index-signature keys of `u` that effect's decoder visits for `parameter`, when the
 * parameter is one this module checks exactly (template-literal keys are not).
 */
const keysFor = (parameter: AST.AST): ((u: object) => ReadonlyArray<PropertyKey>) | undefined => {
  switch (parameter._tag) {
    case "StringKeyword":
      return Object.keys
    case "SymbolKeyword":
      return Object.getOwnPropertySymbols
    case "Refinement":
      return keysFor(parameter.from)
    default:
      return undefined
  }
}

/** Compiles checks, memoised per node and policy (suspended schemas may be recursive). */
class Compiler {
  private readonly memo = new Map<AST.AST, Map<Excess, Check>>()

  check(ast: AST.AST, inherited: Excess): Check {
    let byPolicy = this.memo.get(ast)
    if (byPolicy === undefined) {
      byPolicy = new Map()
      this.memo.set(ast, byPolicy)
    }
    const known = byPolicy.get(inherited)
    if (known !== undefined) return known
    let compiled: Check | undefined
    // A recursive reference sees this forwarder until the node is compiled.
    byPolicy.set(inherited, (u) => compiled!(u))
    const policy = policyOf(ast, inherited)
    compiled = policy === undefined || Option.isSome(AST.getDecodingFallbackAnnotation(ast))
      ? never
      : this.compile(ast, policy)
    byPolicy.set(inherited, compiled)
    return compiled
  }

  private compile(ast: AST.AST, policy: Excess): Check {
    switch (ast._tag) {
      case "Literal": {
        const literal = ast.literal
        return (u) => u === literal
      }
      case "UniqueSymbol": {
        const symbol = ast.symbol
        return (u) => u === symbol
      }
      case "UndefinedKeyword":
        return (u) => u === undefined
      case "UnknownKeyword":
      case "AnyKeyword":
      case "VoidKeyword":
        return always
      case "StringKeyword":
        return (u) => typeof u === "string"
      case "NumberKeyword":
        return (u) => typeof u === "number"
      case "BooleanKeyword":
        return (u) => typeof u === "boolean"
      case "BigIntKeyword":
        return (u) => typeof u === "bigint"
      case "SymbolKeyword":
        return (u) => typeof u === "symbol"
      case "Enums": {
        const values = ast.enums.map(([, value]) => value)
        return (u) => values.includes(u as string | number)
      }
      case "Declaration":
        return this.declaration(ast, policy)
      case "Refinement":
        return this.refinement(ast, policy)
      case "TupleType":
        return this.tuple(ast, policy)
      case "TypeLiteral":
        return this.typeLiteral(ast, policy)
      case "Union":
        return this.union(ast, policy)
      case "Suspend": {
        let target: Check | undefined
        return (u) => {
          if (suspended >= Json.maxDepth) return false
          suspended++
          try {
            return (target ??= this.check(ast.f(), policy))(u)
          } finally {
            suspended--
          }
        }
      }
      default:
        return never
    }
  }

  private declaration(ast: AST.Declaration, policy: Excess): Check {
    const decode = ast.decodeUnknown(...ast.typeParameters)
    const options: AST.ParseOptions = { errors: "all", onExcessProperty: policy }
    return (u) => {
      const result = decode(u, options, ast)
      return Either.isEither(result) && Either.isRight(result)
    }
  }

  private refinement(ast: AST.Refinement, policy: Excess): Check {
    const from = this.check(ast.from, policy)
    const options: AST.ParseOptions = { errors: "all", onExcessProperty: policy }
    // The decoder filters the decoded value, a copy of the same members for the plain
    // objects `from` accepts and the input itself for everything else.
    return (u) => from(u) && Option.isNone(ast.filter(u, options, ast))
  }

  private tuple(ast: AST.TupleType, policy: Excess): Check {
    if (ast.rest.length > 1) return never
    const elements = ast.elements.map((e) => ({ check: this.check(e.type, policy), optional: e.isOptional }))
    const required = elements.filter((e) => !e.optional).length
    const rest = ast.rest.length === 1 ? this.check(ast.rest[0]!.type, policy) : undefined
    return (u) => {
      if (!Array.isArray(u) || u.length < required || (rest === undefined && u.length > elements.length)) return false
      for (let i = 0; i < elements.length && i < u.length; i++) {
        if (!elements[i]!.check(u[i])) return false
      }
      if (rest !== undefined) {
        for (let i = elements.length; i < u.length; i++) {
          if (!rest(u[i])) return false
        }
      }
      return true
    }
  }

  private typeLiteral(ast: AST.TypeLiteral, policy: Excess): Check {
    if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) {
      return (u) => u !== null && u !== undefined && (typeof u !== "object" || isPlainObject(u) || Array.isArray(u))
    }
    const properties = ast.propertySignatures.map((ps) => ({
      name: ps.name,
      optional: ps.isOptional,
      check: this.check(ps.type, policy)
    }))
    const names = new Set<PropertyKey>(properties.map((p) => p.name))
    const indexes: Array<{ keys: (u: object) => ReadonlyArray<PropertyKey>; key: Check; value: Check }> = []
    for (const is of ast.indexSignatures) {
      const keys = keysFor(is.parameter)
      if (keys === undefined) return never
      indexes.push({ keys, key: this.check(is.parameter, policy), value: this.check(is.type, policy) })
    }
    const closed = policy === "error"
    return (u) => {
      if (!isPlainObject(u)) return false
      for (let i = 0; i < properties.length; i++) {
        const p = properties[i]!
        if (p.optional && !Object.prototype.hasOwnProperty.call(u, p.name)) continue
        if (!p.check(u[p.name])) return false
      }
      for (let i = 0; i < indexes.length; i++) {
        const index = indexes[i]!
        for (const key of index.keys(u)) {
          if (index.key(key) && !index.value(u[key])) return false
        }
      }
      if (closed) {
        for (const key of Reflect.ownKeys(u)) {
          if (!names.has(key) && !indexes.some((index) => index.key(key))) return false
        }
      }
      return true
    }
  }

  private union(ast: AST.Union, policy: Excess): Check {
    const members = ast.types.map((member) => this.check(member, policy))
    return (u) => {
      for (let i = 0; i < members.length; i++) {
        if (members[i]!(u)) return true
      }
      return false
    }
  }
}

/**
 * Compiles the acceptance check for `ast` decoded with unknown members kept (`"preserve"`,
 * the default; ignoring them accepts exactly the same inputs) or rejected (`"error"`),
 * except where an object's own annotations say otherwise.
 */
export const compile = (ast: AST.AST, onExcessProperty: Excess = "preserve"): (u: unknown) => boolean =>
  new Compiler().check(ast, onExcessProperty)
