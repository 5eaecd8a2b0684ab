/**
 * The one command that reruns the suite against other host versions
 * (`test/hosts/rerun.mjs`), as the guides show it, is usable: with `--dry-run` it
 * prints the npm install of the versions named (the pinned one for a host not named) and
 * the suite's run with `AHP_HOSTS_FROM`, the variable the suite reads; a bad argument exits
 * 2 naming it. The suite resolves the hosts from such a folder, and a folder without them
 * is an error naming it. The guides and the README name the versions the suite pins.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import * as Hosts from "../src/Hosts.js"
import { root } from "../src/Workspace.js"

const suiteDir = path.join(root, "test", "hosts")
/** The host versions test/hosts/package.json pins. */
const pinned: Record<string, string> =
  JSON.parse(fs.readFileSync(path.join(suiteDir, "package.json"), "utf8")).devDependencies
const claudeCode = pinned["@anthropic-ai/claude-code"]!
const codex = pinned["@openai/codex"]!

/** The rerun commands the guides show (the shell block after the marker naming this test). */
const shown = (guide: string): string => {
  const text = fs.readFileSync(path.join(root, "docs", "guide", guide), "utf8")
  const block = /<!-- not run: test\/hosts\/test\/Rerun\.test\.ts [^\n]*-->\n```sh\n([^\n]*)\n```/.exec(text)
  expect(block, guide).not.toBeNull()
  return block![1]!
}

const rerun = (args: ReadonlyArray<string>) =>
  spawnSync(process.execPath, [path.join(suiteDir, "rerun.mjs"), ...args], {
    cwd: root,
    encoding: "utf8",
    timeout: 30_000
  })

describe("rerunning the suite against other host versions", () => {
  it.each(["claude-code.md", "codex.md"])(
    "%s shows a command that installs the versions it names and runs the suite",
    (guide) => {
      const [node, script, ...args] = shown(guide).split(" ")
      expect([node, script]).toEqual(["node", "test/hosts/rerun.mjs"])
      const named = (flag: string) => (args.includes(flag) ? args[args.indexOf(flag) + 1] : undefined)
      const ran = rerun([...args, "--dry-run"])
      expect(ran.stderr).toBe("")
      expect(ran.status).toBe(0)
      expect(ran.stdout).toBe(
        "npm install --prefix <folder> --no-audit --no-fund --ignore-scripts" +
          ` @anthropic-ai/claude-code@${named("--claude-code") ?? claudeCode} @openai/codex@${
            named("--codex") ?? codex
          }\n` +
          `${Hosts.hostsFromVariable}=<folder> pnpm test --project hosts\n`
      )
    }
  )

  it("refuses a version that is not exact, and an unknown argument, naming them (exit 2)", () => {
    const loose = rerun(["--codex", "latest", "--dry-run"])
    expect(loose.status).toBe(2)
    expect(loose.stderr).toContain("--codex needs an exact version (like 1.2.3), not \"latest\"")
    const unknown = rerun(["--gemini", "1.0.0"])
    expect(unknown.status).toBe(2)
    expect(unknown.stderr).toContain("unknown argument \"--gemini\"")
    expect(unknown.stdout).toBe("")
  })

  it("runs the hosts installed in the folder named, and names a folder without them", () => {
    const found = Hosts.hostPackages(suiteDir)
    expect(found.versions).toEqual({ claudeCode, codex })
    expect(fs.existsSync(found.claudeBinary)).toBe(true)
    expect(fs.existsSync(found.codexLauncher)).toBe(true)
    const empty = fs.mkdtempSync(path.join(os.tmpdir(), "ahp-hosts-empty-"))
    try {
      expect(() => Hosts.hostPackages(empty)).toThrow(
        `@anthropic-ai/claude-code is not installed in ${empty} (${Hosts.hostsFromVariable})`
      )
    } finally {
      fs.rmSync(empty, { recursive: true, force: true })
    }
  })

  it("has the guides and the README name the versions the suite pins", () => {
    const read = (file: string) => fs.readFileSync(path.join(root, file), "utf8")
    expect(read("docs/guide/claude-code.md")).toContain(`drives Claude Code **${claudeCode}**`)
    expect(read("docs/guide/codex.md")).toContain(`drives the Codex CLI **${codex}**`)
    expect(read("README.md")).toContain(`Proven end to end on Claude Code ${claudeCode} and Codex ${codex}`)
  })
})
