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
import packageJson from "../package.json" with { type: "json" }
import * as CodeCache from "./internal/codeCache.js"

/** The command line's bundle, relative to this file; set by the bundler (scripts/bundle.mjs). */
declare const __AHP_MAIN__: string

/** What the command line's bundle exports. */
type Entry = typeof import("./internal/entry.js")

let loaded: CodeCache.Loaded | undefined

/** Runs the command line's bundle (once); its code cache is written when the process exits, if it had none. */
const entry = (): Entry => {
  if (loaded === undefined) {
    loaded = CodeCache.load(fileURLToPath(new URL(__AHP_MAIN__, import.meta.url)))
    process.once("exit", loaded.save)
  }
  return loaded.exports as Entry
}

const argv = process.argv.slice(2)

if (argv.length === 1 && argv[0] === "--version") {
  process.stdout.write(`${packageJson.version}\n`)
} else if (argv[0] === "hook") {
  const Hook = await import("./hook/Command.js")
  const self = [process.execPath, fileURLToPath(import.meta.url), "hook"]
  process.exit(await Hook.main(argv.slice(1), self, () => entry().cold()))
} else {
  entry().main(argv)
}
