/**
 * One host run's private world: a temporary folder holding the home (`HOME`, Codex's
 * `CODEX_HOME` below it), the user's state folder (`XDG_STATE_HOME`, where `ahp trust`
 * keeps its record) and the project the agent works in, with the policy installed the way
 * a user installs it — the registration in `.ahp/registration.json` (the README's example
 * with its `args` pointing at the built `dist/ahp.mjs`, or a registration of the
 * scenario's own), `ahp hook install <host> --project` run in the project, then `ahp trust`
 * on the registration. Every folder is created 0700 and every file written 0600 whatever
 * the umask, so nothing is group- or other-writable (the hook uses no registration that
 * is).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

/** The repository's root. */
export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "..")

/** The scripted test backend (test/support/scripted-backend.mjs). */
export const scriptedBackend = path.join(root, "test", "support", "scripted-backend.mjs")

/** A private world for one run. */
export interface Workspace {
  readonly root: string
  readonly home: string
  readonly codexHome: string
  /** The user's state folder (`XDG_STATE_HOME`). */
  readonly state: string
  readonly project: string
  /** A file in the project. */
  readonly file: (name: string) => string
  /** Removes the folder. */
  readonly remove: () => void
}

/** Creates a workspace under the system's temporary folder. */
export const make = (name: string): Workspace => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `ahp-host-${name}-`))
  const home = path.join(dir, "home")
  const codexHome = path.join(home, ".codex")
  const project = path.join(dir, "project")
  const state = path.join(dir, "state")
  for (const folder of [home, codexHome, state, project, path.join(project, ".ahp")]) {
    fs.mkdirSync(folder, { recursive: true, mode: 0o700 })
    fs.chmodSync(folder, 0o700)
  }
  return {
    root: dir,
    home,
    codexHome,
    state,
    project,
    file: (file) => path.join(project, file),
    remove: () => fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** A registration document. */
export type Registration = { readonly protocolVersion: string; readonly hooks: ReadonlyArray<unknown> }

/**
 * The README's example registration (examples/registration.json) as a user installs it in a
 * project: its `args` name the built bundle's absolute path, and the audit file lands in the
 * project.
 */
export const example = (bundle: string, workspace: Workspace): Registration => {
  const text = fs.readFileSync(path.join(root, "examples", "registration.json"), "utf8")
  return JSON.parse(
    text.replaceAll("\"dist/ahp-audit.jsonl\"", JSON.stringify(workspace.file("ahp-audit.jsonl")))
      .replaceAll("\"dist/ahp.mjs\"", JSON.stringify(bundle))
  ) as Registration
}

/** A persistent stdio backend running one of the `ahp serve` examples. */
export const exampleBackend = (
  bundle: string,
  id: string,
  name: string,
  subscriptions: ReadonlyArray<unknown>,
  extra: ReadonlyArray<string> = []
) => ({
  id,
  transport: {
    type: "stdio",
    command: process.execPath,
    args: [bundle, "serve", name, "--stdio", ...extra],
    lifecycle: "persistent"
  },
  subscriptions
})

/** A stdio backend running the scripted test backend with a behaviour (and `--log FILE` when given). */
export const scripted = (
  id: string,
  behaviour: string,
  subscriptions: ReadonlyArray<unknown>,
  options: { readonly log?: string; readonly lifecycle?: "persistent" | "per_event" } = {}
) => ({
  id,
  transport: {
    type: "stdio",
    command: process.execPath,
    args: [scriptedBackend, "stdio", behaviour, ...(options.log !== undefined ? ["--log", options.log] : [])],
    lifecycle: options.lifecycle ?? "persistent"
  },
  subscriptions
})

/** Writes the project's `.ahp/registration.json`. */
export const writeRegistration = (workspace: Workspace, registration: Registration): string => {
  const file = registrationFile(workspace)
  writePrivate(file, `${JSON.stringify(registration, null, 2)}\n`)
  return file
}

/** The project's `.ahp/registration.json`. */
export const registrationFile = (workspace: Workspace): string =>
  path.join(workspace.project, ".ahp", "registration.json")

/** Writes a file readable and writable by its owner only. */
const writePrivate = (file: string, text: string) => {
  fs.writeFileSync(file, text, { mode: 0o600 })
  fs.chmodSync(file, 0o600)
}

/** What one `ahp` command printed. */
export interface Output {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node <bundle> …args` in the project, with the workspace's home. */
export const ahp = (bundle: string, workspace: Workspace, args: ReadonlyArray<string>): Output => {
  const run = spawnSync(process.execPath, [bundle, ...args], {
    cwd: workspace.project,
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      HOME: workspace.home,
      CODEX_HOME: workspace.codexHome,
      XDG_STATE_HOME: workspace.state
    },
    encoding: "utf8",
    timeout: 60_000
  })
  return { status: run.status, stdout: run.stdout, stderr: run.stderr }
}

/**
 * `ahp hook install <host> --project` in the project, as the README shows it; throws with
 * what it printed when it fails.
 */
export const install = (
  bundle: string,
  workspace: Workspace,
  host: "claude-code" | "codex",
  extra: ReadonlyArray<string> = []
): Output => {
  const output = ahp(bundle, workspace, ["hook", "install", host, "--project", ...extra])
  if (output.status !== 0) throw new Error(`ahp hook install ${host} failed: ${output.stderr}${output.stdout}`)
  return output
}

/**
 * `ahp trust <project>/.ahp/registration.json`, as the user does once they reviewed it;
 * throws with what it printed when it fails.
 */
export const trust = (bundle: string, workspace: Workspace): Output => {
  const output = ahp(bundle, workspace, ["trust", registrationFile(workspace)])
  if (output.status !== 0) throw new Error(`ahp trust failed: ${output.stderr}${output.stdout}`)
  return output
}

/** The settings file `install` wrote for a host in the project. */
export const settingsFile = (workspace: Workspace, host: "claude-code" | "codex"): string =>
  host === "claude-code"
    ? path.join(workspace.project, ".claude", "settings.json")
    : path.join(workspace.project, ".codex", "hooks.json")

/** Reads a JSON file. */
export const readJson = (file: string): any => JSON.parse(fs.readFileSync(file, "utf8"))

/** Writes a JSON file. */
export const writeJson = (file: string, value: unknown): void => {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 })
  writePrivate(file, `${JSON.stringify(value, null, 2)}\n`)
}

/** The JSON lines of a file (empty when it does not exist). */
export const jsonLines = (file: string): Array<any> =>
  fs.existsSync(file)
    ? fs.readFileSync(file, "utf8").split("\n").filter((line) => line.trim() !== "").map((line) => JSON.parse(line))
    : []
