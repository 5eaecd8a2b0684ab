/**
 * Entry point of the hook bundle (`dist/ahp-hook.mjs`): `ahp hook …` without the rest of
 * the command line, so a hook call starts fast. The arguments are those after `hook`.
 */
import { fileURLToPath } from "node:url"
import { main } from "./Command.js"

main(process.argv.slice(2), [process.execPath, fileURLToPath(import.meta.url)]).then((code) => process.exit(code))
