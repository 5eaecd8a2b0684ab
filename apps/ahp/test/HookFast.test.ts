/**
 * What keeps the command hook's no-match path fast: `ahp hook` loads the launcher and the
 * hook's entry chunk, which load no Effect, no harness and no transport before they need
 * them, and the cache of compiled registrations is trusted only when it should be.
 */
import * as Cache from "@effect-ahp/hook/Cache"
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { bundle } from "./support.js"

/** The files an ES module loads statically, itself included, following relative imports. */
const staticClosure = (entry: string): Array<string> => {
  const seen = new Set<string>()
  const visit = (file: string) => {
    if (seen.has(file)) return
    seen.add(file)
    const text = fs.readFileSync(file, "utf8")
    for (const match of text.matchAll(/(?:^|[;\n}])\s*(?:import|export)\s*(?:[\w*{}\s,$]+from\s*)?"(\.[^"]+)"/g)) {
      visit(path.resolve(path.dirname(file), match[1]!))
    }
  }
  visit(entry)
  return [...seen]
}

/** The chunk the launcher imports for `ahp hook` (the bundle of `@effect-ahp/hook/Command`). */
const hookChunk = (launcher: string): string => {
  const imported = /import\("(\.\/chunks\/Command-[\w-]+\.mjs)"\)/.exec(fs.readFileSync(launcher, "utf8"))
  assert.isNotNull(imported, "the launcher imports the hook's chunk on its own")
  return path.resolve(path.dirname(launcher), imported![1]!)
}

describe("the hook's entry in the bundle", () => {
  it("loads only a small entry before it knows what the call needs", () => {
    const closure = [...new Set([...staticClosure(bundle), ...staticClosure(hookChunk(bundle))])]
    const bytes = closure.reduce((total, file) => total + fs.statSync(file).size, 0)
    assert.isBelow(bytes, 64 * 1024, closure.join(", "))
    const text = closure.map((file) => fs.readFileSync(file, "utf8")).join("\n")
    for (const marker of ["undici", "@effect/cli", "FiberRef", "ParseError", "Hooks.dispatch"]) {
      assert.notInclude(text, marker)
    }
    const all = fs.readdirSync(path.join(path.dirname(bundle), "chunks"))
    assert.isAbove(all.length, 3, "the rest is split into chunks loaded on demand")
    // the cold path runs from the command line's CommonJS file (code cache), not a copy of its own
    assert.isEmpty(all.filter((file) => /^Cold-\w+\.mjs$/.test(file)))
    assert.lengthOf(all.filter((file) => /^Main-\w+\.cjs$/.test(file)), 1)
    assert.match(fs.readFileSync(bundle, "utf8"), /"\.\/chunks\/Main-\w+\.cjs"/)
  })
})

describe("the cache of compiled registrations", () => {
  const privateDir = () => fs.mkdtempSync(path.join(os.tmpdir(), "ahp-cache-"))

  it("keeps a summary under a key of the host and the registration text", () => {
    const dir = privateDir()
    try {
      const key = Cache.key("claude-code", "{\"a\":1}")
      assert.notStrictEqual(key, Cache.key("codex", "{\"a\":1}"))
      assert.notStrictEqual(key, Cache.key("claude-code", "{\"a\": 1}"))
      assert.isUndefined(Cache.read(dir, key))
      const summary = { PreToolUse: { routes: 2, failClosed: true } }
      Cache.write(dir, key, summary)
      assert.deepStrictEqual(Cache.read(dir, key), summary)
      fs.writeFileSync(path.join(dir, `${key}.json`), "{\"PreToolUse\":{\"routes\":\"2\"}}")
      assert.isUndefined(Cache.read(dir, key), "a malformed entry is ignored")
      fs.writeFileSync(path.join(dir, `${key}.json`), "not json")
      assert.isUndefined(Cache.read(dir, key))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it.skipIf(process.platform === "win32")("ignores a folder other users can write to", () => {
    const dir = privateDir()
    try {
      const key = Cache.key("codex", "{}")
      Cache.write(dir, key, {})
      assert.deepStrictEqual(Cache.read(dir, key), {})
      fs.chmodSync(dir, 0o777)
      assert.isUndefined(Cache.read(dir, key))
    } finally {
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})
