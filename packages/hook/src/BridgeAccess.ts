/**
 * Who may call `ahp bridge`: only its hosts, never a web page the user opens.
 *
 * Rules, checked on every request before its body is read or any backend runs:
 * - a request carrying an `Origin` header comes from a browser: 403;
 * - over TCP, the `Host` header must name the loopback address and port the request arrived
 *   on (`127.0.0.1:PORT`, `[::1]:PORT`, or `localhost:PORT`), so a DNS-rebinding page's
 *   own host name is refused: 421;
 * - over TCP, the `X-AHP-Bridge-Secret` header must carry the bridge's secret (compared in
 *   constant time): 401. The secret is `AHP_BRIDGE_SECRET` when set (at least 32
 *   characters), else generated at start and written, mode 0600, to a file in the bridge's
 *   private runtime folder; it is never printed or logged;
 * - the content type must be `application/json` (a browser's "simple" cross-site POST
 *   cannot send it without a preflight): 415.
 * Over the local socket the folder does the job (mode 0700, owned by the user), so the
 * `Host` and secret rules do not apply there.
 *
 * @since 0.1.0
 */
import * as FileSystem from "@effect/platform/FileSystem"
import { Effect, Option } from "effect"
import { randomBytes, timingSafeEqual } from "node:crypto"
import * as path from "node:path"
import * as Locate from "./Locate.js"

/**
 * The header carrying the bridge's secret.
 *
 * @since 0.1.0
 * @category constants
 */
export const secretHeader = "x-ahp-bridge-secret"

/**
 * The environment variable that may give the bridge's secret (and that Claude Code's `http`
 * hook entry passes as the header).
 *
 * @since 0.1.0
 * @category constants
 */
export const secretVariable = "AHP_BRIDGE_SECRET"

/** The shortest secret accepted from the environment. */
const minSecretLength = 32

/**
 * Why a request is refused, with its HTTP status.
 *
 * @since 0.1.0
 * @category models
 */
export interface Refusal {
  readonly status: number
  readonly reason: string
}

/**
 * Where a request arrived: the local TCP address and port, or `undefined` for the socket.
 *
 * @since 0.1.0
 * @category models
 */
export type Arrival = { readonly address: string; readonly port: number } | undefined

const single = (value: string | ReadonlyArray<string> | undefined): string | undefined =>
  typeof value === "string" ? value : undefined

const sameSecret = (given: string, secret: string): boolean => {
  const a = Buffer.from(given, "utf8")
  const b = Buffer.from(secret, "utf8")
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * Why the bridge refuses a request with these headers, arriving there (`undefined` when it
 * is served).
 *
 * @since 0.1.0
 * @category predicates
 */
export const refusal = (
  headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>,
  arrival: Arrival,
  secret: string
): Refusal | undefined => {
  if (headers.origin !== undefined) return { status: 403, reason: "a request with an Origin header (a web page)" }
  if (arrival !== undefined) {
    const host = single(headers.host)?.toLowerCase()
    const address = arrival.address.includes(":") ? `[${arrival.address}]` : arrival.address
    const allowed = [`${address}:${arrival.port}`, `localhost:${arrival.port}`]
    if (host === undefined || !allowed.includes(host)) {
      return { status: 421, reason: `a Host header that is not ${allowed.join(" or ")}` }
    }
    const given = single(headers[secretHeader])
    if (given === undefined || !sameSecret(given, secret)) {
      return { status: 401, reason: `a missing or wrong ${secretHeader} header` }
    }
  }
  const mediaType = single(headers["content-type"])?.split(";")[0]?.trim().toLowerCase()
  if (mediaType !== "application/json") return { status: 415, reason: "a content type that is not application/json" }
  return undefined
}

/**
 * The bridge's secret: `AHP_BRIDGE_SECRET` when set, else a new random one (`generated`);
 * a string is why there is none.
 *
 * @since 0.1.0
 * @category secrets
 */
export const secret = (
  env: Readonly<Record<string, string | undefined>>
): { readonly secret: string; readonly generated: boolean } | string => {
  const given = env[secretVariable]
  if (given === undefined || given === "") return { secret: randomBytes(32).toString("base64url"), generated: true }
  return given.length >= minSecretLength
    ? { secret: given, generated: false }
    : `${secretVariable} is shorter than ${minSecretLength} characters`
}

/**
 * Creates a folder (mode 0700) if it does not exist; whether it is private to this user:
 * a folder this user owns that others cannot open (the rule of `Locate.isPrivateDir`), as
 * the bridge's socket folder and secret folder must be.
 *
 * @since 0.1.0
 * @category secrets
 */
export const ensurePrivateDir = (dir: string): Effect.Effect<boolean, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.makeDirectory(dir, { recursive: true, mode: 0o700 }).pipe(
      Effect.zipRight(fs.stat(dir)),
      Effect.option
    )
    return Option.exists(info, (stat) =>
      stat.type === "Directory" &&
      (process.platform === "win32" ||
        (Option.contains(stat.uid, process.getuid?.() ?? 0) && (stat.mode & 0o077) === 0)))
  })

/**
 * Writes a generated secret to `file` (mode 0600, in a folder private to the user, an old
 * file replaced); fails with why it could not.
 *
 * @since 0.1.0
 * @category secrets
 */
export const writeSecret = (file: string, value: string): Effect.Effect<void, string, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    if (!(yield* ensurePrivateDir(path.dirname(file)))) {
      return yield* Effect.fail(`the folder ${path.dirname(file)} is not private to this user`)
    }
    const fs = yield* FileSystem.FileSystem
    yield* fs.remove(file, { force: true }).pipe(
      Effect.zipRight(fs.writeFileString(file, `${value}\n`, { mode: 0o600, flag: "wx" })),
      Effect.mapError(() => `cannot write ${file}`)
    )
  })

/**
 * The file holding a generated secret for the bridge on TCP port `port`.
 *
 * @since 0.1.0
 * @category paths
 */
export const secretFile = (env: Readonly<Record<string, string | undefined>>, port: number): string =>
  path.join(Locate.runtimeDir(env), `bridge-${port}.secret`)
