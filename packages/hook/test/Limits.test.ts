/**
 * The input bound on real files: a registration of exactly `maxInputBytes` is read, one
 * byte more is refused without being read whole, and Codex's configuration beyond the
 * bound is not read for its trust.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { projectTrust } from "../src/internal/codexTrust.js"
import * as Limits from "../src/Limits.js"
import * as Locate from "../src/Locate.js"
import { folder, tempDir } from "./TestFiles.js"

/** A file of `size` bytes: a JSON string of spaces padded to the size. */
const sized = (file: string, size: number, head = "") => {
  const padding = Buffer.alloc(size - head.length, 0x20)
  fs.writeFileSync(file, Buffer.concat([Buffer.from(head), padding]))
  return file
}

describe("Limits", () => {
  it("the bound is 16 MiB", () => {
    assert.strictEqual(Limits.maxInputBytes, 16 * 1024 * 1024)
  })

  it.scoped("a registration of exactly the bound is read; one byte more is refused", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const atBound = sized(path.join(dir, "at.json"), Limits.maxInputBytes, "{}")
      const read = Locate.read(atBound)
      assert.strictEqual(read._tag, "Found")
      assert.strictEqual(read._tag === "Found" ? read.text.length : 0, Limits.maxInputBytes)
      const over = sized(path.join(dir, "over.json"), Limits.maxInputBytes + 1, "{}")
      assert.deepStrictEqual(Locate.read(over), {
        _tag: "Unreadable",
        file: over,
        reason: "larger than the 16 MiB input limit"
      })
    }))

  it.scoped("Codex's configuration beyond the bound is not read: the project's trust is not recorded", () =>
    Effect.gen(function*() {
      const dir = folder(yield* tempDir, 0o700)
      const codexHome = folder(path.join(dir, "codex"))
      const project = folder(path.join(dir, "project"))
      const table = `[projects.${JSON.stringify(project)}]\ntrust_level = "trusted"\n`
      sized(path.join(codexHome, "config.toml"), Limits.maxInputBytes, table)
      assert.deepStrictEqual(projectTrust(codexHome, project), { _tag: "Recorded", folder: project, level: "trusted" })
      sized(path.join(codexHome, "config.toml"), Limits.maxInputBytes + 1, table)
      assert.deepStrictEqual(projectTrust(codexHome, project), {
        _tag: "NotRecorded",
        file: path.join(codexHome, "config.toml"),
        folders: [project]
      })
    }))
})
