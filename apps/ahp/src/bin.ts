#!/usr/bin/env node
/**
 * The `ahp` executable: a launcher that loads only what the command line asks for.
 * `ahp --version` answers at once; everything else loads the command line (`Main.ts`), which
 * in turn loads one command's implementation. A command that must start as fast as Node
 * itself (one run on every tool call of a coding agent) gets an entry module of its own,
 * chosen here by its name before anything else is loaded.
 *
 * @since 0.1.0
 */
import packageJson from "../package.json" with { type: "json" }

const argv = process.argv.slice(2)

if (argv.length === 1 && argv[0] === "--version") {
  process.stdout.write(`${packageJson.version}\n`)
} else {
  const { main } = await import("./Main.js")
  main(argv)
}
