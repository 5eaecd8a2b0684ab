/**
 * Content selection: each subscription receives its own projection of the effective event.
 * Every part in a model-visible slot is shown as `body`, `metadata` or `omit` according to
 * the subscription's selection for the part's category (`default` for unlisted
 * categories); hidden text never leaves the harness; `native` is removed unless the
 * subscription asked for it. Projection shares unchanged structure with its input.
 *
 * The view also records what the subscription could not see, so edits can be authorized
 * against it: list targets holding hidden text (no whole-list replace) and unreadable
 * elicitation answers. A body-selected attachment is shown with the reference the
 * subscription's own upload receiver allocated (`references`, by part id), never with the
 * host's: without one it is listed in `pendingUploads` and shown as a gap, a view the
 * harness never publishes (the subscription's uploads run first, and their failure fails
 * the delivery).
 *
 * @since 0.1.0
 */
import type { Content, HookEffect, Json, Registration } from "@effect-ahp/protocol"
import type { Boundary } from "./Boundary.js"
import { getAt, updateAt } from "./internal/path.js"

/**
 * What a subscription asked to receive.
 *
 * @since 0.1.0
 * @category models
 */
export interface Subscriber {
  readonly content: Registration.ContentSelection
  readonly includeNative: boolean
}

/**
 * One subscription's view of the event.
 *
 * @since 0.1.0
 * @category models
 */
export interface View {
  readonly event: Json.JsonObject
  /** List targets whose projected value contains text the subscription cannot see. */
  readonly hiddenTextTargets: ReadonlySet<HookEffect.ModifyTarget>
  /** Targets the subscription cannot read at all (an elicitation answer without body). */
  readonly unreadableTargets: ReadonlySet<HookEffect.ModifyTarget>
  /** Body-selected attachments without a reference for this subscription: they need an upload. */
  readonly pendingUploads: ReadonlyArray<PendingUpload>
  /** The reference shown for each body-selected attachment, by part id. */
  readonly references: ReadonlyMap<string, string>
}

/**
 * A body-selected attachment that needs an upload: its part id and where it is.
 *
 * @since 0.1.0
 * @category models
 */
export interface PendingUpload {
  readonly id: string
  /** JSON Pointer of the part in the event. */
  readonly pointer: string
}

/**
 * The content category of a part: its explicit `category`, else derived from its media type.
 *
 * @since 0.1.0
 * @category accessors
 */
export const categoryOf = (part: { readonly category?: string | undefined; readonly mediaType: string }): string => {
  if (part.category !== undefined) return part.category
  const media = part.mediaType.toLowerCase()
  if (media.startsWith("text/")) return "text"
  if (media.startsWith("image/")) return "images"
  if (media.startsWith("audio/")) return "audio"
  if (media.startsWith("video/")) return "video"
  return "files"
}

/**
 * The selection a subscription has for a category.
 *
 * @since 0.1.0
 * @category accessors
 */
export const selectionFor = (selection: Registration.ContentSelection, category: string): Content.Selection => {
  const own = Object.prototype.hasOwnProperty.call(selection, category) ? selection[category] : undefined
  return own ?? selection.default
}

const rank: Record<Content.Selection, number> = { body: 2, metadata: 1, omit: 0 }

const isPart = (u: unknown): u is Content.Part =>
  typeof u === "object" && u !== null && "kind" in u && "mediaType" in u && "selection" in u

const isMessage = (u: unknown): u is Content.Message =>
  typeof u === "object" && u !== null && "parts" in u && Array.isArray((u as { parts: unknown }).parts)

/** The part's identity and media type with other view fields. */
const reshape = (part: Content.Part, fields: Record<string, unknown>): Content.Part => {
  const out: Record<string, unknown> = { id: part.id, kind: part.kind, mediaType: part.mediaType, ...fields }
  if (part.category !== undefined) out.category = part.category
  if (part.synthesized !== undefined) out.synthesized = part.synthesized
  return out as Content.Part
}

const view = (part: Content.Part, selection: "metadata" | "omit"): Content.Part => reshape(part, { selection })

const gap = (part: Content.Part, reason: string): Content.Part => reshape(part, { selection: "body", gap: { reason } })

/**
 * The reason given in the gap of an attachment whose upload is still pending (a view the
 * harness never publishes).
 *
 * @since 0.1.0
 * @category constants
 */
export const uploadPendingReason = "the attachment's upload is pending"

interface Walk {
  readonly subscriber: Subscriber
  readonly known: ReadonlyMap<string, string>
  readonly pendingUploads: Array<PendingUpload>
  /** Made when the first reference is shown (most events have no attachment). */
  references: Map<string, string> | undefined
}

const withReference = (part: Content.Part, ref: string): Content.Part =>
  reshape(part, { selection: "body", body: { ref } })

const projectPart = (part: Content.Part, pointer: string, walk: Walk): Content.Part => {
  const wanted = selectionFor(walk.subscriber.content, categoryOf(part))
  const current: Content.Selection = "gap" in part ? "body" : part.selection
  if (current !== "body" || "gap" in part) {
    return wanted !== "body" && rank[wanted] < rank[current] ? view(part, wanted) : part
  }
  if (wanted !== "body") return view(part, wanted)
  if (part.kind === "attachment") {
    const ref = walk.known.get(part.id)
    if (ref !== undefined) {
      walk.references ??= new Map()
      walk.references.set(part.id, ref)
      return withReference(part, ref)
    }
    walk.pendingUploads.push({ id: part.id, pointer })
    return gap(part, uploadPendingReason)
  }
  return part
}

const projectParts = (parts: ReadonlyArray<unknown>, pointer: string, walk: Walk): ReadonlyArray<unknown> => {
  let out: Array<unknown> | undefined
  parts.forEach((p, i) => {
    const next = isPart(p) ? projectPart(p, `${pointer}/${i}`, walk) : p
    if (next !== p && out === undefined) out = parts.slice()
    if (out !== undefined) out[i] = next
  })
  return out ?? parts
}

const projectItem = (item: unknown, pointer: string, walk: Walk): unknown => {
  if (isMessage(item)) {
    const parts = projectParts(item.parts, `${pointer}/parts`, walk)
    return parts === item.parts ? item : { ...item, parts }
  }
  return isPart(item) ? projectPart(item, pointer, walk) : item
}

const projectSlot = (value: unknown, pointer: string, walk: Walk): unknown => {
  if (!Array.isArray(value)) return projectItem(value, pointer, walk)
  let out: Array<unknown> | undefined
  value.forEach((item, i) => {
    const next = projectItem(item, `${pointer}/${i}`, walk)
    if (next !== item && out === undefined) out = value.slice()
    if (out !== undefined) out[i] = next
  })
  return out ?? value
}

const hasHiddenText = (value: unknown): boolean => {
  if (!Array.isArray(value)) return false
  return value.some((item) =>
    isMessage(item)
      ? item.parts.some((p) => isPart(p) && p.kind === "text" && (p.selection !== "body" || "gap" in p))
      : isPart(item) && item.kind === "text" && (item.selection !== "body" || "gap" in item)
  )
}

const none: ReadonlyMap<string, string> = new Map()

/** The targets of a view that has none hidden or unreadable (most views): one shared empty set. */
const noTargets: ReadonlySet<HookEffect.ModifyTarget> = new Set()

/**
 * Projects an effective event for one subscriber at a boundary; `references` holds the
 * references the subscriber's uploads allocated, by part id.
 *
 * @since 0.1.0
 * @category constructors
 */
export const project = (
  boundary: Boundary,
  event: Json.JsonObject,
  subscriber: Subscriber,
  references: ReadonlyMap<string, string> = none
): View => {
  const walk: Walk = { subscriber, known: references, pendingUploads: [], references: undefined }
  let projected: unknown = event
  for (const slot of boundary.content) {
    projected = updateAt(projected, slot, "", (v, pointer) => projectSlot(v, pointer, walk))
  }
  if (!subscriber.includeNative && "native" in (projected as object)) {
    const { native: _native, ...rest } = projected as Record<string, unknown>
    projected = rest
  }
  // Sets made only when a target is hidden or unreadable.
  let hiddenTextTargets: Set<HookEffect.ModifyTarget> | undefined
  let unreadableTargets: Set<HookEffect.ModifyTarget> | undefined
  for (const t of boundary.targets) {
    const value = getAt(projected, t.field)
    if ((t.value === "MessageList" || t.value === "TextPartList") && hasHiddenText(value)) {
      hiddenTextTargets ??= new Set()
      hiddenTextTargets.add(t.target)
    }
    if (t.value === "ElicitationAnswer") {
      const readable = isPart(value) && value.kind === "text" && value.selection === "body" && !("gap" in value)
      if (!readable) {
        unreadableTargets ??= new Set()
        unreadableTargets.add(t.target)
      }
    }
  }
  return {
    event: projected as Json.JsonObject,
    hiddenTextTargets: hiddenTextTargets ?? noTargets,
    unreadableTargets: unreadableTargets ?? noTargets,
    pendingUploads: walk.pendingUploads,
    references: walk.references ?? none
  }
}
