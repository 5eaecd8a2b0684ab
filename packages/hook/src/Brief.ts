/**
 * One-line descriptions of events, effects and capabilities for people: the audit log's
 * `summary`, the demo trace and `ahp inspect`. Text is shortened, never quoted in full.
 *
 * @since 0.1.0
 */
import { Json } from "@effect-ahp/protocol"
import * as Terminal from "./Terminal.js"

/**
 * Shortens a text to `max` characters on one line, terminal controls shown as escapes (see
 * `Terminal`).
 *
 * @since 0.1.0
 * @category formatting
 */
export const clip = (text: string, max = 60): string => {
  const line = text.replace(/\s+/g, " ").trim()
  return Terminal.line(line.length <= max ? line : `${line.slice(0, max - 1)}…`)
}

/**
 * The inline text of a message list's body text parts, joined by spaces.
 *
 * @since 0.1.0
 * @category formatting
 */
export const textOf = (messages: Json.JsonValue | undefined): string => {
  if (!Array.isArray(messages)) return ""
  const texts: Array<string> = []
  for (const message of messages) {
    if (!Json.isObject(message) || !Array.isArray(message.parts)) continue
    for (const part of message.parts) {
      if (Json.isObject(part) && typeof part.text === "string") texts.push(part.text)
    }
  }
  return texts.join(" ")
}

const toolCall = (event: Json.JsonObject): string => {
  const tool = Json.isObject(event.tool) ? event.tool : {}
  const name = typeof tool.name === "string" ? tool.name : "tool"
  const input = Json.isObject(tool.input) ? tool.input : {}
  const command = input.command
  if (typeof command === "string") return `${name}: ${clip(command)}`
  if (Array.isArray(command)) return `${name}: ${clip(command.map(String).join(" "))}`
  if (typeof input.path === "string") return `${name}: ${clip(input.path)}`
  return `${name} ${clip(Json.stringify(input))}`
}

/**
 * A one-line description of an event: the tool call, the prompt, the output.
 *
 * @since 0.1.0
 * @category formatting
 */
export const event = (value: Json.JsonObject): string => {
  const type = typeof value.type === "string" ? value.type : "event"
  if (type === "tool.after") {
    const output = textOf(value.items)
    return `${toolCall(value)} → ${output === "" ? "(no output)" : `"${clip(output, 50)}"`}`
  }
  if (type.startsWith("tool.")) return toolCall(value)
  if (Json.isObject(value.message) && Array.isArray(value.message.messages)) {
    return `"${clip(textOf(value.message.messages))}"`
  }
  const text = textOf(value.items)
  return text === "" ? type : `"${clip(text)}"`
}

/**
 * A one-line description of an effect.
 *
 * @since 0.1.0
 * @category formatting
 */
export const effect = (value: Json.JsonValue): string => {
  if (!Json.isObject(value)) return clip(Json.stringify(value))
  const effect = value
  switch (effect.type) {
    case "deny":
      return `deny "${clip(String(effect.reason ?? ""))}"${typeof effect.code === "string" ? ` (${effect.code})` : ""}`
    case "modify":
      return `modify ${String(effect.target)} (${String(effect.operation)})${
        Array.isArray(effect.value) ? `: "${clip(textOf(effect.value), 50)}"` : ""
      }`
    case "inject":
      return `inject context (${String(effect.deliverAt)}): "${clip(textOf(effect.value), 50)}"`
    case "message":
      return `message "${clip(String(effect.text ?? ""))}"`
    case "return":
      return `return ${clip(Json.stringify(effect.value), 40)}`
    case "flow":
      return `flow ${String(effect.operation)}${typeof effect.reason === "string" ? ` "${clip(effect.reason)}"` : ""}${
        typeof effect.instruction === "string" ? ` "${clip(effect.instruction)}"` : ""
      }`
    default:
      return String(effect.type)
  }
}

/**
 * The effect kinds a `capabilities` object advertises, e.g. `deny allow ask modify(input)`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const capabilities = (value: Json.JsonValue | undefined): string => {
  if (!Json.isObject(value) || !Array.isArray(value.effects)) return "nothing"
  if (value.effects.length === 0) return "nothing"
  const modify = Json.isObject(value.modify) ? Object.keys(value.modify) : []
  return value.effects
    .map((kind) => kind === "modify" && modify.length > 0 ? `modify(${modify.join(",")})` : String(kind))
    .join(" ")
}
