/**
 * Codex's own project trust, as `ahp hook doctor codex` checks it: Codex loads a project's
 * `.codex/` layer (its `hooks.json` included) only when `$CODEX_HOME/config.toml` (default
 * `~/.codex/config.toml`) has `[projects."<absolute path>"]` with `trust_level = "trusted"`
 * — what `codex exec --trust` and the interactive trust prompt write. The project is the
 * working directory, or the root of the git repository holding it. Only the table form
 * Codex writes is read; the file is read up to the input bound.
 *
 * @internal
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { maxInputBytes } from "../Limits.js"

/** What Codex's configuration says about a project: its trust level, if it names one. @internal */
export type ProjectTrust =
  | { readonly _tag: "Recorded"; readonly folder: string; readonly level: string }
  | { readonly _tag: "NotRecorded"; readonly file: string; readonly folders: ReadonlyArray<string> }

const header = /^\s*\[\s*projects\s*\.\s*("(?:[^"\\]|\\.)*"|'[^']*')\s*\]\s*(?:#.*)?$/
const trustLevel = /^\s*trust_level\s*=\s*(?:"([^"\\]*)"|'([^']*)')\s*(?:#.*)?$/

const key = (quoted: string): string | undefined => {
  if (quoted.startsWith("'")) return quoted.slice(1, -1)
  try {
    return JSON.parse(quoted) as string
  } catch {
    return undefined
  }
}

/** The trust levels of the `[projects."…"]` tables of a `config.toml`. @internal */
export const trustLevels = (text: string): ReadonlyMap<string, string> => {
  const levels = new Map<string, string>()
  let project: string | undefined
  for (const line of text.split("\n")) {
    const opened = header.exec(line)
    if (opened !== null) {
      project = key(opened[1]!)
      continue
    }
    if (/^\s*\[/.test(line)) {
      project = undefined
      continue
    }
    const level = trustLevel.exec(line)
    if (project !== undefined && level !== null) levels.set(project, level[1] ?? level[2]!)
  }
  return levels
}

/** The folders Codex may key a project by: the git repository's root first, then the folder. */
const candidates = (cwd: string): ReadonlyArray<string> => {
  for (let dir = cwd, depth = 0; depth < 256; depth++) {
    if (fs.existsSync(path.join(dir, ".git"))) return dir === cwd ? [cwd] : [dir, cwd]
    const parent = path.dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  return [cwd]
}

/** What `$CODEX_HOME/config.toml` records for the project in `cwd`. @internal */
export const projectTrust = (codexHome: string, cwd: string): ProjectTrust => {
  const file = path.join(codexHome, "config.toml")
  const folders = candidates(path.resolve(cwd))
  let text = ""
  try {
    if (fs.statSync(file).size <= maxInputBytes) text = fs.readFileSync(file, "utf8")
  } catch {
    // no configuration: nothing recorded
  }
  const levels = trustLevels(text)
  const folder = folders.find((f) => levels.has(f))
  return folder === undefined
    ? { _tag: "NotRecorded", file, folders }
    : { _tag: "Recorded", folder, level: levels.get(folder)! }
}
