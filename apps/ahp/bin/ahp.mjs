#!/usr/bin/env node
// The workspace's `ahp` (what `pnpm ahp` runs): the bundle in <repository>/dist, rebuilt
// first when a source file is newer than it. The published package's bin is the bundle
// itself (dist/ahp.mjs of the package).
import { join } from "node:path"
import { pathToFileURL } from "node:url"
import { freshBundle, root } from "../../../scripts/bundle.mjs"

await import(pathToFileURL(await freshBundle(join(root, "dist"))).href)
