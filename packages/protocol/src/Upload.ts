/**
 * The attachment upload receipt: the only confirmation of an upload (HTTP 201).
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { closed, NonEmpty, NonNegativeInt, Sha256 } from "./Common.js"

/**
 * `{ ref, size, sha256 }` and nothing else; the sender checks size and digest against
 * the bytes it sent before publishing only `{ ref }`.
 *
 * @since 0.1.0
 * @category schemas
 */
export const Receipt = Schema.Struct({ ref: NonEmpty, size: NonNegativeInt, sha256: Sha256 })
  .annotations({ identifier: "ContentUploadReceipt", ...closed })

/**
 * @since 0.1.0
 * @category models
 */
export type Receipt = typeof Receipt.Type
