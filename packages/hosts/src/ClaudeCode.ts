/**
 * The Claude Code adapter: hook payloads (stdin of a command hook, body of an HTTP hook)
 * become AHP events, and settled decisions become the hook's JSON output, always with exit
 * code 0 (`{}` is "no opinion"; silence never approves).
 *
 * | Claude Code event | AHP event | advertised | rendered as |
 * | --- | --- | --- | --- |
 * | PreToolUse | `tool.before` | deny, allow, ask, modify(input), inject, flow stop, message | `permissionDecision` deny (the deny reason, to Claude) or allow/ask (the messages as the reason, to the user); the whole effective input as `updatedInput` (a rewrite without a permission becomes `ask`, never an approval); `additionalContext` |
 * | PermissionRequest | `tool.permission.request` | allow, deny, modify(input), flow stop, message | `decision.behavior` allow (with `updatedInput`) or deny (with `message`); a rewrite without allow is a deny |
 * | PostToolUse | `tool.after` (ok) | modify(output), inject, flow stop, message | `updatedToolOutput` in the tool's shape; `additionalContext` |
 * | PostToolUseFailure | `tool.after` (error; the failure's text, `Exit code N` and the output, as `items`) | inject, message | `additionalContext` (Claude Code ignores `continue: false` and any rewrite here: the model gets the failure's text as it is) |
 * | PostToolBatch | `tool.batch.after` (each call's outcome read from its result: a hook's denial, `Exit code N`, or ok; the results as `items`) | flow stop, message | `continue: false`, which ends the turn before the next model request: the place to keep a failed call's output from the model |
 * | UserPromptSubmit | `turn.start` | deny, inject, flow stop, message | `decision: "block"`; `additionalContext` |
 * | Stop, SubagentStop | `turn.finish.before` | flow stop/continue, message | `decision: "block"` with the instructions as `reason` (continue) |
 * | SessionStart | `session.start` | inject, message | `additionalContext` |
 * | SubagentStart | `session.start` (with `session.agent`) | inject | `additionalContext` |
 * | PreCompact | `context.compact.before` | deny | `decision: "block"` |
 * | PermissionDenied, StopFailure, SessionEnd, PostCompact, Notification | `tool.permission.resolved`, `turn.end`, `session.end`, `context.compact.after`, `user.attention` | observed only | `{}` |
 *
 * Everywhere: `flow stop` is `continue: false` with `stopReason`; messages are `systemMessage`.
 *
 * @since 0.1.0
 */
import { Json } from "@effect-ahp/protocol"
import type { Capabilities } from "@effect-ahp/protocol"
import * as Host from "./Host.js"
import * as Adapter from "./internal/adapter.js"
import * as render from "./internal/render.js"

/**
 * How many continuations in a row Claude Code allows before it ends the turn anyway.
 *
 * @since 0.1.0
 * @category constants
 */
export const maxContinuations = 8

const allCapabilities: Readonly<Record<string, Capabilities.Capabilities>> = {
  PreToolUse: Host.capabilities(["deny", "allow", "ask", "modify", "inject", "flow", "message"], {
    modify: "input",
    flow: ["stop"]
  }),
  PermissionRequest: Host.capabilities(["allow", "deny", "modify", "flow", "message"], {
    modify: "input",
    flow: ["stop"]
  }),
  PostToolUse: Host.capabilities(["modify", "inject", "flow", "message"], { modify: "output", flow: ["stop"] }),
  PostToolUseFailure: Host.capabilities(["inject", "message"]),
  PostToolBatch: Host.capabilities(["flow", "message"], { flow: ["stop"] }),
  UserPromptSubmit: Host.capabilities(["deny", "inject", "flow", "message"], { flow: ["stop"] }),
  Stop: Host.capabilities(["flow", "message"], { flow: ["stop", "continue"], maxContinuations }),
  SubagentStop: Host.capabilities(["flow", "message"], { flow: ["stop", "continue"], maxContinuations }),
  SessionStart: Host.capabilities(["inject", "message"]),
  SubagentStart: Host.capabilities(["inject"]),
  PreCompact: Host.capabilities(["deny"])
}

/**
 * The rewritten tool output in the shape of the original `tool_response`: the text itself
 * for a string response; for an object, the text when it is a JSON object, else the
 * original with `stdout` replaced (the Bash shape). `undefined` when no shape fits.
 *
 * @since 0.1.0
 * @category rendering
 */
export const shapeOutput = (original: Json.JsonValue | undefined, text: string): Json.JsonValue | undefined => {
  if (original === undefined || typeof original === "string") return text
  if (!Json.isObject(original)) return undefined
  const parsed = Json.parse(text)
  if (parsed._tag === "Right" && Json.isObject(parsed.right)) return parsed.right
  return typeof original.stdout === "string" ? { ...original, stdout: text, stderr: "" } : undefined
}

const rewriteNotice = "a policy rewrote this call: confirm the rewritten input"

const renderers: Readonly<Record<string, render.Renderer>> = {
  PreToolUse: (v) => {
    if (v.permission === "deny") {
      return {
        specific: { permissionDecision: "deny", permissionDecisionReason: render.reasonOf(v), ...render.context(v) }
      }
    }
    const escalated = v.input !== undefined && v.permission === "none"
    const permission = escalated ? "ask" : v.permission
    const reason = v.messages.length > 0 ? v.messages.join("\n") : escalated ? rewriteNotice : undefined
    return {
      specific: {
        ...(permission !== "none" ? { permissionDecision: permission } : {}),
        ...(permission !== "none" && reason !== undefined ? { permissionDecisionReason: reason } : {}),
        ...(v.input !== undefined ? { updatedInput: v.input } : {}),
        ...render.context(v)
      },
      ownMessages: permission !== "none"
    }
  },
  PermissionRequest: (v) => {
    if (v.permission === "deny") return { specific: { decision: { behavior: "deny", message: render.reasonOf(v) } } }
    if (v.permission === "allow") {
      return {
        specific: { decision: { behavior: "allow", ...(v.input !== undefined ? { updatedInput: v.input } : {}) } }
      }
    }
    if (v.input === undefined) return {}
    const reason = "a policy rewrote this call, and Claude Code applies a rewritten permission request only with allow"
    return { specific: { decision: { behavior: "deny", message: reason } }, notices: [reason] }
  },
  PostToolUse: (v, payload) => {
    const shaped = v.output === undefined ? undefined : shapeOutput(payload?.tool_response, v.output)
    return {
      specific: { ...(shaped !== undefined ? { updatedToolOutput: shaped } : {}), ...render.context(v) },
      notices: v.output !== undefined && shaped === undefined
        ? ["the rewritten tool output does not fit the tool's output shape; Claude Code keeps the original"]
        : []
    }
  },
  PostToolUseFailure: (v) => ({ specific: render.context(v) }),
  PostToolBatch: () => ({}),
  ...render.shared,
  PreCompact: (v) => ({ top: v.permission === "deny" ? { decision: "block", reason: render.reasonOf(v) } : {} })
}

/**
 * The Claude Code adapter.
 *
 * @since 0.1.0
 * @category adapters
 */
export const host: Host.Host = Adapter.make({
  name: "claude-code",
  title: "Claude Code",
  prefix: "cc",
  maxContinuations,
  capabilities: allCapabilities,
  renderers
})
