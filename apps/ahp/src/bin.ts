#!/usr/bin/env node
/**
 * The `ahp` executable: a launcher that loads only what the command line asks for.
 * `ahp --version` answers at once; `ahp hook …`, run by Claude Code or Codex on every tool
 * call, loads only the command hook's entry (`hook/Command.ts`: no command-line library, no
 * Effect until it knows it needs them); everything else runs the command line (`Main.ts`).
 * The command line and the hook's cold path are one CommonJS file (`internal/entry.ts`),
 * compiled from V8's code cache when an earlier run left one (`internal/codeCache.ts`).
 *
 * @since 0.1.0
 */
import { fileURLToPath } from "node:url"
import { setFlagsFromString } from "node:v8"
import packageJson from "../package.json" with { type: "json" }
import * as CodeCache from "./internal/codeCache.js"

/** The command line's bundle, relative to this file; set by the bundler (scripts/bundle.mjs). */
declare const __AHP_MAIN__: string

/** What the command line's bundle exports. */
type Entry = typeof import("./internal/entry.js")

const argv = process.argv.slice(2)

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
 * What V8 is told for this run. A short command runs WebAssembly with V8's baseline compiler
 * only (`--liftoff-only`): an HTTP exchange compiles undici's HTTP parser (WebAssembly), and
 * V8 then optimises the parser's main function on a background thread, about 50 ms of CPU
 * that a process about to exit has no use for and that its exit waits for (a command hook
 * with an HTTP backend printed its answer at 200 ms and exited at 280). Serving commands
 * keep the optimised parser.
 */
const v8Flags = serving.has(commandOf(argv) ?? "") ? "" : "--liftoff-only"
if (v8Flags !== "") setFlagsFromString(v8Flags)

let loaded: CodeCache.Loaded | undefined

/** Runs the command line's bundle (once); its code cache is written when the process exits, if it had none. */
const entry = (): Entry => {
  if (loaded === undefined) {
    loaded = CodeCache.load(fileURLToPath(new URL(__AHP_MAIN__, import.meta.url)), v8Flags)
    process.once("exit", loaded.save)
  }
  return loaded.exports as Entry
}

if (argv.length === 1 && argv[0] === "--version") {
  process.stdout.write(`${packageJson.version}\n`)
} else if (argv[0] === "hook") {
  const Hook = await import("./hook/Command.js")
  const self = [process.execPath, fileURLToPath(import.meta.url), "hook"]
  process.exit(await Hook.main(argv.slice(1), self, () => entry().cold()))
} else {
  entry().main(argv)
}
