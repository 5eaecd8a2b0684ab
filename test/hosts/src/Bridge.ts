/**
 * `ahp bridge` for a workspace, as a user runs it beside the host: the project's
 * registration, an HTTP port for Claude Code's `http` hooks (`--http 0`), `--verbose`
 * (a trace line per call on stderr), and the environment the host's hooks see (the
 * workspace's `HOME` and `TMPDIR`), so the command hook finds its socket, and the
 * workspace's `AHP_BRIDGE_SECRET` (`secret`), which Claude Code hands its `http` hooks.
 * Bounded: it is ready within 30 s or killed, and `stop` ends it (SIGKILL after a 2 s
 * grace).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import { besideTheRun } from "./Hosts.js"
import type { Workspace } from "./Workspace.js"

/** A running bridge. */
export interface Bridge {
  /** `http://127.0.0.1:PORT/hooks/claude-code`. */
  readonly url: string
  /** What it wrote on stderr so far (the trace). */
  readonly stderr: () => string
  readonly stop: () => Promise<void>
}

const exited = (child: ChildProcess) =>
  new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve()
    else child.once("close", () => resolve())
  })

/** Starts the bridge for the workspace's registration; resolves once it listens on its port and socket. */
export const start = (bundle: string, workspace: Workspace): Promise<Bridge> =>
  new Promise((resolve, reject) => {
    const tmp = path.join(workspace.root, "tmp")
    fs.mkdirSync(tmp, { recursive: true, mode: 0o700 })
    const child = spawn(process.execPath, [
      bundle,
      "bridge",
      "--registration",
      path.join(workspace.project, ".ahp", "registration.json"),
      "--http",
      "0",
      "--verbose"
    ], {
      cwd: workspace.project,
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: workspace.home,
        XDG_STATE_HOME: workspace.state,
        TMPDIR: tmp,
        AHP_BRIDGE_SECRET: secret(workspace),
        [besideTheRun]: "1"
      },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    let url: string | undefined
    const stop = async () => {
      child.kill("SIGTERM")
      const grace = setTimeout(() => child.kill("SIGKILL"), 2_000)
      await exited(child)
      clearTimeout(grace)
    }
    const ready = setTimeout(() => {
      void stop()
      reject(new Error(`ahp bridge was not ready within 30 s: ${stdout}${stderr}`))
    }, 30_000)
    const check = () => {
      url ??= /listening on (http:\/\/\S+)/.exec(stdout)?.[1]
      if (url !== undefined && /listening on socket /.test(stdout)) {
        clearTimeout(ready)
        resolve({ url, stderr: () => stderr, stop })
      }
    }
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk
      check()
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      stderr += chunk
      check()
    })
    child.on("close", (code) => {
      clearTimeout(ready)
      reject(new Error(`ahp bridge exited with ${code}: ${stdout}${stderr}`))
    })
  })

const secrets = new WeakMap<Workspace, string>()

/** The workspace's bridge secret (64 random hex characters, its own per workspace). */
export const secret = (workspace: Workspace): string => {
  let value = secrets.get(workspace)
  if (value === undefined) {
    value = randomBytes(32).toString("hex")
    secrets.set(workspace, value)
  }
  return value
}

/** The port of a bridge's `http://127.0.0.1:PORT/hooks/claude-code`. */
export const port = (bridge: Bridge): number => Number(new URL(bridge.url).port)
