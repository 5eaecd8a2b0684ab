/**
 * File attachment sources on Node: the `Attachment.Files` service reads a file as a stream
 * of chunks (`node:fs`), opened only when the harness snapshots it and closed when the
 * snapshot ends, fails, stops at the byte budget or is interrupted.
 *
 * @since 0.1.0
 */
import * as Attachment from "@effect-ahp/harness/Attachment"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Layer from "effect/Layer"
import * as Fs from "node:fs"

/**
 * Reads attachment files with `node:fs`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Attachment.Files> = Layer.succeed(
  Attachment.Files,
  Attachment.Files.of({
    stream: (path) => NodeStream.fromReadable(() => Fs.createReadStream(path), (error) => error)
  })
)
