// Builds every package (scripts/build.mjs) and packs it as it would be published: one
// tarball per package in DEST (pnpm pack applies publishConfig and rewrites workspace:
// ranges to versions). Prints the tarballs' paths, one a line.
// Usage: node scripts/pack.mjs DEST
import { spawnSync } from "node:child_process"
import { mkdirSync, readdirSync } from "node:fs"
import { join, resolve } from "node:path"
import { build, libraries } from "./build.mjs"
import { root } from "./bundle.mjs"

export const packageDirs = [...libraries.map((name) => join(root, "packages", name)), join(root, "apps", "ahp")]

export const pack = async (dest) => {
  await build()
  mkdirSync(dest, { recursive: true })
  const before = new Set(readdirSync(dest))
  for (const dir of packageDirs) {
    const packed = spawnSync("pnpm", ["pack", "--pack-destination", dest], { cwd: dir, encoding: "utf8" })
    if (packed.status !== 0) {
      throw new Error(`pnpm pack failed in ${dir} (exit code ${packed.status}): ${packed.stderr}`)
    }
  }
  return readdirSync(dest).filter((file) => file.endsWith(".tgz") && !before.has(file)).map((file) => join(dest, file))
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const dest = process.argv[2]
  if (dest === undefined) {
    process.stderr.write("usage: node scripts/pack.mjs DEST\n")
    process.exit(2)
  }
  for (const tarball of await pack(resolve(dest))) process.stdout.write(`${tarball}\n`)
}
