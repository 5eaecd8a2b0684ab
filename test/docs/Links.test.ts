/**
 * Every relative link in the repository's Markdown resolves: the file exists and, with a
 * `#fragment`, the target has a heading of that GitHub anchor. Links to the web are not
 * followed (nothing leaves the machine).
 */
import { assert, describe, it } from "@effect/vitest"
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..")

const markdownFiles = execFileSync("git", ["ls-files", "--cached", "--others", "--exclude-standard", "*.md"], {
  cwd: root,
  encoding: "utf8"
}).split("\n").filter((file) => file !== "" && fs.existsSync(path.join(root, file)))

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
const anchorsOf = (text: string): Set<string> => {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  let fenced = false
  for (const line of text.split("\n")) {
    if (line.startsWith("```")) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*$/.exec(line)
    if (heading === null) continue
    const base = heading[1]!.toLowerCase().replace(/<[^>]*>/g, "").replace(/[^\p{L}\p{N}\s_-]/gu, "").replace(
      /\s/g,
      "-"
    )
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

/** The link targets of a Markdown text outside code: `[text](target)` and `[text]: target`. */
const linksOf = (text: string): Array<{ readonly target: string; readonly line: number }> => {
  const out: Array<{ target: string; line: number }> = []
  let fenced = false
  text.split("\n").forEach((line, index) => {
    if (line.startsWith("```")) fenced = !fenced
    if (fenced) return
    const prose = line.replace(/`[^`]*`/g, "")
    for (const match of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      out.push({ target: match[1]!, line: index + 1 })
    }
    const reference = /^\s*\[[^\]]+\]:\s+(\S+)/.exec(prose)
    if (reference !== null) out.push({ target: reference[1]!, line: index + 1 })
  })
  return out
}

describe("Markdown links", () => {
  it("the repository has Markdown files to check", () => {
    assert.include(markdownFiles, "README.md")
  })

  for (const file of markdownFiles) {
    it(`every relative link of ${file} resolves`, () => {
      const text = fs.readFileSync(path.join(root, file), "utf8")
      const broken: Array<string> = []
      for (const { line, target } of linksOf(text)) {
        if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue
        const [relative = "", fragment] = target.split("#", 2)
        const resolved = relative === ""
          ? path.join(root, file)
          : path.resolve(path.dirname(path.join(root, file)), decodeURI(relative))
        if (!fs.existsSync(resolved)) {
          broken.push(`line ${line}: ${target} (no such file)`)
          continue
        }
        if (fragment !== undefined && fragment !== "" && resolved.endsWith(".md")) {
          if (!anchorsOf(fs.readFileSync(resolved, "utf8")).has(fragment)) {
            broken.push(`line ${line}: ${target} (no such heading)`)
          }
        }
      }
      assert.deepStrictEqual(broken, [])
    })
  }
})
