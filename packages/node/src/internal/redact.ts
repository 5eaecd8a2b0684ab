/**
 * Masking secrets in backend text the transports quote: a stdio child's stderr tail, a
 * JSON-RPC error's message and data.
 *
 * @internal
 */
import { Json } from "@effect-ahp/protocol"

/** Shorter values are not redacted (they would blank out ordinary text); nor are shorter cut-off pieces. */
const minSecretLength = 4

/**
 * Masks every secret in `text`, and a piece of one (`minSecretLength` or more characters)
 * cut off by the end of the text or, when `cutStart`, by its start.
 *
 * @internal
 */
export const redact = (text: string, secrets: ReadonlyArray<string>, cutStart: boolean): string => {
  let out = text
  for (const secret of secrets) {
    if (secret.length < minSecretLength) continue
    out = out.split(secret).join("[redacted]")
    for (let k = secret.length - 1; cutStart && k >= minSecretLength; k--) {
      if (out.startsWith(secret.slice(-k))) {
        out = "[redacted]" + out.slice(k)
        break
      }
    }
    for (let k = secret.length - 1; k >= minSecretLength; k--) {
      if (out.endsWith(secret.slice(0, k))) {
        out = out.slice(0, -k) + "[redacted]"
        break
      }
    }
  }
  return out
}

/** A value with every secret masked in its strings and keys. */
const maskStrings = (value: Json.JsonValue, secrets: ReadonlyArray<string>): Json.JsonValue =>
  typeof value === "string"
    ? redact(value, secrets, false)
    : Array.isArray(value)
    ? value.map((item) => maskStrings(item, secrets))
    : Json.isObject(value)
    ? Object.fromEntries(
      Object.entries(value).map(([key, item]) => [redact(key, secrets, false), maskStrings(item, secrets)])
    )
    : value

/**
 * A JSON-RPC error answer with the secrets masked in its `error` (the harness quotes its
 * message and data); any other response as it is. `secrets` is read only for an error.
 *
 * @internal
 */
export const maskErrorAnswer = (
  answer: Json.JsonObject,
  secrets: (() => ReadonlyArray<string>) | undefined
): Json.JsonObject => {
  if (secrets === undefined || answer.error === undefined) return answer
  const values = secrets()
  return values.length === 0 ? answer : { ...answer, error: maskStrings(answer.error, values) }
}
