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
 *   compiled from the cache V8 wrote after an earlier run (`codeCache.ts` holds the cache's
 *   rules: where it lives, when it is trusted, when it is written).
 * - V8 flags: a short command runs WebAssembly with V8's baseline compiler only
 *   (`--liftoff-only`). An HTTP exchange compiles undici's HTTP parser (WebAssembly), and V8
 *   would then optimise it on a background thread that a process about to exit has no use
 *   for and whose work its exit waits for. Serving commands (`serve`, `bridge`) keep the
 *   optimised parser. The flags are part of the code cache's name (V8 refuses a cache made
 *   under other flags).
 *
 * Plain Node, no Effect: the launcher runs this before anything else.
 *
 * @internal
 */
import { setFlagsFromString } from "node:v8"
import * as CodeCache from "./codeCache.js"

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
  let loaded: CodeCache.Loaded | undefined
  return () => {
    if (loaded === undefined) {
      loaded = CodeCache.load(file, v8Flags)
      process.once("exit", loaded.save)
    }
    return loaded.exports as Entry
  }
}
