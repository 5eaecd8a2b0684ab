/**
 * The cache of compiled registrations on real folders: a summary is found again under the
 * key of the same build, host and text (a hit), under no other key (a miss), so a changed
 * registration misses until it compiles again; what is not a trustworthy summary (malformed,
 * in a folder others can reach) is never used; writing makes the folder private, replaces
 * the entry atomically, and writes nothing into a folder it cannot make private.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Cache from "../src/Cache.js"
import * as Locate from "../src/Locate.js"
import { folder, modeOf, tempDir } from "./TestFiles.js"

const registration = "{\"protocolVersion\":\"draft\",\"hooks\":[]}"
const summary: Cache.Summary = { PreToolUse: { routes: 2, failClosed: true }, Stop: { routes: 1, failClosed: false } }

describe.skipIf(process.platform === "win32")("Cache", () => {
  it("the key is the digest of this build, the host and the exact text", () => {
    const key = Cache.key("claude-code", registration)
    assert.strictEqual(Cache.build, "source", "run from the sources, not the bundle")
    assert.strictEqual(key, Locate.sha256(`source\u0000claude-code\u0000${registration}`))
    assert.notStrictEqual(key, Cache.key("codex", registration))
    assert.notStrictEqual(key, Cache.key("claude-code", `${registration}\n`), "a byte changed is another key")
  })

  it.scoped("a hit after a write, a miss for another key: a changed registration is compiled again", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* tempDir, "cache")
      const key = Cache.key("claude-code", registration)
      assert.isUndefined(Cache.read(dir, key), "nothing cached: a miss, the folder not even made")
      assert.isFalse(fs.existsSync(dir))
      Cache.write(dir, key, summary)
      assert.deepStrictEqual(Cache.read(dir, key), summary)
      const changed = Cache.key("claude-code", registration.replace("[]", "[ ]"))
      assert.isUndefined(Cache.read(dir, changed))
      Cache.write(dir, changed, {})
      assert.deepStrictEqual(Cache.read(dir, changed), {}, "a registration that routes nothing is a summary too")
      assert.deepStrictEqual(Cache.read(dir, key), summary, "each text keeps its own entry")
      Cache.write(dir, key, { Stop: { routes: 3, failClosed: false } })
      assert.deepStrictEqual(Cache.read(dir, key), { Stop: { routes: 3, failClosed: false } }, "replaced")
    }))

  it.scoped("writes a private folder and file, and leaves no temporary file", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* tempDir, "deep", "cache")
      const key = Cache.key("codex", registration)
      Cache.write(dir, key, summary)
      assert.strictEqual(modeOf(dir), 0o700)
      assert.strictEqual(modeOf(path.join(dir, `${key}.json`)), 0o600)
      assert.deepStrictEqual(fs.readdirSync(dir), [`${key}.json`])
    }))

  it.scoped("an entry that is not a summary is a miss", () =>
    Effect.gen(function*() {
      const dir = path.join(yield* tempDir, "cache")
      const key = Cache.key("claude-code", registration)
      Cache.write(dir, key, summary)
      const entry = path.join(dir, `${key}.json`)
      for (
        const text of [
          "not json",
          "[]",
          "null",
          "7",
          "{\"PreToolUse\":{\"routes\":\"2\",\"failClosed\":true}}",
          "{\"PreToolUse\":{\"routes\":2}}",
          "{\"PreToolUse\":null}",
          ""
        ]
      ) {
        fs.writeFileSync(entry, text)
        assert.isUndefined(Cache.read(dir, key), text)
      }
    }))

  it.scoped("a folder others can reach is never read nor written", () =>
    Effect.gen(function*() {
      const dir = folder(path.join(yield* tempDir, "cache"), 0o700)
      const key = Cache.key("claude-code", registration)
      Cache.write(dir, key, summary)
      for (const mode of [0o770, 0o707, 0o750]) {
        fs.chmodSync(dir, mode)
        assert.isUndefined(Cache.read(dir, key), mode.toString(8))
      }
      const other = Cache.key("codex", registration)
      Cache.write(dir, other, summary)
      assert.isFalse(fs.existsSync(path.join(dir, `${other}.json`)), "nothing written into a folder others can reach")
      assert.strictEqual(modeOf(dir), 0o750, "the folder is left as it is")
    }))
})
