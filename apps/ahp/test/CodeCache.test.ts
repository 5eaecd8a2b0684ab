/**
 * The command line's bundle compiled through V8's code cache (`internal/startup.ts`): the
 * cache is written beside the bundle, used by later loads, replaced when V8 rejects it, and
 * ignored where other users could have written it; the launcher of the real bundle runs the
 * same with and without one.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { pathToFileURL } from "node:url"
import { bundleFiles } from "../../../scripts/bundle.mjs"
import * as CodeCache from "../src/internal/startup.js"
import { bundle, root, runCli, tempDir } from "./support.js"

/** A CommonJS file in a fresh folder (mode 0700) that uses what a CommonJS module is given. */
const withBundle = <A>(use: (file: string) => A): A => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ahp-code-cache-"))
  const file = path.join(dir, "main.cjs")
  fs.writeFileSync(
    file,
    [
      "const path = require(\"node:path\")",
      "exports.where = path.basename(__dirname) + \"/\" + path.basename(__filename)",
      "exports.double = (n) => n * 2",
      "exports.builtIn = () => import(\"node:os\").then((os) => typeof os.cpus)",
      "module.exports.self = module.exports === exports"
    ].join("\n")
  )
  try {
    return use(file)
  } finally {
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

interface Exports {
  readonly where: string
  readonly double: (n: number) => number
  readonly builtIn: () => Promise<string>
  readonly self: boolean
}

const exportsOf = (loaded: CodeCache.Loaded): Exports => loaded.exports as Exports

const assertRuns = (file: string, loaded: CodeCache.Loaded) => {
  const exports = exportsOf(loaded)
  assert.strictEqual(exports.where, `${path.basename(path.dirname(file))}/main.cjs`)
  assert.strictEqual(exports.double(21), 42)
  assert.isTrue(exports.self)
}

describe("the code cache", () => {
  it("is written by save, used by the next load, and not written again", () =>
    withBundle((file) => {
      const first = CodeCache.load(file)
      assert.strictEqual(first.status, "absent")
      assertRuns(file, first)
      const cache = CodeCache.cacheFile(file)
      assert.isFalse(fs.existsSync(cache))
      first.save()
      assert.isAbove(fs.statSync(cache).size, 0)
      assert.strictEqual(fs.statSync(cache).mode & 0o777, 0o644)
      const second = CodeCache.load(file)
      assert.strictEqual(second.status, "used")
      assertRuns(file, second)
      fs.writeFileSync(cache, "kept")
      second.save()
      assert.strictEqual(fs.readFileSync(cache, "utf8"), "kept", "a load that used the cache does not rewrite it")
    }))

  it("the bundle's own import() of a Node built-in works", () =>
    Effect.promise(() =>
      withBundle(async (file) => {
        assert.strictEqual(await exportsOf(CodeCache.load(file)).builtIn(), "function")
      })
    ))

  it("a damaged cache is rejected, the bundle still runs, and save replaces it", () =>
    withBundle((file) => {
      const cache = CodeCache.cacheFile(file)
      fs.writeFileSync(cache, Buffer.alloc(4096, 7), { mode: 0o644 })
      const loaded = CodeCache.load(file)
      assert.strictEqual(loaded.status, "rejected")
      assertRuns(file, loaded)
      loaded.save()
      assert.strictEqual(CodeCache.load(file).status, "used")
    }))

  it("a cache for other Node flags is another file", () =>
    withBundle((file) => {
      const before = process.env.NODE_OPTIONS
      const ours = CodeCache.cacheFile(file)
      try {
        process.env.NODE_OPTIONS = "--max-old-space-size=64"
        const other = CodeCache.cacheFile(file)
        assert.notStrictEqual(other, ours)
        assert.isTrue(other.startsWith(`${file}.${process.version}-${process.arch}-`))
        assert.notStrictEqual(CodeCache.cacheFile(file, "--liftoff-only"), other, "nor for flags set at run time")
      } finally {
        if (before === undefined) delete process.env.NODE_OPTIONS
        else process.env.NODE_OPTIONS = before
      }
    }))

  it.skipIf(process.platform === "win32")(
    "is ignored, and not written, where other users can write",
    () =>
      withBundle((file) => {
        const cache = CodeCache.cacheFile(file)
        CodeCache.load(file).save()
        fs.chmodSync(cache, 0o666)
        const loaded = CodeCache.load(file)
        assert.strictEqual(loaded.status, "untrusted")
        assertRuns(file, loaded)
        fs.chmodSync(cache, 0o644)
        assert.strictEqual(CodeCache.load(file).status, "used")
        const dir = path.dirname(file)
        fs.chmodSync(dir, 0o777)
        assert.strictEqual(CodeCache.load(file).status, "untrusted", "nor in a folder others can write")
        fs.rmSync(cache)
        CodeCache.load(file).save()
        assert.isFalse(fs.existsSync(cache), "nothing is written into such a folder")
        fs.chmodSync(dir, 0o700)
      })
  )

  it.live("the launcher writes the cache beside the command line's bundle and runs the same with it, or a damaged one", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const launcher = path.join(dir, "ahp.mjs")
      fs.cpSync(path.dirname(bundle), dir, { recursive: true, filter: (from) => !from.endsWith(".cache") })
      const main = fs.readdirSync(path.join(dir, "chunks")).filter((f) => /^Main-\w+\.cjs$/.test(f))
      assert.strictEqual(main.length, 1, "the command line is one CommonJS file")
      const caches = () => fs.readdirSync(path.join(dir, "chunks")).filter((f) => f.endsWith(".cache"))
      assert.deepStrictEqual(caches(), [])
      const args = ["validate", "--json", path.join(dir, "missing.json")]
      const cold = yield* runCli(args, { command: [launcher] })
      assert.strictEqual(cold.code, 2, cold.stderr)
      assert.strictEqual(caches().length, 1)
      assert.isTrue(caches()[0]!.startsWith(`${main[0]}.${process.version}-${process.arch}-`))
      const warm = yield* runCli(args, { command: [launcher] })
      assert.deepStrictEqual([warm.code, warm.stdout, warm.stderr], [cold.code, cold.stdout, cold.stderr])
      const cache = path.join(dir, "chunks", caches()[0]!)
      fs.writeFileSync(cache, "damaged")
      const damaged = yield* runCli(args, { command: [launcher] })
      assert.deepStrictEqual([damaged.code, damaged.stdout, damaged.stderr], [cold.code, cold.stdout, cold.stderr])
      assert.isAbove(fs.statSync(cache).size, 1000, "a rejected cache is replaced")
    }).pipe(Effect.scoped))

  it.live("a short command and a serving one (V8 told otherwise) keep a cache each, and each reuses its own", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const launcher = path.join(dir, "ahp.mjs")
      fs.cpSync(path.dirname(bundle), dir, { recursive: true, filter: (from) => !from.endsWith(".cache") })
      const caches = () =>
        new Map(
          fs.readdirSync(path.join(dir, "chunks")).filter((f) => f.endsWith(".cache")).map((f) => [
            f,
            fs.statSync(path.join(dir, "chunks", f)).ino
          ])
        )
      const short = () => runCli(["validate", "--json", path.join(dir, "missing.json")], { command: [launcher] })
      const serving = () =>
        runCli(["--log-level", "error", "serve", "--stdio", "shell-guard"], { command: [launcher], input: "" })
      assert.strictEqual((yield* short()).code, 2)
      assert.strictEqual(caches().size, 1)
      const served = yield* serving()
      assert.strictEqual(served.code, 0, served.stderr)
      const written = caches()
      assert.strictEqual(written.size, 2, "the serving command's cache is a file of its own")
      for (const run of [short, serving, short]) yield* run()
      // a cache is replaced through a new file (written, then renamed): the same inode was reused
      assert.deepStrictEqual(caches(), written)
    }).pipe(Effect.scoped))
})

describe("the bundle", () => {
  it.live(
    "built from another working directory, the launcher finds the command line's file; the package's files are the build's",
    () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const out = path.join(dir, "dist")
        const script = `const { bundle } = await import(${
          JSON.stringify(pathToFileURL(path.join(root, "scripts", "bundle.mjs")).href)
        }); await bundle(${JSON.stringify(out)})`
        const built = yield* runCli([], { command: ["--input-type=module", "-e", script], cwd: dir })
        assert.strictEqual(built.code, 0, built.stderr)
        const written = ["ahp.mjs", ...fs.readdirSync(path.join(out, "chunks")).map((file) => `chunks/${file}`)]
        assert.deepStrictEqual(
          [...bundleFiles(out)].sort(),
          written.sort(),
          "what scripts/build.mjs copies into the package"
        )
        const run = yield* runCli(["validate", path.join(root, "examples", "registration.json")], {
          command: [path.join(out, "ahp.mjs")],
          cwd: dir
        })
        assert.strictEqual(run.code, 0, run.stderr)
        assert.match(run.stdout, /valid \(registration\)/)
      }).pipe(Effect.scoped),
    60_000
  )
})
