/**
 * How `ahp` starts fast. Claude Code and Codex run `ahp hook` on every tool call, and every
 * other command is a short process too, so the time from `node` starting to the first
 * useful instruction is paid on every run. Three things keep it short, and they live here so
 * that the rest of the code reads as plain Effect:
 *
 * - Chunk loading: the launcher (`bin.ts`, an ES module) loads nothing but itself until it
 *   knows the command. The command hook's entry is a few small ES-module chunks
 *   (`@effect-ahp/hook/Command`, no command-line library and no Effect until the call needs them);
 *   the command line and the hook's cold path are one CommonJS file (`entry.ts`), loaded
 *   only when needed, once.
 * - The code cache: Node 20 has no compile cache of its own, so that CommonJS file is
 *   compiled from the cache V8 wrote after an earlier run (its rules below).
 * - V8 flags: a short command runs WebAssembly with V8's baseline compiler only
 *   (`--liftoff-only`). An HTTP exchange compiles undici's HTTP parser (WebAssembly), and V8
 *   would then optimise it on a background thread that a process about to exit has no use
 *   for and whose work its exit waits for. Serving commands (`serve`, `bridge`) keep the
 *   optimised parser. The flags are part of the code cache's name (V8 refuses a cache made
 *   under other flags).
 *
 * The code cache's rules: the bundle is compiled with `vm.Script` from the cache V8 wrote.
 * The cache lives beside the bundle, under a name that carries the Node version, the
 * architecture and Node's flags (V8 refuses a cache made under other flags; one name per
 * setting keeps two settings from overwriting each other's cache on every run). The bundle's
 * own name carries a digest of its content, so a rebuilt bundle never meets an older cache.
 * A cache is trusted no more than the bundle itself: it is read only when neither it nor its
 * folder can be written by other users, and it belongs to the current user or root. It is
 * written, atomically, only into such a folder; where the folder is not writable (a
 * package installed by another user), the bundle runs without a cache. A cache V8 rejects
 * (damaged, or made by another V8) is replaced.
 *
 * Plain Node, no Effect: the launcher runs this before anything else.
 *
 * @internal
 */
import { isAscii } from "node:buffer"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import { setFlagsFromString } from "node:v8"
import * as vm from "node:vm"

/**
 * How a load used the cache: `used` (V8 accepted it), `absent` (none yet), `rejected` (V8
 * refused it), `untrusted` (ignored: others can write it or its folder).
 *
 * @internal
 */
export type CacheStatus = "used" | "absent" | "rejected" | "untrusted"

/**
 * A loaded bundle: its `module.exports`, how the cache served it, and `save`, which writes
 * the cache from what V8 has compiled so far (the launcher calls it when the process exits,
 * so the cache holds the functions the run needed). `save` does nothing after a load that
 * used the cache, or where the folder is not private to its owner, and never throws.
 *
 * @internal
 */
export interface Loaded {
  readonly exports: unknown
  readonly status: CacheStatus
  readonly save: () => void
}

const currentUid = (): number | undefined => (typeof process.getuid === "function" ? process.getuid() : undefined)

/** Whether a file or folder can be trusted as much as the bundle: the current user's or root's, and only theirs to write. */
const isTrusted = (stat: fs.Stats): boolean => {
  const uid = currentUid()
  return uid === undefined || ((stat.uid === uid || stat.uid === 0) && (stat.mode & 0o022) === 0)
}

const trustedPath = (file: string): boolean => {
  try {
    return isTrusted(fs.statSync(file))
  } catch {
    return false
  }
}

/** A short digest of a text (FNV-1a, 32 bits, in hex): only to tell Node's settings apart in a file name. */
const digest = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193)
  return (hash >>> 0).toString(16).padStart(8, "0")
}

/**
 * The cache file of a bundle under this Node: `<bundle>.<version>-<arch>-<digest of flags>.cache`.
 * `v8Flags` are the flags the process gave V8 at run time (`v8.setFlagsFromString`): V8
 * counts them in a cache's flag hash like Node's own.
 *
 * @internal
 */
export const cacheFile = (bundle: string, v8Flags = ""): string =>
  `${bundle}.${process.version}-${process.arch}-${
    digest(`${process.execArgv.join(" ")}\u0000${process.env.NODE_OPTIONS ?? ""}\u0000${v8Flags}`)
  }.cache`

/**
 * The bundle's text. esbuild writes it in ASCII (non-ASCII characters escaped), which is
 * read as Latin-1, cheaper at start-up than decoding it as UTF-8 (docs/performance.md).
 * Any other text is read as UTF-8.
 */
const readSource = (file: string): string => {
  const bytes = fs.readFileSync(file)
  return isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8")
}

/** The cache's bytes, when it exists and can be trusted: checked on the open file, then read from it. */
const readCache = (file: string): { readonly data?: Buffer; readonly status: CacheStatus } => {
  let fd: number
  try {
    fd = fs.openSync(file, "r")
  } catch {
    return { status: "absent" }
  }
  try {
    return isTrusted(fs.fstatSync(fd)) && trustedPath(path.dirname(file))
      ? { data: fs.readFileSync(fd), status: "used" }
      : { status: "untrusted" }
  } catch {
    return { status: "absent" }
  } finally {
    fs.closeSync(fd)
  }
}

const writeCache = (file: string, data: Buffer): void => {
  if (!trustedPath(path.dirname(file))) return
  const temporary = `${file}.${process.pid}.tmp`
  try {
    fs.writeFileSync(temporary, data, { mode: 0o644 })
    fs.renameSync(temporary, file)
  } catch {
    fs.rmSync(temporary, { force: true })
  }
}

/**
 * Runs a CommonJS bundle, compiled from its code cache when there is a trustworthy one that
 * V8 accepts; `v8Flags` as in `cacheFile`.
 *
 * @internal
 */
export const load = (bundle: string, v8Flags = ""): Loaded => {
  const source = readSource(bundle)
  const cache = cacheFile(bundle, v8Flags)
  const found = readCache(cache)
  const script = new vm.Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: bundle,
    // the one `import()` left in the bundle (a Node built-in) goes to Node's own loader
    importModuleDynamically: vm.constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
    ...(found.data === undefined ? {} : { cachedData: found.data })
  })
  const status: CacheStatus = found.data !== undefined && script.cachedDataRejected === true ? "rejected" : found.status
  const module = { exports: {} as unknown }
  const run = script.runInThisContext() as (...args: ReadonlyArray<unknown>) => void
  run.call(module.exports, module.exports, createRequire(bundle), module, bundle, path.dirname(bundle))
  let saved = status === "used"
  return {
    exports: module.exports,
    status,
    save: () => {
      if (saved) return
      saved = true
      try {
        writeCache(cache, script.createCachedData())
      } catch {
        // no cache this time: the next run compiles again
      }
    }
  }
}

/** What the command line's bundle exports. */
type Entry = typeof import("./entry.js")

/** The commands that serve for as long as they run; every other command is over in moments. */
const serving = new Set(["serve", "bridge"])

/** The command named in `args`: the first argument that is neither an option nor the global `--log-level`'s value. */
const commandOf = (args: ReadonlyArray<string>): string | undefined => {
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--log-level") i++
    else if (!args[i]!.startsWith("-")) return args[i]
  }
  return undefined
}

/**
 * Sets V8's flags for a run of `ahp` with the arguments after `ahp` and returns a loader of
 * the command line's bundle (`file`): compiled through the code cache on the first call,
 * which also arranges for the cache to be written when the process exits, if it had none.
 *
 * @internal
 */
export const prepare = (argv: ReadonlyArray<string>, file: string): () => Entry => {
  const v8Flags = serving.has(commandOf(argv) ?? "") ? "" : "--liftoff-only"
  if (v8Flags !== "") setFlagsFromString(v8Flags)
  let loaded: Loaded | undefined
  return () => {
    if (loaded === undefined) {
      loaded = load(file, v8Flags)
      process.once("exit", loaded.save)
    }
    return loaded.exports as Entry
  }
}
