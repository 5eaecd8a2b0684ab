/**
 * Which registration files may be used, and the user's record of trusted project
 * registrations. Plain Node, no Effect: the command hook consults it on every call.
 *
 * Rules:
 * - A registration is used only if the file and every folder from it up to its trust root
 *   (the project root for a project registration, the home folder for the user's own) are
 *   owned by the user and writable by nobody else; a project registration, its `.ahp`
 *   folder and the folders up to the project root must not be symbolic links.
 * - A project registration runs only once the user has trusted that exact file: `ahp trust
 *   FILE` keeps the SHA-256 of its text under its real path in the trust file
 *   (`$XDG_STATE_HOME/ahp/trusted-registrations.json`, else
 *   `~/.local/state/ahp/trusted-registrations.json`: mode 0600 in a 0700 folder, replaced
 *   atomically). A file whose text changed is untrusted again.
 * - A trust file that is not the user's own, not private, a symbolic link, over the size
 *   limit or not a JSON object of digests trusts nothing.
 *
 * @since 0.1.0
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"

/** The largest trust file read (bytes). */
const maxTrustFileBytes = 1024 * 1024

/**
 * The user id whose files are trusted: this process's.
 *
 * @since 0.1.0
 * @category constants
 */
export const currentUid = ():
  | number
  | undefined => (typeof process.getuid === "function" ? process.getuid() : undefined)

/**
 * Why a file or folder may not be trusted (`undefined` when it may): not owned by `uid`, or
 * writable by group or others; a symbolic link when `noLinks`.
 *
 * @since 0.1.0
 * @category predicates
 */
export const ownershipProblem = (file: string, uid: number | undefined, noLinks: boolean): string | undefined => {
  let stat: fs.Stats
  try {
    stat = noLinks ? fs.lstatSync(file) : fs.statSync(file)
  } catch {
    return `${file} cannot be examined`
  }
  if (stat.isSymbolicLink()) return `${file} is a symbolic link`
  if (process.platform === "win32" || uid === undefined) return undefined
  if (stat.uid !== uid) return `${file} is owned by uid ${stat.uid}, not by you (uid ${uid})`
  const writers = [
    (stat.mode & 0o020) !== 0 ? "its group" : undefined,
    (stat.mode & 0o002) !== 0 ? "others" : undefined
  ]
    .filter((writer) => writer !== undefined)
  if (writers.length > 0) return `${file} is writable by ${writers.join(" and ")}`
  return undefined
}

/**
 * Why a registration may not be used (`undefined` when it may): the first of the file and
 * its folders up to `root` (included) that fails `ownershipProblem`.
 *
 * @since 0.1.0
 * @category predicates
 */
export const chainProblem = (
  file: string,
  root: string,
  uid: number | undefined,
  noLinks: boolean
): string | undefined => {
  const fileProblem = ownershipProblem(file, uid, noLinks)
  if (fileProblem !== undefined) return fileProblem
  for (let dir = path.dirname(file);; dir = path.dirname(dir)) {
    const problem = ownershipProblem(dir, uid, noLinks)
    if (problem !== undefined) return problem
    if (dir === root || path.dirname(dir) === dir || !isInside(dir, root)) return undefined
  }
}

const isInside = (dir: string, root: string): boolean => {
  const relative = path.relative(root, dir)
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative))
}

/**
 * Whether a folder is shared with other users (writable by others, or sticky like `/tmp`):
 * the registration lookup never looks there and never walks above it.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isShared = (dir: string): boolean => {
  if (process.platform === "win32") return false
  try {
    const mode = fs.statSync(dir).mode
    return (mode & 0o002) !== 0 || (mode & 0o1000) !== 0
  } catch {
    return true
  }
}

/**
 * The trust file: `$XDG_STATE_HOME/ahp/trusted-registrations.json`, else
 * `~/.local/state/ahp/trusted-registrations.json`.
 *
 * @since 0.1.0
 * @category paths
 */
export const trustFile = (env: Readonly<Record<string, string | undefined>>, home: string): string =>
  path.join(env.XDG_STATE_HOME || path.join(home, ".local", "state"), "ahp", "trusted-registrations.json")

/**
 * The trusted registrations: real path to the SHA-256 of the text trusted. Empty when the
 * trust file is missing or may not be trusted itself.
 *
 * @since 0.1.0
 * @category reading
 */
export const read = (file: string, uid: number | undefined = currentUid()): Readonly<Record<string, string>> => {
  if (ownershipProblem(file, uid, true) !== undefined) return {}
  if (ownershipProblem(path.dirname(file), uid, false) !== undefined) return {}
  try {
    const stat = fs.lstatSync(file)
    if (!stat.isFile() || stat.size > maxTrustFileBytes) return {}
    if (process.platform !== "win32" && (stat.mode & 0o077) !== 0) return {}
    const value: unknown = JSON.parse(fs.readFileSync(file, "utf8"))
    if (typeof value !== "object" || value === null || Array.isArray(value)) return {}
    const trusted: Record<string, string> = Object.create(null)
    for (const [key, digest] of Object.entries(value)) {
      if (typeof digest === "string" && /^[0-9a-f]{64}$/.test(digest)) trusted[key] = digest
    }
    return trusted
  } catch {
    return {}
  }
}

/**
 * The real path of a file (its given absolute path when it cannot be resolved).
 *
 * @since 0.1.0
 * @category paths
 */
export const realPath = (file: string): string => {
  try {
    return fs.realpathSync(file)
  } catch {
    return path.resolve(file)
  }
}

/**
 * The lowercase hex SHA-256 of a text.
 *
 * @since 0.1.0
 * @category digests
 */
export const digest = (text: string): string => createHash("sha256").update(text).digest("hex")

/**
 * Whether the user trusted this registration with exactly this text: `"Trusted"`,
 * `"Changed"` (trusted with another text) or `"Unknown"`.
 *
 * @since 0.1.0
 * @category reading
 */
export const status = (
  trusted: Readonly<Record<string, string>>,
  file: string,
  text: string
): "Trusted" | "Changed" | "Unknown" => {
  const recorded = trusted[realPath(file)]
  return recorded === undefined ? "Unknown" : recorded === digest(text) ? "Trusted" : "Changed"
}

/**
 * Replaces the trust file with these entries: written to a private temporary file in the
 * same 0700 folder, then renamed over it. Why it could not be written, else `undefined`.
 *
 * @since 0.1.0
 * @category writing
 */
export const write = (
  file: string,
  trusted: Readonly<Record<string, string>>,
  uid: number | undefined = currentUid()
): string | undefined => {
  const dir = path.dirname(file)
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 })
  } catch {
    return `cannot create ${dir}`
  }
  const dirProblem = ownershipProblem(dir, uid, false)
  if (dirProblem !== undefined) return dirProblem
  if (process.platform !== "win32" && (fs.statSync(dir).mode & 0o077) !== 0) {
    return `${dir} is not private (mode 0700 expected)`
  }
  const temporary = path.join(dir, `.trusted-registrations.${process.pid}.${Date.now()}.tmp`)
  try {
    const sorted = Object.fromEntries(Object.entries(trusted).sort(([a], [b]) => a.localeCompare(b)))
    fs.writeFileSync(temporary, `${JSON.stringify(sorted, null, 2)}\n`, { mode: 0o600, flag: "wx" })
    fs.renameSync(temporary, file)
    return undefined
  } catch {
    fs.rmSync(temporary, { force: true })
    return `cannot write ${file}`
  }
}
