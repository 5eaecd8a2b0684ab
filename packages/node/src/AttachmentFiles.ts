/**
 * File attachment sources on Node: the `Attachment.Files` service reads a file as a stream
 * of chunks (`node:fs`), opened only when the harness snapshots it and closed when the
 * snapshot ends, fails, stops at the byte budget or is interrupted.
 *
 * Only regular files are read: the file is opened non-blocking (a FIFO nobody writes never
 * holds a thread) and a FIFO, a device (`/dev/zero`), a socket or a folder fails the read
 * before a byte is taken. `layerWithin(root)` also confines the paths to a folder: a path is
 * resolved against `root`, and one whose real path (every symbolic link followed) is not
 * inside the real `root` fails, as does a final symbolic link swapped in after that check.
 * What a file holds while it changes is the harness's business: it reads once, within the
 * byte budget and the time bound, into a snapshot every receiver shares.
 *
 * @since 0.1.0
 */
import * as Attachment from "@effect-ahp/harness/Attachment"
import * as NodeStream from "@effect/platform-node/NodeStream"
import * as Layer from "effect/Layer"
import * as Stream from "effect/Stream"
import * as Fs from "node:fs"
import * as Path from "node:path"

const flags = Fs.constants.O_RDONLY | (Fs.constants.O_NONBLOCK ?? 0)

/** Opens `file` for reading when it is a regular file; else why not. */
const openRegular = (file: string, noFollow: boolean): number | string => {
  let fd: number
  try {
    fd = Fs.openSync(file, flags | (noFollow ? Fs.constants.O_NOFOLLOW ?? 0 : 0))
  } catch (error) {
    return (error as NodeJS.ErrnoException).code ?? "cannot be opened"
  }
  if (Fs.fstatSync(fd).isFile()) return fd
  Fs.closeSync(fd)
  return "not a regular file"
}

/** The real path of `file` (resolved against `root`) when it is inside the real `root`, else `undefined`. */
const inside = (root: string, file: string): string | undefined => {
  try {
    const realRoot = Fs.realpathSync(root)
    const real = Fs.realpathSync(Path.resolve(realRoot, file))
    const relative = Path.relative(realRoot, real)
    return relative !== "" && !relative.startsWith("..") && !Path.isAbsolute(relative) ? real : undefined
  } catch {
    return undefined
  }
}

const reader = (resolve: (path: string) => { readonly file: string; readonly noFollow: boolean } | string) =>
  Attachment.Files.of({
    stream: (path) =>
      Stream.suspend(() => {
        const target = resolve(path)
        const fd = typeof target === "string" ? target : openRegular(target.file, target.noFollow)
        return typeof fd === "string"
          ? Stream.fail(fd)
          : NodeStream.fromReadable(() => Fs.createReadStream("", { fd }), (error) => error)
      })
  })

/**
 * Reads attachment files with `node:fs`: regular files only.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer: Layer.Layer<Attachment.Files> = Layer.succeed(
  Attachment.Files,
  reader((path) => ({ file: path, noFollow: false }))
)

/**
 * Reads attachment files with `node:fs`, regular files inside `root` only (relative paths
 * are resolved against it; see the module's header).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerWithin = (root: string): Layer.Layer<Attachment.Files> =>
  Layer.succeed(
    Attachment.Files,
    reader((path) => {
      const real = inside(Path.resolve(root), path)
      return real === undefined ? `outside ${root}` : { file: real, noFollow: true }
    })
  )
