/**
 * Building a host's output object from a verdict: the universal fields (`continue`,
 * `stopReason`, `systemMessage`) and `hookSpecificOutput`, shared by the hosts. A renderer
 * returns the event's own fields and the notices it could not express as the host's
 * fields; notices are shown to the user through `systemMessage` and on stderr.
 *
 * @internal
 */
import type { Json } from "@effect-ahp/protocol"
import * as Host from "../Host.js"
import type * as HostEvents from "../HostEvents.js"

/** What one event's renderer produced. @internal */
export interface Rendered {
  /** Top-level fields (`decision`, `reason`, `continue`, …). */
  readonly top?: Json.JsonObject
  /** `hookSpecificOutput` fields, without `hookEventName`. */
  readonly specific?: Json.JsonObject
  /** What the host cannot express, for the user. */
  readonly notices?: ReadonlyArray<string>
  /** Whether the verdict's `flow stop` and messages are rendered (false for events without decision control). */
  readonly universal?: boolean
  /** Whether the renderer placed the verdict's messages itself (they are then not a `systemMessage`). */
  readonly ownMessages?: boolean
}

/** A renderer for one host event. @internal */
export type Renderer = (verdict: Host.Verdict, payload: Json.JsonObject | undefined) => Rendered

/** The continuation reason when no backend gave an instruction. @internal */
export const defaultInstruction = "A policy asked to continue before stopping."

/** The instruction of a continuation. @internal */
export const instructionOf = (verdict: Host.Verdict): string =>
  verdict.instructions.length > 0 ? verdict.instructions.join("\n\n") : defaultInstruction

/** The reason of a denial. @internal */
export const reasonOf = (verdict: Host.Verdict): string => verdict.reason ?? "Denied by policy"

/** `additionalContext` when context was injected. @internal */
export const context = (verdict: Host.Verdict): Json.JsonObject =>
  verdict.context === undefined ? {} : { additionalContext: verdict.context }

/**
 * The renderers both hosts share (Codex copies Claude Code's output for these events):
 * a prompt denied with `decision: "block"`, a continuation as `decision: "block"` with the
 * instructions as `reason`, context as `additionalContext`.
 *
 * @internal
 */
export const shared: Readonly<Record<string, Renderer>> = {
  UserPromptSubmit: (v) => ({
    top: v.permission === "deny" ? { decision: "block", reason: reasonOf(v) } : {},
    specific: context(v)
  }),
  Stop: (v) => ({ top: v.flow === "continue" ? { decision: "block", reason: instructionOf(v) } : {} }),
  SubagentStop: (v) => ({ top: v.flow === "continue" ? { decision: "block", reason: instructionOf(v) } : {} }),
  SessionStart: (v) => ({ specific: context(v) }),
  SubagentStart: (v) => ({ specific: context(v) })
}

/** Renders a verdict with a host's renderers, or `undefined` output for "no opinion". @internal */
export const render = (
  host: { readonly title: string; readonly empty: string },
  renderers: Readonly<Record<string, Renderer>>,
  event: HostEvents.HostEvent,
  verdict: Host.Verdict,
  payload: Json.JsonObject | undefined
): Host.Answer => {
  const renderer = Object.prototype.hasOwnProperty.call(renderers, event.name) ? renderers[event.name]! : undefined
  const rendered: Rendered = renderer === undefined ? { universal: false } : renderer(verdict, payload)
  const notices = [...(rendered.notices ?? [])]
  if (verdict.permission === "deny" && !event.blocking) {
    notices.push(
      `${
        verdict.synthetic ? "a fail-closed policy backend failed" : "a policy denied"
      } at ${event.name}, which ${host.title} does not let a hook block`
    )
  }
  const universal = rendered.universal !== false
  const messages = [
    ...(universal && rendered.ownMessages !== true ? verdict.messages : []),
    ...notices.map((n) => `ahp: ${n}`)
  ]
  const output: Record<string, Json.JsonValue> = { ...rendered.top }
  if (universal && verdict.flow === "stop") {
    output.continue = false
    output.stopReason = verdict.stopReason ?? "Stopped by policy"
  }
  if (messages.length > 0) output.systemMessage = messages.join("\n")
  if (rendered.specific !== undefined && Object.keys(rendered.specific).length > 0) {
    output.hookSpecificOutput = { hookEventName: event.name, ...rendered.specific }
  }
  return Host.answer(Object.keys(output).length === 0 ? undefined : output, host.empty, notices)
}

/** The "no opinion" answer, with a visible message when there is one. @internal */
export const noOpinion = (empty: string, message: string | undefined): Host.Answer =>
  message === undefined
    ? Host.answer(undefined, empty)
    : Host.answer({ systemMessage: `ahp: ${message}` }, empty, [message])
