/**
 * The per-user store of OAuth tokens obtained by an interactive login
 * (`authorization_code_pkce`), keyed by issuer, protected resource and client. Values are
 * `Redacted` in memory; the file layer keeps them in one JSON file readable by its owner
 * only (mode 0600, in a directory of mode 0700), replaced atomically on every change; a
 * file that is a symbolic link, not the user's, or open to others is refused, never read.
 * Changes are serialized across processes too: several hook processes refreshing one login
 * at once take turns on a lock file beside it, so a rotated refresh token is used once.
 *
 * The file's location comes from `Config`: `AHP_OAUTH_TOKENS` when set, otherwise
 * `ahp/oauth-tokens.json` under `XDG_STATE_HOME`, otherwise under `HOME/.local/state`.
 *
 * @since 0.1.0
 */
import { Common, Decoder } from "@effect-ahp/protocol"
import * as Config from "effect/Config"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Ref from "effect/Ref"
import * as Schedule from "effect/Schedule"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs"
import * as path from "node:path"

/**
 * What a stored token is for.
 *
 * @since 0.1.0
 * @category models
 */
export interface Key {
  readonly issuer: string
  readonly resource: string
  readonly clientId: string
}

/**
 * A stored token.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry extends Key {
  readonly scopes: ReadonlyArray<string>
  readonly accessToken: Redacted.Redacted<string>
  readonly refreshToken: Redacted.Redacted<string> | undefined
  /** When the access token stops being used, in epoch milliseconds; none: until rejected. */
  readonly expiresAt: number | undefined
}

/**
 * The store could not be read or written. The message names the file, never a token.
 *
 * @since 0.1.0
 * @category errors
 */
export class TokenStoreError extends Schema.TaggedError<TokenStoreError>("@effect-ahp/node/TokenStoreError")(
  "TokenStoreError",
  {
    reason: Schema.Literal("location", "read", "write", "format", "locked", "insecure"),
    file: Common.optional(Schema.String)
  }
) {
  override get message(): string {
    const file = this.file ?? "the OAuth token file"
    switch (this.reason) {
      case "location":
        return "the OAuth token file location is not configured (set AHP_OAUTH_TOKENS, XDG_STATE_HOME or HOME)"
      case "read":
        return `${file} cannot be read`
      case "write":
        return `${file} cannot be written`
      case "format":
        return `${file} is not an OAuth token file`
      case "locked":
        return `${file} stayed locked by another process`
      case "insecure":
        return `${file} is not used: it is a symbolic link, not a regular file, not yours, readable or writable by others, or in a folder others may write`
    }
  }
}

/**
 * The token store.
 *
 * @since 0.1.0
 * @category tags
 */
export class TokenStore extends Context.Tag("@effect-ahp/node/TokenStore")<TokenStore, {
  readonly get: (key: Key) => Effect.Effect<Option.Option<Entry>, TokenStoreError>
  /** Adds or replaces the entry for its key. */
  readonly put: (entry: Entry) => Effect.Effect<void, TokenStoreError>
  /** Removes the entry for a key; succeeds with whether there was one. */
  readonly remove: (key: Key) => Effect.Effect<boolean, TokenStoreError>
  readonly list: Effect.Effect<ReadonlyArray<Entry>, TokenStoreError>
  /**
   * Runs `f` on the current entry for `key` while no other change runs (for the file store:
   * in no other process either) and stores the entry it returns, if any — for a refresh
   * that must see the token another process may just have refreshed.
   */
  readonly modify: <A, E, R>(
    key: Key,
    f: (current: Option.Option<Entry>) => Effect.Effect<readonly [A, Entry | undefined], E, R>
  ) => Effect.Effect<A, E | TokenStoreError, R>
}>() {}

/**
 * Whether two keys are the same.
 *
 * @since 0.1.0
 * @category utils
 */
export const sameKey = (a: Key, b: Key): boolean =>
  a.issuer === b.issuer && a.resource === b.resource && a.clientId === b.clientId

const StoredEntry = Schema.Struct({
  issuer: Schema.String,
  resource: Schema.String,
  clientId: Schema.String,
  scopes: Schema.Array(Schema.String),
  accessToken: Schema.String,
  refreshToken: Common.optional(Schema.String),
  expiresAt: Common.optional(Schema.Number)
})

const StoredFile = Schema.parseJson(Schema.Struct({ version: Schema.Literal(1), tokens: Schema.Array(StoredEntry) }))

const decodeFile = Decoder.lazy(() => Schema.decodeUnknownEither(StoredFile))
const encodeFile = Decoder.lazy(() => Schema.encodeSync(StoredFile))

const fromStored = (stored: typeof StoredEntry.Type): Entry => ({
  issuer: stored.issuer,
  resource: stored.resource,
  clientId: stored.clientId,
  scopes: stored.scopes,
  accessToken: Redacted.make(stored.accessToken),
  refreshToken: stored.refreshToken === undefined ? undefined : Redacted.make(stored.refreshToken),
  expiresAt: stored.expiresAt
})

const toStored = (entry: Entry): typeof StoredEntry.Type => ({
  issuer: entry.issuer,
  resource: entry.resource,
  clientId: entry.clientId,
  scopes: entry.scopes,
  accessToken: Redacted.value(entry.accessToken),
  ...(entry.refreshToken === undefined ? {} : { refreshToken: Redacted.value(entry.refreshToken) }),
  ...(entry.expiresAt === undefined ? {} : { expiresAt: entry.expiresAt })
})

/**
 * Builds a store from reading and replacing the whole list; changes are serialized, within
 * the process and by `lock` (held for the change's scope) beyond it.
 */
const fromList = (
  read: Effect.Effect<ReadonlyArray<Entry>, TokenStoreError>,
  write: (entries: ReadonlyArray<Entry>) => Effect.Effect<void, TokenStoreError>,
  lock: Effect.Effect<void, TokenStoreError, Scope.Scope> = Effect.void
): Effect.Effect<TokenStore["Type"]> =>
  Effect.map(Effect.makeSemaphore(1), (semaphore) => {
    const change = <A, E, R>(
      f: (entries: ReadonlyArray<Entry>) => Effect.Effect<readonly [A, ReadonlyArray<Entry> | undefined], E, R>
    ) =>
      semaphore.withPermits(1)(Effect.scoped(
        Effect.zipRight(
          lock,
          Effect.flatMap(read, (entries) =>
            Effect.flatMap(
              f(entries),
              ([result, next]) => next === undefined ? Effect.succeed(result) : Effect.as(write(next), result)
            ))
        )
      ))
    const replace = (
      entries: ReadonlyArray<Entry>,
      entry: Entry
    ) => [...entries.filter((e) => !sameKey(e, entry)), entry]
    return TokenStore.of({
      get: (key) => Effect.map(read, (entries) => Option.fromNullable(entries.find((e) => sameKey(e, key)))),
      put: (entry) => change((entries) => Effect.succeed([undefined, replace(entries, entry)] as const)),
      remove: (key) =>
        change((entries) => {
          const kept = entries.filter((e) => !sameKey(e, key))
          return Effect.succeed(kept.length === entries.length ? [false, undefined] as const : [true, kept] as const)
        }),
      list: read,
      modify: (key, f) =>
        change((entries) =>
          Effect.map(
            f(Option.fromNullable(entries.find((e) => sameKey(e, key)))),
            ([result, entry]) =>
              [result, entry === undefined ? undefined : replace(entries, { ...entry, ...pick(key) })] as const
          )
        )
    })
  })

const pick = (key: Key): Key => ({ issuer: key.issuer, resource: key.resource, clientId: key.clientId })

/** How long a lock file may stay before it counts as abandoned, whoever holds it. */
const staleLockMs = 60_000

class Busy extends Data.TaggedError("Busy") {}

/** Whether the lock file was left by a process that is gone, or is older than `staleLockMs`. */
const abandoned = (lock: string): boolean => {
  try {
    const holder = Number(fs.readFileSync(lock, "utf8"))
    if (Date.now() - fs.statSync(lock).mtimeMs > staleLockMs) return true
    if (!Number.isInteger(holder) || holder <= 0) return false
    process.kill(holder, 0)
    return false
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH"
  }
}

/**
 * The lock beside `file`: created exclusively (holding the pid), removed when the scope
 * closes; an abandoned one is removed; a busy one is tried again every 20 ms for up to 15 s
 * (the caller's deadline usually ends the wait sooner).
 */
const fileLock = (file: string): Effect.Effect<void, TokenStoreError, Scope.Scope> => {
  const lock = `${file}.lock`
  const create = Effect.try({
    try: () => {
      fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
      fs.writeFileSync(lock, String(process.pid), { flag: "wx", mode: 0o600 })
    },
    catch: (error) =>
      (error as NodeJS.ErrnoException).code === "EEXIST" ? new Busy() : new TokenStoreError({ reason: "write", file })
  }).pipe(
    Effect.tapErrorTag("Busy", () =>
      Effect.sync(() => {
        if (abandoned(lock)) fs.rmSync(lock, { force: true })
      }))
  )
  return Effect.acquireRelease(
    create.pipe(
      Effect.retry({
        schedule: Schedule.spaced("20 millis").pipe(Schedule.upTo("15 seconds")),
        while: (e) => e._tag === "Busy"
      }),
      Effect.catchTag("Busy", () => Effect.fail(new TokenStoreError({ reason: "locked", file })))
    ),
    () => Effect.sync(() => fs.rmSync(lock, { force: true }))
  )
}

/** The largest token file read. */
const maxFileBytes = 1024 * 1024

/** Whether a file or its folder is not private to this user. */
const insecure = (stats: fs.Stats, folder: fs.Stats): boolean => {
  const uid = process.getuid?.()
  if (!stats.isFile() || (stats.mode & 0o077) !== 0 || (folder.mode & 0o022) !== 0) return true
  return uid !== undefined && (stats.uid !== uid || (folder.uid !== uid && folder.uid !== 0))
}

/**
 * The token file's text (`undefined` when there is none), read only when it is a regular
 * file of this user's, not a symbolic link, of mode 0600 or stricter, in a folder only its
 * owner may write, and at most `maxFileBytes`; never blocking on a FIFO.
 */
const readPrivate = (file: string): string | undefined | TokenStoreError => {
  let fd: number
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW ?? 0) | (fs.constants.O_NONBLOCK ?? 0))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === "ENOENT") return undefined
    return new TokenStoreError({ reason: code === "ELOOP" ? "insecure" : "read", file })
  }
  try {
    if (insecure(fs.fstatSync(fd), fs.statSync(path.dirname(file)))) {
      return new TokenStoreError({ reason: "insecure", file })
    }
    const buffer = Buffer.alloc(maxFileBytes + 1)
    let total = 0
    for (let read = -1; read !== 0 && total < buffer.length;) {
      read = fs.readSync(fd, buffer, total, buffer.length - total, null)
      total += read
    }
    return total > maxFileBytes
      ? new TokenStoreError({ reason: "format", file })
      : buffer.subarray(0, total).toString("utf8")
  } catch {
    return new TokenStoreError({ reason: "read", file })
  } finally {
    fs.closeSync(fd)
  }
}

/**
 * A store in one file (absent: no tokens), used only while it is private to the user (see
 * `readPrivate`; otherwise every use fails with `insecure`). The file is written to a temporary file of mode
 * 0600 beside it and renamed over it; its directory is created with mode 0700. Every change
 * holds `FILE.lock` (created exclusively; removed after the change, or when the process
 * that left it is gone or it is a minute old).
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeFile = (file: string): Effect.Effect<TokenStore["Type"]> =>
  fromList(
    Effect.flatMap(
      Effect.sync(() => readPrivate(file)),
      (text) => {
        if (text instanceof TokenStoreError) return Effect.fail(text)
        if (text === undefined) return Effect.succeed([])
        const decoded = decodeFile(text)
        return Either.isRight(decoded)
          ? Effect.succeed(decoded.right.tokens.map(fromStored))
          : Effect.fail(new TokenStoreError({ reason: "format", file }))
      }
    ),
    (entries) =>
      Effect.try({
        try: () => {
          const directory = path.dirname(file)
          fs.mkdirSync(directory, { recursive: true, mode: 0o700 })
          const temporary = path.join(directory, `.${path.basename(file)}.${process.pid}.tmp`)
          // a file or link planted at the temporary name is removed, never written through
          fs.rmSync(temporary, { force: true })
          fs.writeFileSync(temporary, encodeFile({ version: 1, tokens: entries.map(toStored) }), {
            mode: 0o600,
            flag: "wx"
          })
          fs.chmodSync(temporary, 0o600)
          fs.renameSync(temporary, file)
        },
        catch: () => new TokenStoreError({ reason: "write", file })
      }),
    fileLock(file)
  )

/**
 * Where the token file is: `AHP_OAUTH_TOKENS`, otherwise `ahp/oauth-tokens.json` under
 * `XDG_STATE_HOME`, otherwise under `HOME/.local/state`.
 *
 * @since 0.1.0
 * @category config
 */
export const fileConfig: Config.Config<string> = Config.string("AHP_OAUTH_TOKENS").pipe(
  Config.orElse(() =>
    Config.string("XDG_STATE_HOME").pipe(
      Config.orElse(() => Config.map(Config.string("HOME"), (home) => path.join(home, ".local", "state")))
    ).pipe(Config.map((state) => path.join(state, "ahp", "oauth-tokens.json")))
  )
)

/**
 * A store in the file `config` names (by default `fileConfig`). The location is read when
 * the store is first used, so a layer without one configured only fails the calls that need
 * it (with `location`).
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = (config: Config.Config<string> = fileConfig): Layer.Layer<TokenStore> =>
  Layer.effect(
    TokenStore,
    Effect.map(
      Effect.cached(
        Effect.flatMap(
          Effect.mapError(config, () => new TokenStoreError({ reason: "location" })),
          makeFile
        )
      ),
      (store) =>
        TokenStore.of({
          get: (key) => Effect.flatMap(store, (s) => s.get(key)),
          put: (entry) => Effect.flatMap(store, (s) => s.put(entry)),
          remove: (key) => Effect.flatMap(store, (s) => s.remove(key)),
          list: Effect.flatMap(store, (s) => s.list),
          modify: (key, f) => Effect.flatMap(store, (s) => s.modify(key, f))
        })
    )
  )

/**
 * A store in memory, for tests.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerMemory = (entries: ReadonlyArray<Entry> = []): Layer.Layer<TokenStore> =>
  Layer.effect(
    TokenStore,
    Effect.flatMap(Ref.make(entries), (ref) => fromList(Ref.get(ref), (next) => Ref.set(ref, next)))
  )
