/**
 * Every AHP wire message, the official kind names, kind inference, and whole-text
 * validation (JSON documents and JSON Lines streams) with every problem reported by path.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import * as Decoder from "./Decoder.js"
import * as Discovery from "./Discovery.js"
import * as Intercept from "./Intercept.js"
import * as Issue from "./Issue.js"
import * as Json from "./Json.js"
import * as JsonRpc from "./JsonRpc.js"
import * as Observe from "./Observe.js"
import * as Registration from "./Registration.js"

/**
 * Any AHP wire message (the official aggregate `schema.json`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Message = Schema.Union(
  Intercept.Request,
  Intercept.Response,
  JsonRpc.ErrorResponse,
  Observe.Notification,
  Discovery.Request,
  Discovery.Response
).annotations({ identifier: "WireMessage" })

/**
 * The kinds a document can be validated as, named after the official schemas.
 *
 * @since 0.1.0
 * @category constants
 */
export const kinds = [
  "registration",
  "intercept-request",
  "intercept-response",
  "intercept-deny-response",
  "intercept-no-effect-response",
  "observe-notification",
  "capabilities-request",
  "capabilities-response",
  "json-rpc-message",
  "message"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export type Kind = typeof kinds[number]

/**
 * Whether a string names a kind.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isKind = (s: string): s is Kind => (kinds as ReadonlyArray<string>).includes(s)

const schemas: Record<Kind, Schema.Schema<any, any>> = {
  "registration": Registration.Registration,
  "intercept-request": Intercept.Request,
  "intercept-response": Intercept.Response,
  "intercept-deny-response": Intercept.DenyResponse,
  "intercept-no-effect-response": Intercept.NoEffectResponse,
  "observe-notification": Observe.Notification,
  "capabilities-request": Discovery.Request,
  "capabilities-response": Discovery.Response,
  "json-rpc-message": JsonRpc.Message,
  "message": Message
}

/**
 * Each kind's decoder, compiled on its first call, so a process that imports the package
 * pays only for the kinds it reads.
 */
const decoders = Object.fromEntries(kinds.map((k) => [k, Decoder.lazy(() => Decoder.make(schemas[k]))])) as Record<
  Kind,
  (u: unknown) => Either.Either<unknown, Array<Issue.Issue>>
>

/**
 * The schema of a kind.
 *
 * @since 0.1.0
 * @category accessors
 */
export const schemaOf = (kind: Kind): Schema.Schema<unknown, unknown> => schemas[kind]

/**
 * Infers the most specific kind of a value: a registration by its shape; a request or
 * notification by its method; a response by its result (a manifest, no effects, only one
 * deny, or any effects); anything else as a generic wire message.
 *
 * @since 0.1.0
 * @category inference
 */
export const inferKind = (value: unknown): Kind => {
  if (!Json.isObject(value)) return "message"
  if (!("jsonrpc" in value) && ("hooks" in value || "protocolVersion" in value)) return "registration"
  if ("method" in value) {
    switch (value.method) {
      case Intercept.method:
        return "intercept-request"
      case Observe.method:
        return "observe-notification"
      case Discovery.method:
        return "capabilities-request"
      default:
        return "json-rpc-message"
    }
  }
  if ("result" in value && !("error" in value) && Json.isObject(value.result)) {
    const result = value.result
    if ("manifest" in result && !("effects" in result)) return "capabilities-response"
    const effects = result.effects
    if (Array.isArray(effects) && effects.length === 0) return "intercept-no-effect-response"
    if (Array.isArray(effects) && effects.every((e) => Json.isObject(e) && e.type === "deny")) {
      return "intercept-deny-response"
    }
    return "intercept-response"
  }
  return "message"
}

/**
 * The verdict on one value.
 *
 * @since 0.1.0
 * @category models
 */
export interface Verdict {
  readonly kind: Kind
  readonly issues: ReadonlyArray<Issue.Issue>
}

/**
 * Validates one JSON value as a kind (inferred when not given).
 *
 * @since 0.1.0
 * @category validation
 */
export const validate = (value: unknown, kind?: Kind): Verdict => {
  const k = kind ?? inferKind(value)
  if (Array.isArray(value)) {
    return {
      kind: k,
      issues: [{ path: "", message: "a batch (JSON array) is not allowed; each message is one JSON object" }]
    }
  }
  if (!Json.isObject(value)) {
    return { kind: k, issues: [{ path: "", message: `expected a JSON object, got ${Issue.describe(value)}` }] }
  }
  const result = decoders[k](value)
  return { kind: k, issues: Either.isLeft(result) ? result.left : [] }
}

/**
 * How a text is framed: one JSON document, or JSON Lines (one complete message per line).
 *
 * @since 0.1.0
 * @category models
 */
export type Framing = "json" | "jsonl"

/**
 * The verdict on a whole text: every message's kind and all problems, with paths. In JSON
 * Lines, paths start with the zero-based line index (the text is read as a list of messages).
 *
 * @since 0.1.0
 * @category models
 */
export interface TextVerdict {
  readonly kinds: ReadonlyArray<Kind>
  readonly issues: ReadonlyArray<Issue.Issue>
}

/**
 * Parses and validates a whole text. Nothing is half-validated: a framing or JSON error is
 * reported as an issue, never thrown.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateText = (
  text: string,
  options: { readonly framing: Framing; readonly kind?: Kind | undefined }
): TextVerdict => {
  if (options.framing === "json") {
    const parsed = Json.parse(text)
    if (Either.isLeft(parsed)) return { kinds: [], issues: [{ path: "", message: parsed.left.message }] }
    const verdict = validate(parsed.right, options.kind)
    return { kinds: [verdict.kind], issues: verdict.issues }
  }
  const lines = text.split("\n")
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop()
  if (lines.length === 0) return { kinds: [], issues: [{ path: "", message: "framing: no message (empty stream)" }] }
  const kindsFound: Array<Kind> = []
  const issues: Array<Issue.Issue> = []
  const split = lines.length > 1 && lines.some((l) => Either.isLeft(Json.parse(l))) && Either.isRight(Json.parse(text))
  if (split) {
    return {
      kinds: [],
      issues: [{
        path: "",
        message: `framing: one message is split over ${lines.length} lines; each message must be one compact JSON line`
      }]
    }
  }
  lines.forEach((raw, index) => {
    const line = raw.endsWith("\r") ? raw.slice(0, -1) : raw
    if (line.trim() === "") {
      issues.push({
        path: `/${index}`,
        message: `framing: line ${index + 1} is empty (each line must hold one message)`
      })
      return
    }
    const parsed = Json.parse(line)
    if (Either.isLeft(parsed)) {
      issues.push({
        path: `/${index}`,
        message: `framing: line ${index + 1} is not one complete JSON message (${parsed.left.message})`
      })
      return
    }
    const verdict = validate(parsed.right, options.kind)
    kindsFound.push(verdict.kind)
    issues.push(...Issue.within(verdict.issues, [index]))
  })
  issues.sort((a, b) => lineOf(a.path) - lineOf(b.path))
  return { kinds: kindsFound, issues }
}

const lineOf = (path: string): number => Number(path.split("/")[1] ?? 0)
