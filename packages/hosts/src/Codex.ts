/**
 * The Codex CLI adapter. Codex copies Claude Code's dialect but rejects any output field it
 * does not support for an event (the hook run then fails and the action proceeds), has no
 * `ask`, accepts `updatedInput` only together with `allow`, and treats empty stdout as "no
 * opinion" (emitted rather than `{}`). Always exit code 0.
 *
 * | Codex event | AHP event | advertised | rendered as |
 * | --- | --- | --- | --- |
 * | PreToolUse | `tool.before` | deny, modify(input), inject, message | `permissionDecision: "deny"` with its reason; the whole effective input as `updatedInput` with `permissionDecision: "allow"` (Codex's only rewrite form; a shell or apply_patch rewrite without a string `command` is denied); `additionalContext` |
 * | PermissionRequest | `tool.permission.request` | allow, deny, message | `decision.behavior` allow, or deny with `message` |
 * | PostToolUse | `tool.after` | modify(output), inject, flow stop, message | `decision: "block"` whose `reason` replaces the tool result; `additionalContext`; `continue: false` |
 * | UserPromptSubmit | `turn.start` | deny, inject, flow stop, message | `decision: "block"`; `additionalContext`; `continue: false` |
 * | Stop, SubagentStop | `turn.finish.before` | flow stop/continue, message | `decision: "block"` with the instructions as `reason`; `continue: false` |
 * | SessionStart, SubagentStart | `session.start` | inject, message | `additionalContext` |
 * | PreCompact | `context.compact.before` | deny, message | `continue: false` with the reason as `stopReason` (Codex's only way to stop a compaction; it ends the turn) |
 * | PostCompact | `context.compact.after` | message | `systemMessage` |
 * | SessionEnd, Interrupt | `session.end`, `turn.end` (cancelled) | observed only | empty |
 * | legacy `notify` (`agent-turn-complete`, as the last argument) | `turn.end` (completed) | observed only | empty (ignored by Codex) |
 *
 * Messages are `systemMessage` everywhere.
 *
 * @since 0.1.0
 */
import type { Capabilities } from "@effect-ahp/protocol"
import * as Host from "./Host.js"
import * as Adapter from "./internal/adapter.js"
import * as render from "./internal/render.js"

/**
 * The continuation allowance the bridge advertises (Codex sets no limit of its own).
 *
 * @since 0.1.0
 * @category constants
 */
export const maxContinuations = 8

const allCapabilities: Readonly<Record<string, Capabilities.Capabilities>> = {
  PreToolUse: Host.capabilities(["deny", "modify", "inject", "message"], { modify: "input" }),
  PermissionRequest: Host.capabilities(["allow", "deny", "message"]),
  PostToolUse: Host.capabilities(["modify", "inject", "flow", "message"], { modify: "output", flow: ["stop"] }),
  UserPromptSubmit: Host.capabilities(["deny", "inject", "flow", "message"], { flow: ["stop"] }),
  Stop: Host.capabilities(["flow", "message"], { flow: ["stop", "continue"], maxContinuations }),
  SubagentStop: Host.capabilities(["flow", "message"], { flow: ["stop", "continue"], maxContinuations }),
  SessionStart: Host.capabilities(["inject", "message"]),
  SubagentStart: Host.capabilities(["inject", "message"]),
  PreCompact: Host.capabilities(["deny", "message"]),
  PostCompact: Host.capabilities(["message"])
}

/** Tools whose `updatedInput` must hold a string `command`. */
const commandTools = new Set(["Bash", "apply_patch", "shell", "exec_command", "local_shell", "unified_exec"])

const renderers: Readonly<Record<string, render.Renderer>> = {
  PreToolUse: (v, payload) => {
    if (v.permission === "deny") {
      return {
        specific: { permissionDecision: "deny", permissionDecisionReason: render.reasonOf(v), ...render.context(v) }
      }
    }
    if (v.input !== undefined && commandTools.has(String(payload?.tool_name)) && typeof v.input.command !== "string") {
      const reason = "a policy rewrote this command without a command string, which Codex requires"
      return { specific: { permissionDecision: "deny", permissionDecisionReason: reason }, notices: [reason] }
    }
    return {
      specific: {
        ...(v.input !== undefined ? { permissionDecision: "allow", updatedInput: v.input } : {}),
        ...render.context(v)
      }
    }
  },
  PermissionRequest: (v) => ({
    specific: v.permission === "deny"
      ? { decision: { behavior: "deny", message: render.reasonOf(v) } }
      : v.permission === "allow"
      ? { decision: { behavior: "allow" } }
      : {}
  }),
  PostToolUse: (v) => ({
    top: v.output !== undefined ? { decision: "block", reason: v.output } : {},
    specific: render.context(v)
  }),
  ...render.shared,
  PreCompact: (v) => ({
    top: v.permission === "deny" ? { continue: false, stopReason: render.reasonOf(v) } : {}
  }),
  PostCompact: () => ({})
}

/**
 * The Codex adapter.
 *
 * @since 0.1.0
 * @category adapters
 */
export const host: Host.Host = Adapter.make({
  name: "codex",
  title: "Codex",
  prefix: "cx",
  maxContinuations,
  capabilities: allCapabilities,
  renderers
})
