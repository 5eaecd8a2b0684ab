/**
 * docs/reference/exit-codes.md is the command line's own account of its exit codes: it equals
 * what the commands declare (the same data `ahp <command> --help` prints);
 * AHP_WRITE_DOCS=1 writes it instead of comparing.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { program } from "../src/Cli.js"
import { root } from "./support.js"

const file = path.join(root, "docs", "reference", "exit-codes.md")

const rows = (codes: ReadonlyArray<readonly [number, string]>) => [
  "| code | when |",
  "| --- | --- |",
  ...codes.map(([code, meaning]) => `| ${code} | ${meaning.replace(/\|/g, "\\|")} |`)
]

const page = () =>
  [
    "# Exit codes",
    "",
    "<!-- Generated from the commands' declarations by apps/ahp/test/ExitCodes.test.ts; regenerate",
    "with AHP_WRITE_DOCS=1 pnpm test --project ahp apps/ahp/test/ExitCodes.test.ts -->",
    "",
    "Every `ahp` command follows one convention (`ahp --help` prints it):",
    "",
    ...rows(program.exitCodes),
    "",
    "Each command's own codes (`ahp <command> --help` prints them). The hook never fails its",
    "host: it answers with exit code 0 and says everything in its JSON (see",
    "[Claude Code](../guide/claude-code.md#answering-in-time-and-when-the-policy-cannot-be-evaluated)).",
    "",
    ...program.commands.flatMap((command) => [`## ${command.name}`, "", ...rows(command.exitCodes), ""])
  ].join("\n").trimEnd() + "\n"

describe("the exit-code reference", () => {
  it("is generated from the commands' declarations", () => {
    const rendered = page()
    if (process.env["AHP_WRITE_DOCS"] === "1") fs.writeFileSync(file, rendered)
    assert.strictEqual(
      fs.readFileSync(file, "utf8"),
      rendered,
      "regenerate docs/reference/exit-codes.md (see its header)"
    )
    for (const command of program.commands) assert.include(rendered, `## ${command.name}\n`)
  })
})
