/**
 * Codex's own project trust as `ahp hook doctor codex` reads it from a real
 * `$CODEX_HOME/config.toml`: the `[projects."…"]` tables Codex writes, quoted either way,
 * comments allowed, another table ending a project's; the project keyed by the git
 * repository's root first, then the working directory.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as path from "node:path"
import { projectTrust, trustLevels } from "../src/internal/codexTrust.js"
import { file, folder, tempDir } from "./TestFiles.js"

describe("codexTrust", () => {
  it("trustLevels reads the project tables' trust_level, and nothing outside them", () => {
    const text = [
      "model = \"o3\"",
      "trust_level = \"trusted\"",
      "[projects.\"/a\"]  # mine",
      "trust_level = \"trusted\" # yes",
      "[projects.'/b \"quoted\"']",
      "  trust_level = 'untrusted'",
      "[projects.\"/c\\\\d\"]",
      "trust_level = \"trusted\"",
      "[profiles.x]",
      "trust_level = \"trusted\"",
      "[ projects . \"/e\" ]",
      "other = 1"
    ].join("\n")
    assert.deepStrictEqual([...trustLevels(text)], [["/a", "trusted"], ["/b \"quoted\"", "untrusted"], [
      "/c\\d",
      "trusted"
    ]])
  })

  it.scoped("projectTrust: the repository's root first, then the folder; NotRecorded names both", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const codexHome = folder(path.join(dir, "codex"))
      const repository = folder(path.join(dir, "repo"))
      folder(path.join(repository, ".git"))
      const cwd = folder(path.join(repository, "src"))
      const config = path.join(codexHome, "config.toml")
      assert.deepStrictEqual(projectTrust(codexHome, cwd), {
        _tag: "NotRecorded",
        file: config,
        folders: [repository, cwd]
      })
      file(codexHome, "config.toml", `[projects.${JSON.stringify(cwd)}]\ntrust_level = "trusted"\n`)
      assert.deepStrictEqual(projectTrust(codexHome, cwd), { _tag: "Recorded", folder: cwd, level: "trusted" })
      file(
        codexHome,
        "config.toml",
        `[projects.${JSON.stringify(cwd)}]\ntrust_level = "trusted"\n[projects.${
          JSON.stringify(repository)
        }]\ntrust_level = "untrusted"\n`
      )
      assert.deepStrictEqual(projectTrust(codexHome, cwd), { _tag: "Recorded", folder: repository, level: "untrusted" })
      const plain = folder(path.join(dir, "plain"))
      assert.deepStrictEqual(projectTrust(codexHome, plain), { _tag: "NotRecorded", file: config, folders: [plain] })
    }))
})
