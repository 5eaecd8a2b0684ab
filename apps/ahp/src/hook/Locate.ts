/**
 * Where the command hook finds things, without loading the harness: the registration (in
 * the documented lookup order), the cache of compiled registrations, and the bridge's
 * socket. Plain Node, no Effect: this runs on every tool call before anything else.
 *
 * Registration lookup order:
 * 1. `--registration FILE` (relative to the hook's working directory);
 * 2. the `AHP_REGISTRATION_FILE` environment variable;
 * 3. the project default `.ahp/registration.json`, looked for in the project directory
 *    (`CLAUDE_PROJECT_DIR`, else the payload's `cwd`, else the working directory) and then in
 *    each parent directory;
 * 4. the user default `~/.ahp/registration.json`.
 *
 * A file named by 1 or 2 that cannot be read is an error, not a reason to look further.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { errorCode } from "../internal/errno.js"
import { maxInputBytes } from "../internal/limits.js"
import { decodeStrict } from "../internal/utf8.js"

/**
 * The environment variable naming the registration file.
 *
 * @since 0.1.0
 * @category constants
 */
export const registrationVariable = "AHP_REGISTRATION_FILE"

/**
 * The project and user default, relative to a directory.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultRegistration = path.join(".ahp", "registration.json")

/**
 * Where the registration was looked for, and what was found.
 *
 * @since 0.1.0
 * @category models
 */
export type Located =
  | { readonly _tag: "Found"; readonly file: string; readonly text: string }
  | { readonly _tag: "Unreadable"; readonly file: string; readonly reason: string }
  | { readonly _tag: "Missing"; readonly searched: ReadonlyArray<string> }

const describe = (error: unknown): string => {
  const code = errorCode(error) ?? ""
  switch (code) {
    case "ENOENT":
      return "no such file"
    case "EACCES":
    case "EPERM":
      return "permission denied"
    case "EISDIR":
      return "is a directory"
    default:
      return code === "" ? "cannot be read" : code
  }
}

const tooLarge = { problem: `larger than the ${maxInputBytes / 1024 / 1024} MiB input limit` }

/** The file's text when it is a regular file of at most `maxInputBytes` in UTF-8, else why not (the first ill-formed byte named). */
const readBounded = (fd: number): string | { readonly problem: string } => {
  const stats = fs.fstatSync(fd)
  if (stats.isDirectory()) return { problem: "is a directory" }
  if (!stats.isFile()) return { problem: "not a regular file" }
  if (stats.size > maxInputBytes) return tooLarge
  // read to its end, which may have moved since: never more than the limit and one byte
  const chunks: Array<Buffer> = []
  let total = 0
  for (let read = -1; read !== 0 && total <= maxInputBytes;) {
    const chunk = Buffer.allocUnsafe(Math.min(Math.max(stats.size, 65_536), maxInputBytes + 1 - total))
    read = fs.readSync(fd, chunk, 0, chunk.length, null)
    chunks.push(chunk.subarray(0, read))
    total += read
  }
  if (total > maxInputBytes) return tooLarge
  const decoded = decodeStrict(Buffer.concat(chunks, total))
  return "text" in decoded ? decoded.text : { problem: `not valid UTF-8 (${decoded.invalid})` }
}

/**
 * Reads a registration file without blocking on it: opened non-blocking (a FIFO nobody
 * writes is refused, not waited for), a regular file only, bounded in size, strict UTF-8.
 */
const read = (file: string): Located => {
  let fd: number | undefined
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NONBLOCK ?? 0))
    const text = readBounded(fd)
    return typeof text === "string"
      ? { _tag: "Found", file, text }
      : { _tag: "Unreadable", file, reason: text.problem }
  } catch (error) {
    return { _tag: "Unreadable", file, reason: describe(error) }
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/**
 * What the lookup depends on.
 *
 * @since 0.1.0
 * @category models
 */
export interface Context {
  readonly flag: string | undefined
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  /** The `cwd` of the hook payload, when it has one. */
  readonly payloadCwd: string | undefined
  readonly home: string
}

/**
 * Finds and reads the registration.
 *
 * @since 0.1.0
 * @category lookup
 */
export const registration = (context: Context): Located => {
  if (context.flag !== undefined) return read(path.resolve(context.cwd, context.flag))
  const fromEnv = context.env[registrationVariable]
  if (fromEnv !== undefined && fromEnv !== "") return read(path.resolve(context.cwd, fromEnv))
  const searched: Array<string> = []
  let dir = path.resolve(context.cwd, context.env.CLAUDE_PROJECT_DIR || context.payloadCwd || ".")
  for (;;) {
    const candidate = path.join(dir, defaultRegistration)
    searched.push(candidate)
    if (fs.existsSync(candidate)) return read(candidate)
    const parent = path.dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  const user = path.join(context.home, defaultRegistration)
  if (!searched.includes(user)) {
    searched.push(user)
    if (fs.existsSync(user)) return read(user)
  }
  return { _tag: "Missing", searched }
}

/**
 * The lowercase hex SHA-256 of a text.
 *
 * @since 0.1.0
 * @category digests
 */
export const sha256 = (text: string): string => createHash("sha256").update(text).digest("hex")

/**
 * The folder of the compiled-registration cache: `AHP_CACHE_DIR`, else
 * `$XDG_CACHE_HOME/effect-ahp`, else `~/.cache/effect-ahp`.
 *
 * @since 0.1.0
 * @category paths
 */
export const cacheDir = (env: Readonly<Record<string, string | undefined>>, home: string): string =>
  env.AHP_CACHE_DIR || path.join(env.XDG_CACHE_HOME || path.join(home, ".cache"), "effect-ahp")

const uid = () => (typeof process.getuid === "function" ? process.getuid() : 0)

/**
 * The folder of the bridge's sockets: `$XDG_RUNTIME_DIR/effect-ahp`, else
 * `<tmpdir>/effect-ahp-<uid>`.
 *
 * @since 0.1.0
 * @category paths
 */
export const runtimeDir = (env: Readonly<Record<string, string | undefined>>): string =>
  env.XDG_RUNTIME_DIR ? path.join(env.XDG_RUNTIME_DIR, "effect-ahp") : path.join(os.tmpdir(), `effect-ahp-${uid()}`)

/**
 * The socket of the bridge serving a registration file: `AHP_BRIDGE_SOCKET`, else one
 * socket per registration (named after the digest of its real path) in the runtime folder.
 *
 * @since 0.1.0
 * @category paths
 */
export const socketPath = (file: string, env: Readonly<Record<string, string | undefined>>): string => {
  if (env.AHP_BRIDGE_SOCKET) return env.AHP_BRIDGE_SOCKET
  let real = file
  try {
    real = fs.realpathSync(file)
  } catch {
    // an unreadable file keeps its given path; the bridge resolves the same way
  }
  return path.join(runtimeDir(env), `bridge-${sha256(real).slice(0, 16)}.sock`)
}

/**
 * Whether a folder is private to this user (owned by it, no access for others), as the
 * cache and the sockets must be before they are trusted.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isPrivateDir = (dir: string): boolean => {
  try {
    const stat = fs.statSync(dir)
    return stat.isDirectory() && (process.platform === "win32" || (stat.uid === uid() && (stat.mode & 0o077) === 0))
  } catch {
    return false
  }
}

/**
 * Creates a private folder (mode 0700) if it does not exist; whether it is private.
 *
 * @since 0.1.0
 * @category paths
 */
export const ensurePrivateDir = (dir: string): boolean => {
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  } catch {
    return false
  }
  return isPrivateDir(dir)
}
