// Packs every published package as `pnpm -r pack` does, which is what this runs: each
// package's `prepack` script builds it first (scripts/build.mjs), and pnpm applies
// publishConfig and rewrites workspace: ranges to versions. One tarball per package in
// DEST; pnpm packs the private workspace packages too (test/), whose tarballs are removed
// (`pnpm publish -r` skips them). Prints the tarballs' paths, one a line.
// Usage: node scripts/pack.mjs DEST
import { spawnSync } from "node:child_process"
import { mkdirSync, rmSync } from "node:fs"
import { resolve } from "node:path"
import { root } from "./bundle.mjs"

/** Runs `pnpm -r pack --pack-destination DEST`; resolves with the published packages' names, versions and tarballs. */
export const pack = async (dest) => {
  mkdirSync(dest, { recursive: true })
  const packed = spawnSync("pnpm", ["-r", "pack", "--pack-destination", dest, "--json"], {
    cwd: root,
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024
  })
  if (packed.status !== 0) {
    throw new Error(`pnpm -r pack failed (exit code ${packed.status}): ${packed.stderr}${packed.stdout}`)
  }
  const published = new Set(workspacePackages().filter((p) => !p.private).map((p) => p.name))
  const tarballs = []
  for (const { name, version, filename } of JSON.parse(packed.stdout)) {
    if (published.has(name)) tarballs.push({ name, version, tarball: filename })
    else rmSync(filename, { force: true })
  }
  return tarballs
}

/** The workspace's packages (the root's included) as pnpm lists them: name, version, path, private. */
export const workspacePackages = () => {
  const listed = spawnSync("pnpm", ["-r", "ls", "--depth", "-1", "--json"], { cwd: root, encoding: "utf8" })
  if (listed.status !== 0) throw new Error(`pnpm -r ls failed (exit code ${listed.status}): ${listed.stderr}`)
  return JSON.parse(listed.stdout)
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === import.meta.filename) {
  const dest = process.argv[2]
  if (dest === undefined) {
    process.stderr.write("usage: node scripts/pack.mjs DEST\n")
    process.exit(2)
  }
  for (const { tarball } of await pack(resolve(dest))) process.stdout.write(`${tarball}\n`)
}
