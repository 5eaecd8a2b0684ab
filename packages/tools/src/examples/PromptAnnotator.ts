/**
 * The prompt annotator, an example policy backend. At `turn.start` it injects one
 * developer message into the model context (`inject context append`, delivered `now`, or
 * at the `next_turn` when only that is granted): the workspace policy the other examples
 * enforce, plus a reminder to prefer reversible steps when the prompt talks about
 * deleting or cleaning up. It never changes the user's prompt.
 *
 * @since 0.1.0
 */
import { Backend } from "@effect-ahp/backend"
import * as Brief from "@effect-ahp/hook/Brief"
import { Capabilities, type Content, type HookEffect } from "@effect-ahp/protocol"
import { Effect } from "effect"

/**
 * The policy note injected at every turn.
 *
 * @since 0.1.0
 * @category constants
 */
export const policyNote = "Workspace policy: destructive shell commands are blocked, risky ones need approval, " +
  "and secrets in tool output are masked."

/**
 * The reminder added when the prompt asks to delete or clean up.
 *
 * @since 0.1.0
 * @category constants
 */
export const cleanupNote = "The user asks to delete or clean up: list what will be removed before removing it."

/**
 * The note for a prompt text.
 *
 * @since 0.1.0
 * @category policy
 */
export const noteFor = (prompt: string): string =>
  /\b(?:delete|remove|clean(?:\s*up)?|wipe|purge|tidy)\b/i.test(prompt) ? `${policyNote} ${cleanupNote}` : policyNote

/**
 * The injected message for an event id and a note.
 *
 * @since 0.1.0
 * @category policy
 */
export const annotation = (eventId: string, note: string): Content.Message => ({
  id: `annotation-${eventId}`,
  role: "developer",
  parts: [{ id: `annotation-${eventId}-text`, kind: "text", mediaType: "text/plain", selection: "body", text: note }]
})

/**
 * The annotator as a backend layer (one `turn.start` intercept handler).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = Backend.intercept(
  "turn.start",
  (request) =>
    Effect.sync((): ReadonlyArray<Backend.EffectAt<"turn.start">> => {
      const note = noteFor(Brief.textOf(request.event.items as never))
      const candidates = (["now", "next_turn"] as const).map((deliverAt): HookEffect.Inject => ({
        type: "inject",
        target: "context",
        operation: "append",
        deliverAt,
        value: [annotation(request.event.id, note)]
      }))
      return candidates.filter((effect) => Capabilities.isGranted(request.capabilities, effect)).slice(0, 1)
    })
)
