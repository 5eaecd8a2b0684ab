/**
 * The host hook material the tests read from `../shared/hosts` (never copied into the
 * repository; `AHP_HOSTS_SHARED` overrides the location): every captured and documented
 * payload and documented output of each host, parsed.
 */
import { Json } from "@effect-ahp/protocol"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"

const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** The folder holding `claude-code/` and `codex/`, or `undefined` when absent. */
export const hostsRoot: string | undefined = (() => {
  const candidate = process.env.AHP_HOSTS_SHARED ?? join(repositoryRoot, "..", "shared", "hosts")
  return existsSync(join(candidate, "claude-code", "CONTRACT.md")) ? candidate : undefined
})()

/** One JSON file of the material. */
export interface Sample {
  readonly file: string
  readonly value: Json.JsonObject
}

const read = (host: string, kind: "payloads" | "outputs"): ReadonlyArray<Sample> => {
  if (hostsRoot === undefined) return []
  const dir = join(hostsRoot, host, kind)
  return readdirSync(dir).filter((f) => f.endsWith(".json")).sort().map((file) => {
    const parsed = Json.parse(readFileSync(join(dir, file), "utf8"))
    if (parsed._tag === "Left" || !Json.isObject(parsed.right)) throw new Error(`${file} is not a JSON object`)
    return { file, value: parsed.right }
  })
}

/** The payloads of a host. */
export const payloads = (host: "claude-code" | "codex"): ReadonlyArray<Sample> => read(host, "payloads")

/** The documented outputs of a host, by file name. */
export const outputs = (host: "claude-code" | "codex"): ReadonlyMap<string, Json.JsonObject> =>
  new Map(read(host, "outputs").map((s) => [s.file, s.value]))
