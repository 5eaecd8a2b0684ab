/**
 * The pinned MCP 2025-11-25 elicitation payloads (`mcp-elicitation.schema.json`) carried
 * as serialized JSON in the text parts of `user.elicitation.request` / `.result`, and pure
 * helpers that parse and check them. MCP objects stay open (extension fields and `_meta`
 * are preserved); the requested-schema vocabulary is closed to the published subset.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { AbsoluteUri, closed } from "./Common.js"
import * as Decoder from "./Decoder.js"
import { optional } from "./internal/events/fields.js"
import * as Issue from "./Issue.js"
import * as Json from "./Json.js"

const annotations = { title: optional(Schema.String), description: optional(Schema.String) }
const Strings = Schema.Array(Schema.String)
const EnumOption = Schema.Struct({ const: Schema.String, title: Schema.String }).annotations({ ...closed })

const StringSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...annotations,
  minLength: optional(Schema.Number),
  maxLength: optional(Schema.Number),
  format: optional(Schema.Literal("date", "date-time", "email", "uri")),
  default: optional(Schema.String)
}).annotations({ identifier: "StringSchema", ...closed })

const NumberSchema = Schema.Struct({
  type: Schema.Literal("integer", "number"),
  ...annotations,
  minimum: optional(Schema.Number),
  maximum: optional(Schema.Number),
  default: optional(Schema.Number)
}).annotations({ identifier: "NumberSchema", ...closed })

const BooleanSchema = Schema.Struct({
  type: Schema.Literal("boolean"),
  ...annotations,
  default: optional(Schema.Boolean)
}).annotations({ identifier: "BooleanSchema", ...closed })

const UntitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...annotations,
  enum: Strings,
  default: optional(Schema.String)
}).annotations({ identifier: "UntitledSingleSelectEnumSchema", ...closed })

const TitledSingleSelectEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...annotations,
  oneOf: Schema.Array(EnumOption),
  default: optional(Schema.String)
}).annotations({ identifier: "TitledSingleSelectEnumSchema", ...closed })

const multiSelect = {
  type: Schema.Literal("array"),
  ...annotations,
  minItems: optional(Schema.Number),
  maxItems: optional(Schema.Number),
  default: optional(Strings)
}

const UntitledMultiSelectEnumSchema = Schema.Struct({
  ...multiSelect,
  items: Schema.Struct({ type: Schema.Literal("string"), enum: Strings }).annotations({ ...closed })
}).annotations({ identifier: "UntitledMultiSelectEnumSchema", ...closed })

const TitledMultiSelectEnumSchema = Schema.Struct({
  ...multiSelect,
  items: Schema.Struct({ anyOf: Schema.Array(EnumOption) }).annotations({ ...closed })
}).annotations({ identifier: "TitledMultiSelectEnumSchema", ...closed })

const LegacyTitledEnumSchema = Schema.Struct({
  type: Schema.Literal("string"),
  ...annotations,
  enum: Strings,
  enumNames: optional(Strings),
  default: optional(Schema.String)
}).annotations({ identifier: "LegacyTitledEnumSchema", ...closed })

const PrimitiveSchemaDefinition = Schema.Union(
  StringSchema,
  NumberSchema,
  BooleanSchema,
  UntitledSingleSelectEnumSchema,
  TitledSingleSelectEnumSchema,
  UntitledMultiSelectEnumSchema,
  TitledMultiSelectEnumSchema,
  LegacyTitledEnumSchema
).annotations({ identifier: "PrimitiveSchemaDefinition" })

type PrimitiveSchemaDefinition = typeof PrimitiveSchemaDefinition.Type

/**
 * A form's `requestedSchema`: top-level primitive and enum fields only.
 *
 * @since 0.1.0
 * @category schemas
 */
export const RequestedSchema = Schema.Struct({
  $schema: optional(Schema.String),
  type: Schema.Literal("object"),
  properties: Schema.Record({ key: Schema.String, value: PrimitiveSchemaDefinition }),
  required: optional(Strings)
}).annotations({ identifier: "RequestedSchema", ...closed })

/**
 * @since 0.1.0
 * @category models
 */
export type RequestedSchema = typeof RequestedSchema.Type

const open = { parseOptions: { onExcessProperty: "preserve" } } as const

const RequestMeta = Schema.Struct({ progressToken: optional(Schema.Union(Schema.String, Schema.Number)) })
  .annotations(open)
const TaskMetadata = Schema.Struct({ ttl: optional(Schema.Number) }).annotations(open)

const requestFields = { _meta: optional(RequestMeta), task: optional(TaskMetadata), message: Schema.String }

const ElicitRequestFormParams = Schema.Struct({
  ...requestFields,
  mode: optional(Schema.Literal("form")),
  requestedSchema: RequestedSchema
}).annotations({ identifier: "ElicitRequestFormParams", ...open })

const ElicitRequestURLParams = Schema.Struct({
  ...requestFields,
  mode: Schema.Literal("url"),
  elicitationId: Schema.String,
  url: AbsoluteUri
}).annotations({ identifier: "ElicitRequestURLParams", ...open })

/**
 * The pinned MCP `elicitation/create` params: a URL request or a form request (`mode`
 * omitted means form).
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitRequestParams = Schema.Union(ElicitRequestURLParams, ElicitRequestFormParams).annotations({
  identifier: "ElicitRequestParams"
})

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitRequestParams = typeof ElicitRequestParams.Type

const answerValueMessage = "must be a string, number, boolean or array of strings"
const AnswerValue = Schema.Union(Strings, Schema.String, Schema.Number, Schema.Boolean).annotations({
  message: () => answerValueMessage
})
const isAnswerValue = Decoder.lazy(() => Schema.is(AnswerValue))

/**
 * The pinned MCP `ElicitResult`: `action`, optional answer `content`, `_meta`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const ElicitResult = Schema.Struct({
  _meta: optional(Json.AnyObject),
  action: Schema.Literal("accept", "cancel", "decline"),
  content: optional(Schema.Record({ key: Schema.String, value: AnswerValue }))
}).annotations({ identifier: "ElicitResult", ...open })

/**
 * @since 0.1.0
 * @category models
 */
export type ElicitResult = typeof ElicitResult.Type

const parseWith =
  <A>(decode: (input: unknown) => Either.Either<A, Array<Issue.Issue>>) =>
  (text: string): Either.Either<A, Array<Issue.Issue>> =>
    Json.parse(text).pipe(
      Either.mapLeft((error) => [Issue.make([], `must be serialized JSON: ${error.message}`)]),
      Either.flatMap(decode)
    )

const decodeUrlRequest = Decoder.lazy(() => Decoder.make(ElicitRequestURLParams))
const decodeFormRequest = Decoder.lazy(() => Decoder.make(ElicitRequestFormParams))

/**
 * Parses the text of a `user.elicitation.request` body part and validates it as pinned MCP
 * request params. Issues point into the parsed JSON. `mode` selects the branch (omitted
 * means form), so problems are reported against the request the sender meant; the
 * accepted values are exactly those of the `anyOf`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseRequest = parseWith<ElicitRequestParams>((input) =>
  Json.isObject(input) && input.mode === "url" ? decodeUrlRequest(input) : decodeFormRequest(input)
)

/**
 * Parses the text of a `user.elicitation.result` body part and validates it as a pinned
 * MCP `ElicitResult`. Issues point into the parsed JSON.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parseResult = parseWith(Decoder.lazy(() => Decoder.make(ElicitResult)))

/**
 * The mode of parsed request params after applying the form default; the AHP envelope's
 * `elicitation.mode` must equal it.
 *
 * @since 0.1.0
 * @category accessors
 */
export const mode = (request: ElicitRequestParams): "form" | "url" => request.mode ?? "form"

const isStringArray = (u: unknown): u is ReadonlyArray<string> =>
  Array.isArray(u) && u.every((item) => typeof item === "string")

const describeAllowed = (allowed: ReadonlyArray<string>): string =>
  allowed.map((value) => JSON.stringify(value)).join(", ")

type StringField = PrimitiveSchemaDefinition & { readonly type: "string" }

const checkString = (field: StringField, value: unknown): string | undefined => {
  if (typeof value !== "string") return "must be a string"
  const allowed = "enum" in field
    ? field.enum
    : "oneOf" in field
    ? field.oneOf.map((option) => option.const)
    : undefined
  if (allowed !== undefined) return allowed.includes(value) ? undefined : `must be one of ${describeAllowed(allowed)}`
  if ("minLength" in field && field.minLength !== undefined && value.length < field.minLength) {
    return `must be at least ${field.minLength} characters long`
  }
  if ("maxLength" in field && field.maxLength !== undefined && value.length > field.maxLength) {
    return `must be at most ${field.maxLength} characters long`
  }
  return undefined
}

const checkNumber = (field: typeof NumberSchema.Type, value: unknown): string | undefined => {
  if (typeof value !== "number" || !Number.isFinite(value)) {
    return field.type === "integer" ? "must be an integer" : "must be a number"
  }
  if (field.type === "integer" && !Number.isInteger(value)) return "must be an integer"
  if (field.minimum !== undefined && value < field.minimum) return `must be at least ${field.minimum}`
  if (field.maximum !== undefined && value > field.maximum) return `must be at most ${field.maximum}`
  return undefined
}

const checkMultiSelect = (
  field: typeof UntitledMultiSelectEnumSchema.Type | typeof TitledMultiSelectEnumSchema.Type,
  value: unknown
): string | undefined => {
  if (!isStringArray(value)) return "must be an array of strings"
  const allowed = "enum" in field.items ? field.items.enum : field.items.anyOf.map((option) => option.const)
  const outside = value.find((item) => !allowed.includes(item))
  if (outside !== undefined) return `${JSON.stringify(outside)} is not one of ${describeAllowed(allowed)}`
  if (field.minItems !== undefined && value.length < field.minItems) {
    return `must select at least ${field.minItems} item(s)`
  }
  if (field.maxItems !== undefined && value.length > field.maxItems) {
    return `must select at most ${field.maxItems} item(s)`
  }
  return undefined
}

const checkField = (field: PrimitiveSchemaDefinition, value: unknown): string | undefined => {
  switch (field.type) {
    case "string":
      return checkString(field, value)
    case "integer":
    case "number":
      return checkNumber(field, value)
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be a boolean"
    case "array":
      return checkMultiSelect(field, value)
  }
}

/**
 * Problems of an accepted form answer (`ElicitResult.content`) against the form's
 * `requestedSchema`: the answer is an object, every required field is present, and every
 * answered field has the requested type and an allowed value. Members the form does not
 * describe must still be MCP answer values (the requested schema does not close the object).
 * Paths are relative to the answer.
 *
 * @since 0.1.0
 * @category validation
 */
export const checkAnswer = (requestedSchema: RequestedSchema, content: unknown): Array<Issue.Issue> => {
  if (!Json.isObject(content)) return [Issue.make([], "must be an object of answers keyed by field name")]
  const issues: Array<Issue.Issue> = []
  for (const name of requestedSchema.required ?? []) {
    if (!Object.prototype.hasOwnProperty.call(content, name)) issues.push(Issue.make([name], "is required by the form"))
  }
  for (const [name, value] of Object.entries(content)) {
    const field = Object.prototype.hasOwnProperty.call(requestedSchema.properties, name)
      ? requestedSchema.properties[name]
      : undefined
    const problem = field !== undefined
      ? checkField(field, value)
      : isAnswerValue(value)
      ? undefined
      : answerValueMessage
    if (problem !== undefined) issues.push(Issue.make([name], problem))
  }
  return issues
}
