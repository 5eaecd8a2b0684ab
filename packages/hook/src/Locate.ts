/**
 * Where the command hook finds things, without loading the harness: the registration (in
 * the documented lookup order, under the rules of `Trust`), the cache of compiled
 * registrations, and the bridge's socket. Plain Node, no Effect: this runs on every tool
 * call before anything else.
 *
 * Registration lookup order:
 * 1. `--registration FILE` (relative to the hook's working directory);
 * 2. the `AHP_REGISTRATION_FILE` environment variable;
 * 3. the project registration `.ahp/registration.json`, looked for from the project
 *    directory (`CLAUDE_PROJECT_DIR`, else the payload's `cwd`, else the working directory)
 *    up to the project root and no further: `CLAUDE_PROJECT_DIR` when set, else the git work
 *    tree holding the directory, else the directory itself; never in or above a shared
 *    folder (`Trust.isShared`, as `/tmp`: one there is reported, not used). The nearest one
 *    found is the only candidate, and
 *    it is used only when its chain of folders passes `Trust.chainProblem` and the user
 *    trusted its exact text (`ahp trust FILE`);
 * 4. the user's registration `~/.ahp/registration.json`.
 *
 * A project registration that is present but not used leaves the decision to the user's
 * registration (or to no registration at all) and is reported in the result's `notice`,
 * which the hook shows to the user: it is never used nor ignored silently.
 * A file named by 1, 2 or 4 that cannot be read, or that is not the user's alone (for 4:
 * with its folders up to the home folder), is an error, not a reason to look further.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { errorCode } from "./internal/errno.js"
import { maxInputBytes } from "./Limits.js"
import * as Trust from "./Trust.js"
import { decodeStrict } from "./Utf8.js"

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
  | { readonly _tag: "Found"; readonly file: string; readonly text: string; readonly notice?: string }
  | { readonly _tag: "Unreadable"; readonly file: string; readonly reason: string }
  | { readonly _tag: "Missing"; readonly searched: ReadonlyArray<string>; readonly notice?: string }

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
 *
 * @since 0.1.0
 * @category lookup
 */
export const read = (file: string): Exclude<Located, { readonly _tag: "Missing" }> => {
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
  /** The user whose files may be used (default: this process's). */
  readonly uid?: number | undefined
}

/** Reads a file whose chain of folders up to `root` must be the user's alone. */
const readOwned = (file: string, root: string, uid: number | undefined, noLinks: boolean): Located => {
  if (!lexists(file)) return read(file)
  const problem = Trust.chainProblem(file, root, uid, noLinks)
  return problem === undefined ? read(file) : { _tag: "Unreadable", file, reason: `not used: ${problem}` }
}

/** The git work tree holding `dir`, not looked for in or above a shared folder. */
const gitRoot = (dir: string): string | undefined => {
  for (let current = dir; !Trust.isShared(current); current = path.dirname(current)) {
    if (fs.existsSync(path.join(current, ".git"))) return current
    if (path.dirname(current) === current) return undefined
  }
  return undefined
}

/** Why the project registration found is not used, else `undefined`. */
const projectProblem = (located: Located, trusted: () => Readonly<Record<string, string>>): string | undefined => {
  if (located._tag === "Missing") return undefined
  if (located._tag === "Unreadable") {
    return `the project registration ${located.file} is ${
      located.reason.startsWith("not used: ") ? "" : "not used: "
    }${located.reason}`
  }
  switch (Trust.status(trusted(), located.file, located.text)) {
    case "Trusted":
      return undefined
    case "Changed":
      return `the project registration ${located.file} changed since you trusted it, so it is not used; review it, then run: ahp trust ${located.file}`
    case "Unknown":
      return `the project registration ${located.file} is not trusted, so it is not used; review it, then run: ahp trust ${located.file}`
  }
}

/**
 * Finds and reads the registration.
 *
 * @since 0.1.0
 * @category lookup
 */
export const registration = (context: Context): Located => {
  const uid = context.uid ?? Trust.currentUid()
  const explicit = (file: string) => {
    const problem = Trust.ownershipProblem(file, uid, false)
    return problem === undefined || !lexists(file)
      ? read(file)
      : { _tag: "Unreadable" as const, file, reason: `not used: ${problem}` }
  }
  if (context.flag !== undefined) return explicit(path.resolve(context.cwd, context.flag))
  const fromEnv = context.env[registrationVariable]
  if (fromEnv !== undefined && fromEnv !== "") return explicit(path.resolve(context.cwd, fromEnv))
  const searched: Array<string> = []
  const user = path.join(context.home, defaultRegistration)
  const start = Trust.realPath(path.resolve(context.cwd, context.env.CLAUDE_PROJECT_DIR || context.payloadCwd || "."))
  const root = context.env.CLAUDE_PROJECT_DIR ? start : gitRoot(start) ?? start
  let project: Located = { _tag: "Missing", searched }
  for (let dir = start;; dir = path.dirname(dir)) {
    const candidate = path.join(dir, defaultRegistration)
    if (candidate === user) break
    if (Trust.isShared(dir)) {
      if (lexists(candidate)) {
        project = { _tag: "Unreadable", file: candidate, reason: `not used: ${sharedProblem(dir)}` }
      }
      break
    }
    searched.push(candidate)
    if (lexists(candidate)) {
      project = readOwned(candidate, root, uid, true)
      break
    }
    if (dir === root || path.dirname(dir) === dir) break
  }
  const notice = projectProblem(project, () => Trust.read(Trust.trustFile(context.env, context.home), uid))
  if (project._tag === "Found" && notice === undefined) return project
  searched.push(user)
  const personal = lexists(user) ? readOwned(user, context.home, uid, false) : { _tag: "Missing" as const, searched }
  if (notice === undefined) return personal
  switch (personal._tag) {
    case "Found":
      return { ...personal, notice }
    case "Missing":
      return { ...personal, notice: `${notice} (and there is no user registration ${user})` }
    case "Unreadable":
      return { ...personal, reason: `${personal.reason}; and ${notice}` }
  }
}

const sharedProblem = (dir: string): string => `${dir} is a shared folder (writable by others or sticky)`

const lexists = (file: string): boolean => {
  try {
    fs.lstatSync(file)
    return true
  } catch {
    return false
  }
}

/**
 * The lowercase hex SHA-256 of a text.
 *
 * @since 0.1.0
 * @category digests
 */
export const sha256 = (text: string): string => Trust.digest(text)

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
