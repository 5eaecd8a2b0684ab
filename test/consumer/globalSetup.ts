/**
 * Packs the published packages once for the consumer check's files, as a maintainer packs
 * them (`pnpm -r pack` through scripts/pack.mjs: each package's prepack script builds it),
 * into a temporary folder outside the workspace, and provides their tarballs and packed
 * manifests (`inject("packed")`); a failure is provided too, so that every test names it.
 * Under `pnpm test` the type-check runs beside the tests and builds what is packed here, so
 * this waits for it first (AHP_TYPECHECK_RESULT names the file that receives its exit code).
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import type { TestProject } from "vitest/node"
import { pack } from "../../scripts/pack.mjs"
import type { Manifest, Packed } from "./support.js"

/** Waits for the type-check `scripts/test.mjs` runs beside the tests, when it runs one. */
const typecheckDone = async (): Promise<void> => {
  const result = process.env.AHP_TYPECHECK_RESULT
  if (result === undefined || result === "") return
  while (!fs.existsSync(result)) await new Promise((resolve) => setTimeout(resolve, 250))
  const code = fs.readFileSync(result, "utf8")
  if (code !== "0") throw new Error(`the type-check failed (exit code ${code}): its build cannot be packed`)
}

export default async function setup(project: TestProject) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ahp-consumer-"))
  let packed: Packed
  try {
    await typecheckDone()
    const tarballs = await pack(path.join(dir, "tarballs"))
    packed = {
      _tag: "Packed",
      dir,
      packages: tarballs.map(({ name, tarball, version }) => ({
        name,
        version,
        tarball,
        manifest: JSON.parse(
          execFileSync("tar", ["xzf", tarball, "-O", "package/package.json"], { encoding: "utf8" })
        ) as Manifest
      }))
    }
  } catch (error) {
    packed = { _tag: "Failed", error: error instanceof Error ? error.message : String(error) }
  }
  project.provide("packed", packed)
  return () => fs.rmSync(dir, { recursive: true, force: true })
}
