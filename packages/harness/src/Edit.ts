/**
 * The modification algebra, pure. Lists: `replace` substitutes the whole list, `merge`
 * appends in order without deduplication. Objects: `replace` drops omitted members,
 * `merge` is shallow (nested values replaced whole, `null` a literal). Guards make sure an
 * edit never supplies hidden views, never introduces or alters an attachment, and only
 * writes content categories the subscription may read.
 *
 * @since 0.1.0
 */
import type { Content, HookEffect, Json, Registration } from "@effect-ahp/protocol"
import * as Either from "effect/Either"
import { categoryOf, selectionFor } from "./Projection.js"

/**
 * Applies a list operation.
 *
 * @since 0.1.0
 * @category combinators
 */
export const applyList = <A>(
  current: ReadonlyArray<A>,
  operation: HookEffect.ModifyOperation,
  value: ReadonlyArray<A>
): ReadonlyArray<A> => {
  if (operation === "replace") return value
  if (value.length === 0) return current
  return current.length === 0 ? value : [...current, ...value]
}

/**
 * Applies an object operation (shallow merge; `null` is a literal value).
 *
 * @since 0.1.0
 * @category combinators
 */
export const applyObject = (
  current: Json.JsonObject,
  operation: HookEffect.ModifyOperation,
  value: Json.JsonObject
): Json.JsonObject => operation === "replace" ? value : { ...current, ...value }

/**
 * One operation of a sequence, with its value.
 *
 * @since 0.1.0
 * @category models
 */
export type Operation<A> = readonly [operation: HookEffect.ModifyOperation, value: A]

/**
 * Applies a sequence of list operations in order: the result of `applyList` applied to
 * each in turn, in time linear in the sizes involved (merges append to one private copy).
 *
 * @since 0.1.0
 * @category combinators
 */
export const applyListAll = <A>(
  current: ReadonlyArray<A>,
  operations: ReadonlyArray<Operation<ReadonlyArray<A>>>
): ReadonlyArray<A> => {
  let base = current
  let out: Array<A> | undefined
  for (const [operation, value] of operations) {
    if (operation === "replace") {
      base = value
      out = undefined
    } else if (value.length > 0) {
      if (out === undefined && base.length === 0) {
        base = value
        continue
      }
      out ??= base.slice()
      for (const item of value) out.push(item)
    }
  }
  return out ?? base
}

/** Sets an own member; `__proto__` is defined (an assignment would set the prototype). */
const defineOwn = (target: Record<string, Json.JsonValue>, key: string, value: Json.JsonValue): void => {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  } else target[key] = value
}

/**
 * Applies a sequence of object operations in order: the result of `applyObject` applied
 * to each in turn, in time linear in the sizes involved (merges write into one private
 * copy).
 *
 * @since 0.1.0
 * @category combinators
 */
export const applyObjectAll = (
  current: Json.JsonObject,
  operations: ReadonlyArray<Operation<Json.JsonObject>>
): Json.JsonObject => {
  let base = current
  let out: Record<string, Json.JsonValue> | undefined
  for (const [operation, value] of operations) {
    if (operation === "replace") {
      base = value
      out = undefined
    } else {
      out ??= { ...base }
      for (const key of Object.keys(value)) defineOwn(out, key, value[key]!)
    }
  }
  return out ?? base
}

/**
 * Why an edit value is refused.
 *
 * @since 0.1.0
 * @category models
 */
export interface EditProblem {
  readonly code: "attachment-edit" | "unauthorized-content" | "invalid-value"
  /** JSON Pointer inside the supplied value. */
  readonly path: string
  readonly detail: string
}

/**
 * The attachments of a message or part list, by id: what an edit of that list may keep.
 *
 * @since 0.1.0
 * @category guards
 */
export const attachmentsOf = (current: ReadonlyArray<Content.Message | Content.Part>): Map<string, Content.Part> => {
  const found = new Map<string, Content.Part>()
  const visit = (part: Content.Part) => {
    if (part.kind === "attachment") found.set(part.id, part)
  }
  for (const item of current) {
    if ("parts" in item) item.parts.forEach(visit)
    else visit(item)
  }
  return found
}

/**
 * Whether a kept attachment names the body the receiver was shown: the reference it was
 * published with (`references`, when given), else the existing part's own.
 */
const sameBody = (
  incoming: Content.Part,
  existing: Content.Part,
  references: ReadonlyMap<string, string> | undefined
): boolean => {
  if (!("body" in incoming)) return true
  if (references !== undefined) return references.get(existing.id) === incoming.body.ref
  return "body" in existing && incoming.body.ref === existing.body.ref
}

/**
 * Checks the parts of a supplied value and resolves attachment references: an attachment
 * is accepted only if it is an existing attachment of the target (same id and media type,
 * and, if a body reference is given, the one the receiver was shown — `references`, by
 * part id, when the receiver's view carried its own) and is replaced by that existing
 * part, so an edit can never substitute a reference; text must be a text body in a
 * category the subscription can read.
 *
 * @since 0.1.0
 * @category guards
 */
export const checkParts = (
  parts: ReadonlyArray<Content.Part>,
  pointer: string,
  options: {
    readonly attachmentsAllowed: boolean
    readonly attachments: ReadonlyMap<string, Content.Part>
    readonly selection: Registration.ContentSelection
    readonly references?: ReadonlyMap<string, string> | undefined
  }
): Either.Either<ReadonlyArray<Content.Part>, EditProblem> => {
  let out: Array<Content.Part> | undefined
  for (let i = 0; i < parts.length; i++) {
    const part = parts[i]!
    const path = `${pointer}/${i}`
    let resolved = part
    if (part.kind === "attachment") {
      const existing = options.attachments.get(part.id)
      if (!options.attachmentsAllowed) {
        return Either.left({ code: "attachment-edit", path, detail: "this target takes text parts only" })
      }
      if (
        existing === undefined || existing.mediaType !== part.mediaType || !sameBody(part, existing, options.references)
      ) {
        return Either.left({
          code: "attachment-edit",
          path,
          detail: "an edit may keep an existing attachment unchanged but never add or alter one"
        })
      }
      resolved = existing
    } else {
      if (part.selection !== "body" || "gap" in part) {
        return Either.left({
          code: "invalid-value",
          path,
          detail: "an edit must supply text inline, not a hidden view"
        })
      }
      if (selectionFor(options.selection, categoryOf(part)) !== "body") {
        return Either.left({
          code: "unauthorized-content",
          path,
          detail: `the subscription cannot read content of category ${categoryOf(part)}`
        })
      }
    }
    if (resolved !== part && out === undefined) out = parts.slice(0, i)
    if (out !== undefined) out.push(resolved)
  }
  return Either.right(out ?? parts)
}

/**
 * Checks and resolves a supplied message list against the current target, or against the
 * attachments it holds (`attachmentsOf`); `references` are those the receiver was shown.
 *
 * @since 0.1.0
 * @category guards
 */
export const checkMessages = (
  value: ReadonlyArray<Content.Message>,
  current: ReadonlyArray<Content.Message> | ReadonlyMap<string, Content.Part>,
  selection: Registration.ContentSelection,
  references?: ReadonlyMap<string, string>
): Either.Either<ReadonlyArray<Content.Message>, EditProblem> => {
  const attachments = Array.isArray(current) ? attachmentsOf(current) : current as ReadonlyMap<string, Content.Part>
  let out: Array<Content.Message> | undefined
  for (let i = 0; i < value.length; i++) {
    const message = value[i]!
    const parts = checkParts(message.parts, `/${i}/parts`, {
      attachmentsAllowed: true,
      attachments,
      selection,
      references
    })
    if (Either.isLeft(parts)) return Either.left(parts.left)
    const resolved = parts.right === message.parts ? message : { ...message, parts: parts.right }
    if (resolved !== message && out === undefined) out = value.slice(0, i)
    if (out !== undefined) out.push(resolved)
  }
  return Either.right(out ?? value)
}

/**
 * Checks a supplied text-part list (attachments are never allowed).
 *
 * @since 0.1.0
 * @category guards
 */
export const checkTextParts = (
  value: ReadonlyArray<Content.Part>,
  selection: Registration.ContentSelection
): Either.Either<ReadonlyArray<Content.Part>, EditProblem> =>
  checkParts(value, "", { attachmentsAllowed: false, attachments: new Map(), selection })
