/**
 * The secret redactor, an example policy backend. At `tool.after` it scans the inline text
 * of the tool's output (`items`) for tokens and keys — GitHub, AWS, Slack, OpenAI-style and
 * Stripe keys, JWTs, private key blocks, and `password=` / `api_key: …` assignments — and
 * answers `modify(output) replace` with the same messages, every secret masked as
 * `[REDACTED:<kind>]`, plus a `message` saying what was masked. Output without secrets
 * gets no effect. When the request does not grant the replacement (for example because
 * part of the output is hidden from this backend), it sends no edit.
 *
 * @since 0.1.0
 */
import { Backend } from "@effect-ahp/backend"
import { Capabilities, type Content, type HookEffect } from "@effect-ahp/protocol"
import { Effect } from "effect"

interface Pattern {
  readonly kind: string
  readonly pattern: RegExp
}

const patterns: ReadonlyArray<Pattern> = [
  {
    kind: "private-key",
    pattern: /-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----/g
  },
  { kind: "github-token", pattern: /\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{30,})\b/g },
  { kind: "aws-access-key", pattern: /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g },
  { kind: "slack-token", pattern: /\bxox[abposr]-[A-Za-z0-9-]{10,}\b/g },
  { kind: "stripe-key", pattern: /\b[sr]k_(?:live|test)_[A-Za-z0-9]{16,}\b/g },
  { kind: "api-key", pattern: /\bsk-[A-Za-z0-9_-]{20,}\b/g },
  { kind: "jwt", pattern: /\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\b/g }
]

const secretName = "(?:password|passwd|secret|token|api[_-]?key|access[_-]?key|private[_-]?key)"

// `NAME = value`, `name: "value"`, … where NAME ends in a secret-like word: the value is masked.
const assignment = new RegExp(`\\b((?:[A-Za-z0-9]+[_-])*${secretName}\\b\\s*[:=]\\s*["']?)([^\\s"',;]{6,})`, "gi")

const mask = (kind: string) => `[REDACTED:${kind}]`

/**
 * The result of masking one text.
 *
 * @since 0.1.0
 * @category models
 */
export interface Redaction {
  readonly text: string
  /** The kinds of secret masked, one entry per secret, in order of the rules. */
  readonly kinds: ReadonlyArray<string>
}

/**
 * Masks every secret in a text.
 *
 * @since 0.1.0
 * @category policy
 */
export const redactText = (text: string): Redaction => {
  const kinds: Array<string> = []
  let out = text
  for (const { kind, pattern } of patterns) {
    out = out.replace(pattern, () => {
      kinds.push(kind)
      return mask(kind)
    })
  }
  out = out.replace(assignment, (whole, prefix: string, value: string) => {
    if (value.startsWith("[REDACTED")) return whole
    kinds.push("secret")
    return `${prefix}${mask("secret")}`
  })
  return { text: out, kinds }
}

/**
 * Masks every secret in the body text parts of a message list; other parts are kept as
 * they are.
 *
 * @since 0.1.0
 * @category policy
 */
export const redactMessages = (
  messages: ReadonlyArray<Content.Message>
): { readonly messages: ReadonlyArray<Content.Message>; readonly kinds: ReadonlyArray<string> } => {
  const kinds: Array<string> = []
  const redacted = messages.map((message) => ({
    ...message,
    parts: message.parts.map((part) => {
      if (part.kind !== "text" || !("text" in part) || typeof part.text !== "string") return part
      const result = redactText(part.text)
      kinds.push(...result.kinds)
      return result.kinds.length === 0 ? part : { ...part, text: result.text }
    })
  }))
  return { messages: redacted, kinds }
}

const describe = (kinds: ReadonlyArray<string>): string => {
  const distinct = [...new Set(kinds)].join(", ")
  return `${kinds.length} secret${kinds.length === 1 ? "" : "s"} (${distinct})`
}

/**
 * The redactor as a backend layer (one `tool.after` intercept handler).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = Backend.intercept(
  "tool.after",
  (request) =>
    Effect.sync((): ReadonlyArray<Backend.EffectAt<"tool.after">> => {
      const { kinds, messages } = redactMessages(request.event.items)
      if (kinds.length === 0) return []
      const edit: Backend.EffectAt<"tool.after"> = {
        type: "modify",
        target: "output",
        operation: "replace",
        value: messages
      }
      if (!Capabilities.isGranted(request.capabilities, edit)) return []
      const note: HookEffect.Message = {
        type: "message",
        text: `Masked ${describe(kinds)} in the output of ${request.event.tool.name}.`
      }
      return Capabilities.isGranted(request.capabilities, note) ? [edit, note] : [edit]
    })
)
