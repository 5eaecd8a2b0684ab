/**
 * Canonical content: messages made of ordered, selection-aware parts. Text is inline;
 * only immutable non-text, non-JSON media attachments travel as body references.
 * Parts and messages are closed objects (an unknown member is an error).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { closed, NonEmpty, NonNegativeInt, optional, Sha256, synthesized } from "./Common.js"

const strict = closed

/**
 * How much of a part a subscription receives: the body, only metadata, or nothing.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Selection = Schema.Literal("body", "metadata", "omit")

/**
 * @since 0.1.0
 * @category models
 */
export type Selection = typeof Selection.Type

/**
 * Canonical message roles.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Role = Schema.Literal("system", "developer", "user", "assistant", "tool")

/**
 * @since 0.1.0
 * @category models
 */
export type Role = typeof Role.Type

/**
 * Why a requested body is missing.
 *
 * @since 0.1.0
 * @category schemas
 */
export const PartGap = Schema.Struct({
  reason: NonEmpty,
  path: optional(NonEmpty)
}).annotations({ identifier: "PartGap", ...strict })

/**
 * A receiver-allocated immutable content reference: only `ref`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Reference = Schema.Struct({ ref: NonEmpty }).annotations({ identifier: "ContentReference", ...strict })

const attachmentMediaTypePattern = /^(?:[Tt][Ee][Xx][Tt]\/|[^/]+\/(?:[^;]+\+)?[Jj][Ss][Oo][Nn](?:;|$))/

/**
 * Whether a media type may be carried as an attachment (not text, not JSON or `+json`).
 *
 * @since 0.1.0
 * @category refinements
 */
export const isAttachmentMediaType = (mediaType: string): boolean =>
  mediaType.length > 0 && !attachmentMediaTypePattern.test(mediaType)

const AttachmentMediaType = Schema.String.pipe(
  Schema.filter(isAttachmentMediaType, {
    message: () => "an attachment media type must be non-empty and neither text/* nor JSON (text stays inline)"
  })
).annotations({ arbitrary: () => (fc) => fc.constantFrom("image/png", "audio/wav", "application/pdf", "video/mp4") })

const common = {
  id: NonEmpty,
  category: optional(NonEmpty),
  synthesized
}
const disclosed = {
  size: optional(NonNegativeInt),
  sha256: optional(Sha256)
}
const text = { kind: Schema.Literal("text"), mediaType: Schema.Literal("text/plain") }
const attachment = { kind: Schema.Literal("attachment"), mediaType: AttachmentMediaType }

const textBodyFields = { ...common, ...text, selection: Schema.Literal("body"), text: Schema.String }

/**
 * The schema of a text part with its text inline: an interface, so that declarations name it
 * instead of spelling its members out wherever a message appears.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface TextBody extends Schema.Struct<typeof textBodyFields> {}

/**
 * A text part with its text inline.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextBody: TextBody = Schema.Struct(textBodyFields).annotations({ identifier: "TextBodyPart", ...strict })

const textGapFields = {
  ...common,
  ...text,
  ...disclosed,
  selection: Schema.Literal("body"),
  gap: PartGap
}

/**
 * The schema of a text part whose requested body is missing: an interface, so that declarations name it
 * instead of spelling its members out wherever a message appears.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface TextGap extends Schema.Struct<typeof textGapFields> {}

/**
 * A text part whose requested body is missing.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextGap: TextGap = Schema.Struct(textGapFields).annotations({ identifier: "TextGapPart", ...strict })

const textMetadataFields = { ...common, ...text, ...disclosed, selection: Schema.Literal("metadata") }

/**
 * The schema of a text part delivered as metadata only: an interface, so that declarations name it
 * instead of spelling its members out wherever a message appears.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface TextMetadata extends Schema.Struct<typeof textMetadataFields> {}

/**
 * A text part delivered as metadata only.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextMetadata: TextMetadata = Schema.Struct(textMetadataFields).annotations({
  identifier: "TextMetadataPart",
  ...strict
})

const textOmittedFields = { ...common, ...text, ...disclosed, selection: Schema.Literal("omit") }

/**
 * The schema of a text part whose content is omitted: an interface, so that declarations name it
 * instead of spelling its members out wherever a message appears.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface TextOmitted extends Schema.Struct<typeof textOmittedFields> {}

/**
 * A text part whose content is omitted.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextOmitted: TextOmitted = Schema.Struct(textOmittedFields).annotations({
  identifier: "TextOmittedPart",
  ...strict
})

const attachmentBodyFields = {
  ...common,
  ...attachment,
  selection: Schema.Literal("body"),
  body: Reference
}

/**
 * The schema of an attachment with a ready body reference: an interface, so that declarations name it
 * instead of spelling its members out wherever a message appears.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface AttachmentBody extends Schema.Struct<typeof attachmentBodyFields> {}

/**
 * An attachment with a ready body reference.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AttachmentBody: AttachmentBody = Schema.Struct(attachmentBodyFields).annotations({
  identifier: "AttachmentBodyPart",
  ...strict
})

const attachmentGapFields = {
  ...common,
  ...attachment,
  ...disclosed,
  selection: Schema.Literal("body"),
  gap: PartGap
}

/**
 * The schema of an attachment whose requested body is missing: an interface, so that declarations name it
 * instead of spelling its members out wherever a message appears.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface AttachmentGap extends Schema.Struct<typeof attachmentGapFields> {}

/**
 * An attachment whose requested body is missing.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AttachmentGap: AttachmentGap = Schema.Struct(attachmentGapFields).annotations({
  identifier: "AttachmentGapPart",
  ...strict
})

const attachmentMetadataFields = {
  ...common,
  ...attachment,
  ...disclosed,
  selection: Schema.Literal("metadata")
}

/**
 * The schema of an attachment delivered as metadata only: an interface, so that declarations name it
 * instead of spelling its members out wherever a message appears.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface AttachmentMetadata extends Schema.Struct<typeof attachmentMetadataFields> {}

/**
 * An attachment delivered as metadata only.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AttachmentMetadata: AttachmentMetadata = Schema.Struct(attachmentMetadataFields).annotations({
  identifier: "AttachmentMetadataPart",
  ...strict
})

const attachmentOmittedFields = {
  ...common,
  ...attachment,
  ...disclosed,
  selection: Schema.Literal("omit")
}

/**
 * The schema of an attachment whose content is omitted: an interface, so that declarations name it
 * instead of spelling its members out wherever a message appears.
 *
 * @since 0.1.0
 * @category schemas
 */
export interface AttachmentOmitted extends Schema.Struct<typeof attachmentOmittedFields> {}

/**
 * An attachment whose content is omitted.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AttachmentOmitted: AttachmentOmitted = Schema.Struct(attachmentOmittedFields).annotations({
  identifier: "AttachmentOmittedPart",
  ...strict
})

/**
 * A text part in any view.
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextPart = Schema.Union(TextBody, TextGap, TextMetadata, TextOmitted).annotations({
  identifier: "TextPart"
})

/**
 * @since 0.1.0
 * @category models
 */
export type TextPart = typeof TextPart.Type

/**
 * An attachment part in any view.
 *
 * @since 0.1.0
 * @category schemas
 */
export const AttachmentPart = Schema.Union(AttachmentBody, AttachmentGap, AttachmentMetadata, AttachmentOmitted)
  .annotations({ identifier: "AttachmentPart" })

/**
 * @since 0.1.0
 * @category models
 */
export type AttachmentPart = typeof AttachmentPart.Type

/**
 * Any content part.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Part = Schema.Union(
  TextBody,
  TextGap,
  TextMetadata,
  TextOmitted,
  AttachmentBody,
  AttachmentGap,
  AttachmentMetadata,
  AttachmentOmitted
).annotations({ identifier: "Part" })

/**
 * @since 0.1.0
 * @category models
 */
export type Part = typeof Part.Type

/**
 * An ordered list of text parts (compaction instructions and summaries).
 *
 * @since 0.1.0
 * @category schemas
 */
export const TextParts = Schema.Array(TextPart)

/**
 * A canonical message: a role and ordered parts.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Message = Schema.Struct({
  id: NonEmpty,
  role: Role,
  parts: Schema.Array(Part),
  synthesized
}).annotations({ identifier: "Message", ...strict })

/**
 * @since 0.1.0
 * @category models
 */
export type Message = typeof Message.Type

/**
 * An ordered list of canonical messages.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Messages = Schema.Array(Message)

/**
 * Whether a part is text the receiver cannot see: a metadata or omitted view, or a gap.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isHiddenText = (part: Part): boolean =>
  part.kind === "text" && (part.selection !== "body" || "gap" in part)

/**
 * Whether any part of the messages is hidden text.
 *
 * @since 0.1.0
 * @category refinements
 */
export const hasHiddenText = (messages: ReadonlyArray<Message>): boolean =>
  messages.some((m) => m.parts.some(isHiddenText))
