/**
 * Real files for the hook package's tests: a temporary folder removed with its scope, and
 * folders and files created with exactly the mode asked for, whatever the umask.
 */
import { Effect } from "effect"
import type { Scope } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"

/** A new private folder under the system's temporary folder, removed when the scope closes. */
export const tempDir: Effect.Effect<string, never, Scope.Scope> = Effect.acquireRelease(
  Effect.sync(() => fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "ahp-hook-")))),
  (dir) => Effect.sync(() => fs.rmSync(dir, { recursive: true, force: true }))
)

/** Creates a folder (and its parents) with exactly `mode`; returns its path. */
export const folder = (dir: string, mode = 0o755): string => {
  fs.mkdirSync(dir, { recursive: true })
  fs.chmodSync(dir, mode)
  return dir
}

/** Writes a file (JSON unless a string or bytes) with exactly `mode` in `dir`, created first; returns its path. */
export const file = (dir: string, name: string, content: unknown, mode = 0o644): string => {
  const target = path.join(folder(dir, fs.existsSync(dir) ? fs.statSync(dir).mode & 0o7777 : 0o755), name)
  fs.writeFileSync(
    target,
    typeof content === "string" || content instanceof Uint8Array ? content : JSON.stringify(content)
  )
  fs.chmodSync(target, mode)
  return target
}

/** The mode bits of a file or folder. */
export const modeOf = (target: string): number => fs.statSync(target).mode & 0o7777

/** This process's user id (0 where there are none). */
export const uid: number = process.getuid?.() ?? 0

/** Another user's id, for files that must count as someone else's. */
export const otherUid: number = uid + 1
