/**
 * The packed packages as files: what each tarball holds and declares, that every module
 * they import is a declared dependency or peer (read from the shipped sources, modules and
 * declarations), that `pnpm publish -r` builds and would publish exactly the tarballs the
 * consumer check installs, and that the changesets configuration versions the published
 * packages together.
 */
import { assert, describe, inject, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import * as fs from "node:fs"
import { builtinModules } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import ts from "typescript"
import { workspacePackages } from "../../scripts/pack.mjs"
import { packageName, type PackedPackage, root, step } from "./support.js"

const packedPackages = (): ReadonlyArray<PackedPackage> => {
  const packed = inject("packed")
  if (packed._tag === "Failed") throw new Error(`the packages could not be packed: ${packed.error}`)
  return packed.packages
}

const published = workspacePackages().filter((p) => !p.private)

const listing = async (tarball: string) =>
  (await step("listing a tarball", "tar", ["tzf", tarball], os.tmpdir())).stdout.split("\n").filter((l) => l !== "")

const targets = (exports: unknown): Array<string> =>
  typeof exports === "string"
    ? [exports]
    : exports !== null && typeof exports === "object"
    ? Object.values(exports).flatMap(targets)
    : []

/** Every file under a folder, relative to it. */
const filesUnder = (dir: string): Array<string> =>
  fs.existsSync(dir) ? fs.readdirSync(dir, { recursive: true, encoding: "utf8" }) : []

const isBuiltin = (specifier: string) => specifier.startsWith("node:") || builtinModules.includes(specifier)

/** What a module specifier can be: a Node builtin, a package name with an optional subpath, or `types:NAME`. */
const specifierLike = /^(types:)?(node:)?(@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*(\/[\w.@/-]*)?$/i

/**
 * The modules a file imports, requires or references (`/// <reference types>`), relative ones
 * left out. TypeScript's pre-processor is a scanner, not a parser: in a minified bundle it can
 * take a string's text for a specifier (`import",{startsExpr})…` from a tokenizer's keyword
 * table), so only what can be a package's name counts.
 */
const importsOf = (file: string, text: string): Array<string> => {
  const info = ts.preProcessFile(text, true, /\.[cm]?js$/.test(file))
  return [...info.importedFiles, ...info.typeReferenceDirectives.map((t) => ({ fileName: `types:${t.fileName}` }))]
    .map((i) => i.fileName)
    .filter((specifier) => !specifier.startsWith(".") && specifierLike.test(specifier))
}

/**
 * The optional native add-ons of `ws` (in the command line's bundle, through
 * @effect/platform-node), which it requires inside `try` and does without.
 */
const optionalInBundle = ["bufferutil", "utf-8-validate"]

describe("the packed packages", () => {
  it("packs each published package with its publishing manifest and nothing but what it ships", async () => {
    const packages = packedPackages()
    assert.deepStrictEqual(packages.map((p) => p.name).sort(), published.map((p) => p.name).sort())
    for (const { manifest: pkg, name, tarball } of packages) {
      const files = await listing(tarball)
      assert.strictEqual(pkg.name, name)
      assert.notProperty(pkg, "private", name)
      for (const field of ["description", "license", "repository"]) assert.property(pkg, field, `${name} ${field}`)
      for (const required of ["package/package.json", "package/README.md", "package/LICENSE"]) {
        assert.include(files, required, `${name} ships ${required}`)
      }
      for (const file of files) {
        assert.notMatch(
          file,
          /(^|\/)(test|build|node_modules|\.tsbuildinfo)\/|tsconfig|vitest/,
          `${name} ships ${file}`
        )
      }
      for (const group of ["dependencies", "peerDependencies"] as const) {
        for (const [dependency, range] of Object.entries(pkg[group] ?? {})) {
          assert.notMatch(range, /^workspace:/, `${name} ${group} ${dependency}`)
        }
      }
      for (const target of targets(pkg.exports)) {
        assert.include(files, `package/${target.replace(/^\.\//, "")}`, `${name} exports ${target}`)
      }
      if (name === "@effect-ahp/cli") {
        assert.deepStrictEqual(pkg.bin, { ahp: "./dist/ahp.mjs" })
        assert.include(files, "package/dist/ahp.mjs")
        assert.notProperty(pkg, "dependencies", "the command line is one bundle: nothing to install with it")
      } else {
        assert.include(files, "package/dist/index.js")
        assert.include(files, "package/dist/index.d.ts")
        assert.isTrue(targets(pkg.exports).every((t) => !t.includes("internal") && !t.startsWith("./src")), name)
        assert.match(pkg.peerDependencies!.effect!, /^\^3\./, `${name} takes effect as a caret peer dependency`)
      }
    }
  })

  it("imports nothing but its declared dependencies and peers (sources, modules, declarations), and uses each", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "ahp-imports-"))
    try {
      const problems: Array<string> = []
      for (const { manifest: pkg, name, tarball } of packedPackages()) {
        const dir = path.join(work, name.replace("/", "-"))
        fs.mkdirSync(dir)
        await step("unpacking a tarball", "tar", ["xzf", tarball, "-C", dir], dir)
        const declared = new Set([...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {})])
        const used = new Set<string>()
        const scanned = [
          ...filesUnder(path.join(dir, "package", "src")).filter((f) => f.endsWith(".ts")).map((f) => `src/${f}`),
          ...filesUnder(path.join(dir, "package", "dist")).filter((f) => /\.([cm]?js|d\.ts)$/.test(f)).map((f) =>
            `dist/${f}`
          )
        ]
        assert.isNotEmpty(scanned, name)
        for (const file of scanned) {
          for (const specifier of importsOf(file, fs.readFileSync(path.join(dir, "package", file), "utf8"))) {
            // Node's own declarations come from the application's @types/node, as for every Node library
            if (isBuiltin(specifier) || specifier === "types:node") continue
            const imported = packageName(specifier.replace(/^types:/, ""))
            if (imported === name) continue
            used.add(imported)
            if (declared.has(imported)) continue
            if (name === "@effect-ahp/cli" && optionalInBundle.includes(imported)) continue
            problems.push(`${name}: ${file} imports ${specifier}, neither a dependency nor a peer dependency`)
          }
        }
        for (const dependency of declared) {
          if (!used.has(dependency)) problems.push(`${name} declares ${dependency}, which none of its files imports`)
        }
      }
      assert.deepStrictEqual(problems, [])
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  })

  it("pnpm publish -r builds each package first and would publish exactly the tarballs installed here", async () => {
    const packages = packedPackages()
    // each package's prepack removes its dist/ and writes it again: its entry file is new afterwards
    const entry = (p: { readonly name: string; readonly path: string }) =>
      path.join(p.path, "dist", p.name === "@effect-ahp/cli" ? "ahp.mjs" : "index.js")
    const before = new Map(published.map((p) => [p.name, fs.statSync(entry(p)).mtimeMs]))
    const ran = await step(
      "pnpm publish -r --dry-run",
      "pnpm",
      ["publish", "-r", "--dry-run", "--no-git-checks", "--json"],
      root
    )
    const planned: ReadonlyArray<{ readonly name: string; readonly shasum: string }> = JSON.parse(ran.stdout)
    assert.deepStrictEqual(planned.map((p) => p.name).sort(), packages.map((p) => p.name).sort())
    for (const { name, tarball } of packages) {
      const sha1 = createHash("sha1").update(fs.readFileSync(tarball)).digest("hex")
      assert.strictEqual(planned.find((p) => p.name === name)!.shasum, sha1, `${name}: the same bytes as pnpm -r pack`)
    }
    for (const p of published) {
      assert.isAbove(fs.statSync(entry(p)).mtimeMs, before.get(p.name)!, `${p.name}: built again before it is packed`)
    }
  })

  it("changeset version moves every published package to one new version, each with its changelog", async () => {
    const work = fs.mkdtempSync(path.join(os.tmpdir(), "ahp-release-"))
    try {
      const copy = (file: string) => {
        fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true })
        fs.copyFileSync(path.join(root, file), path.join(work, file))
      }
      for (const file of ["package.json", "pnpm-workspace.yaml", ".changeset/config.json"]) copy(file)
      const all = workspacePackages()
      for (const p of all) {
        if (path.resolve(p.path) !== path.resolve(root)) copy(path.relative(root, path.join(p.path, "package.json")))
      }
      fs.writeFileSync(
        path.join(work, ".changeset", "node-peer.md"),
        `---\n"@effect-ahp/node": minor\n---\n\n\`@effect/platform-node\` is a peer dependency.\n`
      )
      const bin = path.join(root, "node_modules", "@changesets", "cli", "bin.js")
      await step("changeset version", process.execPath, [bin, "version"], work)
      assert.isFalse(fs.existsSync(path.join(work, ".changeset", "node-peer.md")), "the changeset is consumed")
      const versions = new Set(published.map((p) => p.version))
      assert.strictEqual(versions.size, 1, "the published packages share one version")
      const [before] = versions
      const [major, minor] = before!.split(".").map(Number)
      for (const p of all.filter((p) => path.resolve(p.path) !== path.resolve(root))) {
        const dir = path.join(work, path.relative(root, p.path))
        const version = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")).version
        if (p.private) {
          assert.strictEqual(version, p.version, `${p.name} is private: not versioned`)
          continue
        }
        const next = `${major}.${minor! + 1}.0`
        assert.strictEqual(version, next, `${p.name} moves with the fixed group`)
        assert.include(fs.readFileSync(path.join(dir, "CHANGELOG.md"), "utf8"), `## ${next}`, p.name)
      }
      assert.include(
        fs.readFileSync(path.join(work, "packages", "node", "CHANGELOG.md"), "utf8"),
        "`@effect/platform-node` is a peer dependency."
      )
    } finally {
      fs.rmSync(work, { recursive: true, force: true })
    }
  })
})
