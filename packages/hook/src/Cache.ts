/**
 * The command hook's cache of compiled registrations. Compiling a registration needs the
 * harness, which a tool call that no subscription selects must not load. After a
 * registration compiles for a host, the hook stores which host events it routes (and
 * whether a fail-closed subscription selects them) under the digest of the registration's
 * text, the host and this build. A later call with the same text answers "no opinion" for
 * the other events from that summary alone.
 *
 * Only valid registrations are cached, so an invalid one is compiled, and reported, on
 * every call. The cache lives in a private folder (see `Locate.cacheDir`); an entry that is
 * unreadable, malformed, or in a folder others can write is ignored. Plain Node, no Effect.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Locate from "./Locate.js"

/**
 * One host event's routes in a compiled registration.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly routes: number
  readonly failClosed: boolean
}

/**
 * The host events with at least one route.
 *
 * @since 0.1.0
 * @category models
 */
export type Summary = Readonly<Record<string, Entry>>

declare const __AHP_BUILD__: string | undefined

/**
 * This build's identity: set by the bundler, so a new build never trusts an older build's
 * summaries.
 *
 * @since 0.1.0
 * @category constants
 */
export const build: string = typeof __AHP_BUILD__ === "string" ? __AHP_BUILD__ : "source"

/**
 * The cache key of a registration text for a host.
 *
 * @since 0.1.0
 * @category keys
 */
export const key = (host: string, text: string): string => Locate.sha256(`${build}\u0000${host}\u0000${text}`)

const isEntry = (u: unknown): u is Entry =>
  typeof u === "object" && u !== null && typeof (u as Entry).routes === "number" &&
  typeof (u as Entry).failClosed === "boolean"

/**
 * The cached summary for a key, if there is a trustworthy one.
 *
 * @since 0.1.0
 * @category reading
 */
export const read = (dir: string, cacheKey: string): Summary | undefined => {
  if (!Locate.isPrivateDir(dir)) return undefined
  try {
    const value: unknown = JSON.parse(fs.readFileSync(path.join(dir, `${cacheKey}.json`), "utf8"))
    if (typeof value !== "object" || value === null || Array.isArray(value)) return undefined
    return Object.values(value).every(isEntry) ? value as Summary : undefined
  } catch {
    return undefined
  }
}

/**
 * Stores a summary (atomically; silently skipped when the folder cannot be made private).
 *
 * @since 0.1.0
 * @category writing
 */
export const write = (dir: string, cacheKey: string, summary: Summary): void => {
  if (!Locate.ensurePrivateDir(dir)) return
  const file = path.join(dir, `${cacheKey}.json`)
  const temporary = `${file}.${process.pid}.tmp`
  try {
    fs.writeFileSync(temporary, JSON.stringify(summary), { mode: 0o600 })
    fs.renameSync(temporary, file)
  } catch {
    fs.rmSync(temporary, { force: true })
  }
}
