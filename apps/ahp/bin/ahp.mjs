#!/usr/bin/env node
// The workspace's `ahp` (what `pnpm ahp` runs): the bundle in <repository>/dist, rebuilt
// first when a source file is newer than it. The published package's bin is the bundle
// itself (dist/ahp.mjs of the package).
import { existsSync, readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { bundle, pruneChunks, root, sources } from "../../../scripts/bundle.mjs"

const outdir = join(root, "dist")
const entry = join(outdir, "ahp.mjs")

const newest = (path) => {
  if (!existsSync(path)) return 0
  const stats = statSync(path)
  if (!stats.isDirectory()) return stats.mtimeMs
  return Math.max(0, ...readdirSync(path).map((name) => newest(join(path, name))))
}

if (!existsSync(entry) || Math.max(...sources.map(newest)) > statSync(entry).mtimeMs) {
  const { chunks } = await bundle(outdir)
  pruneChunks(outdir, chunks)
}
await import(pathToFileURL(entry).href)
