/**
 * Renders docs/reference/events.md from the schemas themselves: every catalogue event's
 * fields (from `Event.schemas`), what a backend may answer there (from the harness's
 * boundary table), and the shared named types those fields use.
 */
import { Boundary } from "@effect-ahp/harness"
import { Event } from "@effect-ahp/protocol"
import { Option, SchemaAST } from "effect"

interface Field {
  readonly name: string
  readonly optional: boolean
  readonly type: string
  readonly description: string | undefined
}

const identifierOf = (ast: SchemaAST.AST): string | undefined =>
  Option.getOrUndefined(SchemaAST.getIdentifierAnnotation(ast))

const descriptionOf = (annotated: SchemaAST.Annotated): string | undefined =>
  Option.getOrUndefined(SchemaAST.getDescriptionAnnotation(annotated))

/** The object types behind an AST: through refinements, transformations and suspensions. */
const objectOf = (ast: SchemaAST.AST): SchemaAST.TypeLiteral | undefined => {
  switch (ast._tag) {
    case "TypeLiteral":
      return ast
    case "Refinement":
      return objectOf(ast.from)
    case "Transformation":
      return objectOf(ast.to)
    case "Suspend":
      return objectOf(ast.f())
    default:
      return undefined
  }
}

/**
 * A short name for a field's type. Named types are kept by name and collected in `named`;
 * refined strings and numbers show their base type.
 */
const render = (ast: SchemaAST.AST, named: Map<string, SchemaAST.TypeLiteral>): string => {
  const identifier = identifierOf(ast)
  const object = objectOf(ast)
  if (identifier !== undefined && /^[A-Z]\w*$/.test(identifier)) {
    if (object !== undefined && !named.has(identifier)) named.set(identifier, object)
    return identifier
  }
  switch (ast._tag) {
    case "Refinement":
      return render(ast.from, named)
    case "Transformation":
      return render(ast.to, named)
    case "Suspend":
      return render(ast.f(), named)
    case "Literal":
      return JSON.stringify(ast.literal)
    case "StringKeyword":
      return "string"
    case "NumberKeyword":
      return "number"
    case "BooleanKeyword":
      return "boolean"
    case "Union":
      return [...new Set(ast.types.map((type) => render(type, named)))].join(" \\| ")
    case "TupleType":
      return ast.rest.length > 0
        ? `Array<${render(ast.rest[0]!.type, named)}>`
        : `[${ast.elements.map((element) => render(element.type, named)).join(", ")}]`
    case "TypeLiteral": {
      if (ast.propertySignatures.length === 0) return "object"
      const members = ast.propertySignatures.map((p) => `${String(p.name)}${p.isOptional ? "?" : ""}`)
      return `{ ${members.join(", ")} }`
    }
    case "Declaration":
      return identifier ?? "JSON"
    default:
      return identifier ?? ast._tag
  }
}

const fieldsOf = (object: SchemaAST.TypeLiteral, named: Map<string, SchemaAST.TypeLiteral>): ReadonlyArray<Field> =>
  object.propertySignatures
    // a `never` member is one the event forbids (another boundary's field)
    .filter((p) => p.type._tag !== "NeverKeyword")
    .map((p) => ({
      name: String(p.name),
      optional: p.isOptional,
      type: render(p.type, named),
      description: descriptionOf(p) ?? (p.type._tag === "Refinement" ? descriptionOf(p.type) : undefined)
    }))

const table = (fields: ReadonlyArray<Field>): Array<string> => [
  "| field | type | |",
  "| --- | --- | --- |",
  ...fields.map((f) => `| \`${f.name}\`${f.optional ? "" : " (required)"} | ${f.type} | ${f.description ?? ""} |`)
]

const answers = (boundary: Boundary.Boundary): string => {
  if (!boundary.interceptable) return "Observed only: backends receive it as a `hooks/observe` notification."
  const parts = [`Interceptable. Effects: ${boundary.effects.map((e) => `\`${e}\``).join(", ")}.`]
  if (boundary.targets.length > 0) {
    const targets = boundary.targets.map((t) => `\`${t.target}\` (the event's \`${t.field.join(".")}\`, ${t.value})`)
    parts.push(`\`modify\` targets: ${targets.join(", ")}.`)
  }
  if (boundary.returns !== undefined) parts.push(`\`return\` supplies a ${boundary.returns} result.`)
  if (boundary.flowOperations.length > 0) {
    parts.push(`\`flow\`: ${boundary.flowOperations.map((o) => `\`${o}\``).join(", ")}.`)
  }
  return parts.join(" ")
}

/** The whole reference page, as docs/reference/events.md holds it. */
export const page = (): string => {
  const named = new Map<string, SchemaAST.TypeLiteral>()
  const lines: Array<string> = [
    "# Event shapes",
    "",
    "<!-- Generated from the schemas by test/docs/EventReference.test.ts; regenerate with",
    "AHP_WRITE_DOCS=1 pnpm test --project suites test/docs/EventReference.test.ts -->",
    "",
    "Every catalogue event, field by field as `@effect-ahp/protocol`'s `Event` schemas decode it,",
    "and what a backend may answer at it (the harness's boundary table). Every event also",
    "carries the envelope: `id`, `type`, `time`, `source`, and optionally `session`,",
    "`parentEventId`, `turn`, `items`, `gaps`, `native`, `extensions`, `synthesized`.",
    ""
  ]
  const envelope = new Set([
    "id",
    "type",
    "time",
    "source",
    "session",
    "parentEventId",
    "turn",
    "items",
    "gaps",
    "native",
    "extensions",
    "synthesized"
  ])
  for (const type of Event.eventTypes) {
    const object = objectOf(Event.schemas[type].ast)!
    lines.push(`## ${type}`, "", answers(Boundary.of(type)), "")
    const own = fieldsOf(object, named).filter((f) => !envelope.has(f.name))
    lines.push(...(own.length === 0 ? ["Only the envelope's fields."] : table(own)), "")
  }
  const toolBefore = objectOf(Event.schemas["tool.before"].ast)!
  const envelopeFields = fieldsOf(toolBefore, named).filter((f) => envelope.has(f.name))
    .map((f) => f.name === "type" ? { ...f, type: "string", description: "the event type" } : f)
  lines.push("## The envelope", "", ...table(envelopeFields), "")
  lines.push("## Shared types", "")
  const done = new Set<string>()
  for (let pending = [...named.keys()]; pending.length > 0; pending = [...named.keys()].filter((n) => !done.has(n))) {
    for (const name of pending.sort()) {
      done.add(name)
      const fields = fieldsOf(named.get(name)!, named)
      lines.push(`### ${name}`, "", ...(fields.length === 0 ? ["An object of any members."] : table(fields)), "")
    }
  }
  return lines.join("\n").trimEnd() + "\n"
}
