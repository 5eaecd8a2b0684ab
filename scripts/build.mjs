// Builds every package for publishing:
// - packages/<name>/dist: ES modules, declarations and source maps of packages/<name>/src,
//   from one tsc program over every package's sources (tsconfig.build.json, output in
//   build/), the maps pointing at the package's own src/ (which the package ships);
// - apps/ahp/dist: the command line's bundle, which needs nothing at run time but Node: the
//   files of the workspace's bundle (<repository>/dist, scripts/bundle.mjs), bundled first
//   when a source is newer;
// - LICENSE in each package.
// Each package's `prepack` script runs it for that package alone (`node ../../scripts/build.mjs
// protocol`), so `pnpm -r pack` and `pnpm publish -r` pack fresh builds; the tsc build is
// incremental (one program for all packages, its outputs in build/), so only the first
// package of a run compiles.
// Usage: node scripts/build.mjs [protocol|harness|hosts|node|backend|hook|tools|cli]… (none: all of them)
import { spawnSync } from "node:child_process"
import { copyFileSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { bundleFiles, freshBundle, root } from "./bundle.mjs"

export const libraries = ["protocol", "harness", "hosts", "node", "backend", "hook", "tools"]

const tsc = join(root, "node_modules", "typescript", "bin", "tsc")

/** Copies one compiled file, pointing a source map's sources at the package's src/. */
const copyOutput = (from, to) => {
  if (!from.endsWith(".map")) return copyFileSync(from, to)
  const map = JSON.parse(readFileSync(from, "utf8"))
  map.sources = map.sources.map((source) => relative(dirname(to), resolve(dirname(from), source)).split("\\").join("/"))
  writeFileSync(to, JSON.stringify(map))
}

/** Mirrors the outputs of every source file of src/ into dist/ (stale outputs of deleted sources are left out). */
const copyTree = (src, built, dist) => {
  mkdirSync(dist, { recursive: true })
  for (const entry of readdirSync(src, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      copyTree(join(src, entry.name), join(built, entry.name), join(dist, entry.name))
      continue
    }
    if (!entry.name.endsWith(".ts") || entry.name.endsWith(".d.ts")) continue
    const base = entry.name.slice(0, -".ts".length)
    for (const suffix of [".js", ".js.map", ".d.ts", ".d.ts.map"]) {
      copyOutput(join(built, base + suffix), join(dist, base + suffix))
    }
  }
}

/** What `build` builds: the library packages and the command line (`cli`). */
export const buildable = [...libraries, "cli"]

export const build = async (names = buildable) => {
  const unknown = names.filter((name) => !buildable.includes(name))
  if (unknown.length > 0) throw new Error(`no package ${unknown.join(", ")} to build (${buildable.join(", ")})`)
  if (names.some((name) => libraries.includes(name))) compile()
  for (const name of libraries.filter((name) => names.includes(name))) {
    const dir = join(root, "packages", name)
    rmSync(join(dir, "dist"), { recursive: true, force: true })
    copyTree(join(dir, "src"), join(root, "build", "packages", name, "src"), join(dir, "dist"))
    copyFileSync(join(root, "LICENSE"), join(dir, "LICENSE"))
  }
  if (names.includes("cli")) await buildCli()
}

/** Compiles every library package into build/ (incremental: up-to-date outputs are kept). */
const compile = () => {
  const compiled = spawnSync(process.execPath, [tsc, "-b", join(root, "tsconfig.build.json")], {
    cwd: root,
    stdio: "inherit"
  })
  if (compiled.status !== 0) throw new Error(`tsc -b tsconfig.build.json failed (exit code ${compiled.status})`)
}

/** The command line's dist/: the files of the workspace's bundle, bundled first when a source is newer. */
const buildCli = async () => {
  const cli = join(root, "apps", "ahp")
  rmSync(join(cli, "dist"), { recursive: true, force: true })
  const bundled = join(root, "dist")
  await freshBundle(bundled)
  for (const file of bundleFiles(bundled)) {
    mkdirSync(dirname(join(cli, "dist", file)), { recursive: true })
    copyFileSync(join(bundled, file), join(cli, "dist", file))
  }
  copyFileSync(join(root, "LICENSE"), join(cli, "LICENSE"))
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  await build(process.argv.length > 2 ? process.argv.slice(2) : buildable)
}
