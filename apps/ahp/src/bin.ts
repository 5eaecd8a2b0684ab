#!/usr/bin/env node
/**
 * The `ahp` executable: a launcher that loads only what the command line asks for.
 * `ahp --version` answers at once; `ahp hook …`, run by Claude Code or Codex on every tool
 * call, loads only the command hook's entry (`hook/Command.ts`: no command-line library, no
 * Effect until it knows it needs them); everything else loads the command line (`Main.ts`),
 * which in turn loads one command's implementation.
 *
 * @since 0.1.0
 */
import { fileURLToPath } from "node:url"
import packageJson from "../package.json" with { type: "json" }

const argv = process.argv.slice(2)

if (argv.length === 1 && argv[0] === "--version") {
  process.stdout.write(`${packageJson.version}\n`)
} else if (argv[0] === "hook") {
  const Hook = await import("./hook/Command.js")
  process.exit(await Hook.main(argv.slice(1), [process.execPath, fileURLToPath(import.meta.url), "hook"]))
} else {
  const { main } = await import("./Main.js")
  main(argv)
}
