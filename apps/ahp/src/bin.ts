#!/usr/bin/env node
/**
 * The `ahp` executable: `ahp --version` answers at once; `ahp hook …` (but its help) runs
 * the command hook's entry; everything else runs the command line. How each is loaded, and
 * why, is `internal/startup.ts`.
 *
 * @since 0.1.0
 */
import { fileURLToPath } from "node:url"
import * as Startup from "./internal/startup.js"

/** The command line's bundle, relative to this file; set by the bundler (scripts/bundle.mjs). */
declare const __AHP_MAIN__: string

/** The package's version; set by the bundler, so that the launcher does not carry the whole package.json. */
declare const __AHP_VERSION__: string

const argv = process.argv.slice(2)
const entry = Startup.prepare(argv, fileURLToPath(new URL(__AHP_MAIN__, import.meta.url)))

if (argv.length === 1 && argv[0] === "--version") {
  process.stdout.write(`${__AHP_VERSION__}\n`)
} else if (argv[0] === "hook" && !argv.includes("--help") && !argv.includes("-h")) {
  const Hook = await import("@effect-ahp/hook/Command")
  const self = [process.execPath, fileURLToPath(import.meta.url), "hook"]
  process.exit(await Hook.main(argv.slice(1), self, () => entry().cold()))
} else {
  entry().main(argv)
}
