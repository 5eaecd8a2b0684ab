/**
 * The hook events of each host as plain data: the AHP event each one becomes (or none:
 * passed through as "no opinion"), the host's own timeout for it when the settings set
 * none, and whether the host lets a hook block it. This module imports nothing at run
 * time, so the command hook can read it before it decides whether to load the harness.
 *
 * @since 0.1.0
 */
import type { Event } from "@effect-ahp/protocol"

/**
 * The hosts the bridge speaks for.
 *
 * @since 0.1.0
 * @category models
 */
export type HostName = "claude-code" | "codex"

/**
 * The host names, in documentation order.
 *
 * @since 0.1.0
 * @category constants
 */
export const hostNames: ReadonlyArray<HostName> = ["claude-code", "codex"]

/**
 * Whether a string names a host.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isHostName = (name: string): name is HostName => name === "claude-code" || name === "codex"

/**
 * Each host's "no opinion" output: `{}` for Claude Code, empty stdout for Codex (which
 * documents empty output as its canonical "no decision").
 *
 * @since 0.1.0
 * @category constants
 */
export const silence: Readonly<Record<HostName, string>> = { "claude-code": "{}\n", codex: "" }

/**
 * One hook event of a host.
 *
 * @since 0.1.0
 * @category models
 */
export interface HostEvent {
  /** The host's event name (`hook_event_name`). */
  readonly name: string
  /** The AHP event it becomes; `undefined` when it is passed through as "no opinion". */
  readonly type: Event.EventType | undefined
  /** The host's timeout for a hook of this event when the settings set none, in milliseconds. */
  readonly timeoutMs: number
  /** Whether the host lets a hook block (deny) it, so a fail-closed policy can be enforced. */
  readonly blocking: boolean
  /** Whether it comes from a hook entry of the settings (`false`: Codex's legacy `notify` program). */
  readonly hook: boolean
}

const event = (
  name: string,
  type: Event.EventType | undefined,
  timeoutMs: number,
  blocking = false,
  hook = true
): readonly [string, HostEvent] => [name, { name, type, timeoutMs, blocking, hook }]

const tenMinutes = 600_000

/**
 * Claude Code's hook events. Defaults from the hooks reference: 600 s, 30 s for
 * UserPromptSubmit, 1.5 s shared by SessionEnd hooks.
 *
 * @since 0.1.0
 * @category constants
 */
export const claudeCode: Readonly<Record<string, HostEvent>> = Object.fromEntries([
  event("PreToolUse", "tool.before", tenMinutes, true),
  event("PermissionRequest", "tool.permission.request", tenMinutes, true),
  event("PostToolUse", "tool.after", tenMinutes),
  event("PostToolUseFailure", "tool.after", tenMinutes),
  event("PermissionDenied", "tool.permission.resolved", tenMinutes),
  event("PostToolBatch", "tool.batch.after", tenMinutes),
  event("UserPromptSubmit", "turn.start", 30_000, true),
  event("Stop", "turn.finish.before", tenMinutes),
  event("SubagentStop", "turn.finish.before", tenMinutes),
  event("StopFailure", "turn.end", tenMinutes),
  event("SessionStart", "session.start", tenMinutes),
  event("SubagentStart", "session.start", tenMinutes),
  event("SessionEnd", "session.end", 1_500),
  event("PreCompact", "context.compact.before", tenMinutes, true),
  event("PostCompact", "context.compact.after", tenMinutes),
  event("Notification", "user.attention", tenMinutes),
  event("Setup", undefined, tenMinutes),
  event("UserPromptExpansion", undefined, tenMinutes),
  event("Elicitation", undefined, tenMinutes),
  event("TaskCreated", undefined, tenMinutes),
  event("TaskCompleted", undefined, tenMinutes),
  event("TeammateIdle", undefined, tenMinutes),
  event("InstructionsLoaded", undefined, tenMinutes),
  event("CwdChanged", undefined, tenMinutes),
  event("FileChanged", undefined, tenMinutes),
  event("WorktreeRemove", undefined, tenMinutes),
  event("MessageDisplay", undefined, 10_000)
])

/**
 * Codex's hook events. Defaults from the hooks page: 600 s, 1 s for SessionEnd and
 * Interrupt. `agent-turn-complete` is the payload of the legacy `notify` program (its
 * `type`; it arrives as the last argument, and its output is ignored).
 *
 * @since 0.1.0
 * @category constants
 */
export const codex: Readonly<Record<string, HostEvent>> = Object.fromEntries([
  event("PreToolUse", "tool.before", tenMinutes, true),
  event("PermissionRequest", "tool.permission.request", tenMinutes, true),
  event("PostToolUse", "tool.after", tenMinutes),
  event("UserPromptSubmit", "turn.start", tenMinutes, true),
  event("Stop", "turn.finish.before", tenMinutes),
  event("SubagentStop", "turn.finish.before", tenMinutes),
  event("SessionStart", "session.start", tenMinutes),
  event("SubagentStart", "session.start", tenMinutes),
  event("SessionEnd", "session.end", 1_000),
  event("PreCompact", "context.compact.before", tenMinutes, true),
  event("PostCompact", "context.compact.after", tenMinutes),
  event("Interrupt", "turn.end", 1_000),
  event("agent-turn-complete", "turn.end", tenMinutes, false, false)
])

/**
 * The events of a host.
 *
 * @since 0.1.0
 * @category accessors
 */
export const of = (host: HostName): Readonly<Record<string, HostEvent>> => host === "claude-code" ? claudeCode : codex

/**
 * One event of a host, if the host has it.
 *
 * @since 0.1.0
 * @category accessors
 */
export const find = (host: HostName, name: string): HostEvent | undefined => {
  const events = of(host)
  return Object.prototype.hasOwnProperty.call(events, name) ? events[name] : undefined
}

/**
 * The events that become AHP events.
 *
 * @since 0.1.0
 * @category accessors
 */
export const mapped = (host: HostName): ReadonlyArray<HostEvent> =>
  Object.values(of(host)).filter((e) => e.type !== undefined)

/**
 * The events a hook entry is installed for: those that become AHP events and come from the
 * settings' hook entries.
 *
 * @since 0.1.0
 * @category accessors
 */
export const installed = (host: HostName): ReadonlyArray<HostEvent> => mapped(host).filter((e) => e.hook)

/**
 * The event name of a payload: its `hook_event_name`, else its `type` (the legacy `notify`
 * payload of Codex).
 *
 * @since 0.1.0
 * @category accessors
 */
export const nameOf = (payload: unknown): string | undefined => {
  if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return undefined
  const { hook_event_name, type } = payload as Record<string, unknown>
  return typeof hook_event_name === "string" ? hook_event_name : typeof type === "string" ? type : undefined
}
