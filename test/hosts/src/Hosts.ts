/**
 * Running the real hosts, offline: Claude Code (`claude -p`, the platform binary of
 * `@anthropic-ai/claude-code`) and the Codex CLI (`codex exec`), each against a fake
 * model, with a private `HOME` (and `CODEX_HOME`), telemetry, error reports and update
 * checks off, and an environment of its own (nothing of the test process's reaches the
 * host but `PATH`). A run is bounded: at its deadline the host's whole process group is
 * killed; after it ends, every process still carrying its private `HOME` (a hook or a
 * backend the host left behind) is listed as a leftover and killed.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import { createRequire } from "node:module"
import * as path from "node:path"
import * as Anthropic from "./Anthropic.js"
import type { FakeModel, Step, Vendor } from "./FakeModel.js"
import { tool } from "./FakeModel.js"
import * as OpenAi from "./OpenAi.js"
import type { Workspace } from "./Workspace.js"

const require = createRequire(import.meta.url)

/**
 * The variable naming a folder whose `node_modules` holds other versions of the hosts
 * (`@anthropic-ai/claude-code`, `@openai/codex` and their platform packages), which the
 * suite then runs instead of the versions this package pins; `rerun.mjs` installs them
 * into a temporary folder and runs the suite with it.
 */
export const hostsFromVariable = "AHP_HOSTS_FROM"

/** The host packages the suite runs: their versions, Claude Code's binary and Codex's launcher. */
export interface HostPackages {
  readonly versions: { readonly claudeCode: string; readonly codex: string }
  /**
   * Claude Code's native binary: the platform package `@anthropic-ai/claude-code` depends on
   * (its `bin/claude.exe` is a placeholder until a postinstall script copies the binary in;
   * the suite does not need that script).
   */
  readonly claudeBinary: string
  /** Codex's launcher script (it starts the native binary of `@openai/codex-<platform>`). */
  readonly codexLauncher: string
}

/**
 * The host packages installed in `from` (a folder with `node_modules`), or those this
 * package pins when `from` is undefined; throws naming the folder when one is missing.
 */
export const hostPackages = (from: string | undefined): HostPackages => {
  const packageDir = (name: string, base: string | undefined): string => {
    try {
      return path.dirname(require.resolve(`${name}/package.json`, base === undefined ? undefined : { paths: [base] }))
    } catch {
      throw new Error(
        `${name} is not installed${from === undefined ? "" : ` in ${from} (${hostsFromVariable})`}`
      )
    }
  }
  const version = (dir: string): string =>
    (JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { version: string }).version
  const claude = packageDir("@anthropic-ai/claude-code", from)
  const codex = packageDir("@openai/codex", from)
  const platform = `@anthropic-ai/claude-code-${process.platform}-${process.arch}`
  return {
    versions: { claudeCode: version(claude), codex: version(codex) },
    claudeBinary: path.join(packageDir(platform, claude), "claude"),
    codexLauncher: path.join(codex, "bin", "codex.js")
  }
}

const given = process.env[hostsFromVariable]

/** The host packages this run uses: `AHP_HOSTS_FROM`'s when set, else the pinned ones. */
export const packages: HostPackages = hostPackages(given === undefined || given === "" ? undefined : given)

/** The versions the suite proves in this run. */
export const versions = packages.versions

/** A process seen running. */
export interface Leftover {
  readonly pid: number
  readonly args: string
}

/** How one host run ended. */
export interface Run {
  readonly exitCode: number | null
  readonly signal: NodeJS.Signals | null
  /** Whether the run's deadline killed it. */
  readonly timedOut: boolean
  readonly stdout: string
  readonly stderr: string
  readonly durationMs: number
  /** The host's own log: Claude Code's `--debug-file`, Codex's stderr. */
  readonly log: string
  /** Processes with the run's `HOME` still alive after it ended (then killed). */
  readonly leftovers: ReadonlyArray<Leftover>
}

/** What a run needs beyond the workspace and the model. */
export interface RunOptions {
  readonly prompt?: string | undefined
  /** Extra command-line arguments. */
  readonly args?: ReadonlyArray<string> | undefined
  /** Extra environment variables. */
  readonly env?: Readonly<Record<string, string>> | undefined
  /** The run's deadline (default 90 s). */
  readonly timeoutMs?: number | undefined
  /** How long leftovers get to end by themselves after the run (default 5 s). */
  readonly settleMs?: number | undefined
}

const maxOutput = 16 * 1024 * 1024

/**
 * The variable marking processes the test started beside the host run (the bridge and the
 * backends it starts), which are not the run's leftovers.
 */
export const besideTheRun = "AHP_HOST_SUITE_BESIDE_THE_RUN"

/** A process's parent, or `undefined` once it ended. */
const parentOf = (pid: number): number | undefined => {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1])
  } catch {
    return undefined
  }
}

/**
 * The processes whose environment holds `HOME=<home>`, but not those marked `besideTheRun`
 * nor their descendants.
 */
export const processesWithHome = (home: string): Array<Leftover> => {
  const needle = Buffer.from(`\0HOME=${home}\0`)
  const beside = Buffer.from(`\0${besideTheRun}=1\0`)
  const found: Array<Leftover> = []
  const spared = new Set<number>()
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue
    try {
      const environ = Buffer.concat([Buffer.from("\0"), fs.readFileSync(`/proc/${name}/environ`)])
      if (!environ.includes(needle)) continue
      if (environ.includes(beside)) {
        spared.add(Number(name))
        continue
      }
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8")
      if (stat.slice(stat.lastIndexOf(")") + 2).startsWith("Z")) continue
      found.push({
        pid: Number(name),
        args: fs.readFileSync(`/proc/${name}/cmdline`, "utf8").split("\0").join(" ").trim()
      })
    } catch {
      // it ended meanwhile
    }
  }
  const besideOne = (pid: number): boolean => {
    for (let p: number | undefined = parentOf(pid), depth = 0; p !== undefined && p > 1 && depth < 64; depth++) {
      if (spared.has(p)) return true
      p = parentOf(p)
    }
    return false
  }
  return found.filter((p) => !besideOne(p.pid))
}

const kill = (pid: number, signal: NodeJS.Signals) => {
  try {
    process.kill(pid, signal)
  } catch {
    // it ended meanwhile
  }
}

/** Waits until no process carries `home`, or `ms` passed; kills and returns those left. */
const settle = async (home: string, ms: number): Promise<ReadonlyArray<Leftover>> => {
  const deadline = Date.now() + ms
  let left = processesWithHome(home)
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50))
    left = processesWithHome(home)
  }
  for (const p of left) kill(p.pid, "SIGKILL")
  return left
}

/** Runs a command as a host run: its own process group, bounded output and time. */
export const runProcess = (
  command: string,
  args: ReadonlyArray<string>,
  options: {
    readonly cwd: string
    readonly env: Readonly<Record<string, string>>
    readonly home: string
    readonly timeoutMs: number
    readonly settleMs: number
    /** The host's log, read once the run ended. */
    readonly log: (stderr: string) => string
  }
): Promise<Run> =>
  new Promise((resolve, reject) => {
    const started = Date.now()
    const child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      stdio: ["ignore", "pipe", "pipe"],
      detached: true
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      if (stdout.length < maxOutput) stdout += chunk
    })
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      if (stderr.length < maxOutput) stderr += chunk
    })
    let timedOut = false
    const timer = setTimeout(() => {
      timedOut = true
      if (child.pid !== undefined) kill(-child.pid, "SIGKILL")
    }, options.timeoutMs)
    child.on("error", (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on("close", (exitCode, signal) => {
      clearTimeout(timer)
      const durationMs = Date.now() - started
      if (child.pid !== undefined) kill(-child.pid, "SIGKILL")
      void settle(options.home, options.settleMs).then((leftovers) =>
        resolve({ exitCode, signal, timedOut, stdout, stderr, durationMs, log: options.log(stderr), leftovers })
      )
    })
  })

/** The environment every host run starts from. */
const baseEnv = (workspace: Workspace): Record<string, string> => ({
  PATH: process.env.PATH ?? "/usr/bin:/bin",
  HOME: workspace.home,
  XDG_STATE_HOME: workspace.state,
  SHELL: "/bin/bash",
  LANG: "C.UTF-8",
  TMPDIR: path.join(workspace.root, "tmp")
})

/** A host under test, as the scenarios drive it. */
export interface Host {
  readonly name: "claude-code" | "codex"
  readonly title: string
  readonly version: string
  readonly vendor: Vendor
  /** The model's step calling the host's shell tool with a command. */
  readonly shell: (command: string) => Step
  /** Runs the host in the workspace's project against the model. */
  readonly run: (workspace: Workspace, model: FakeModel, options?: RunOptions) => Promise<Run>
  /** The lines of the host's log that report a hook error, an invalid output or an unsupported field. */
  readonly hookProblems: (run: Run) => ReadonlyArray<string>
}

const defaultPrompt = "Do the task."

/** Claude Code, run as `claude -p` with permissions skipped (as root: `IS_SANDBOX=1`). */
export const claudeCode: Host = {
  name: "claude-code",
  title: "Claude Code",
  version: versions.claudeCode,
  vendor: Anthropic.vendor,
  shell: (command) => tool("Bash", { command, description: "run a command" }),
  run: (workspace, model, options = {}) => {
    const debugFile = path.join(workspace.root, "claude-debug.log")
    fs.mkdirSync(path.join(workspace.root, "tmp"), { recursive: true, mode: 0o700 })
    return runProcess(packages.claudeBinary, [
      "-p",
      options.prompt ?? defaultPrompt,
      "--output-format",
      "stream-json",
      "--verbose",
      "--include-hook-events",
      "--debug-file",
      debugFile,
      "--dangerously-skip-permissions",
      ...(options.args ?? [])
    ], {
      cwd: workspace.project,
      env: {
        ...baseEnv(workspace),
        ANTHROPIC_BASE_URL: model.origin,
        ANTHROPIC_API_KEY: "sk-ant-fake-key-for-the-local-fake-model",
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_ERROR_REPORTING: "1",
        IS_SANDBOX: "1",
        ...options.env
      },
      home: workspace.home,
      timeoutMs: options.timeoutMs ?? 90_000,
      settleMs: options.settleMs ?? 5_000,
      log: () => (fs.existsSync(debugFile) ? fs.readFileSync(debugFile, "utf8") : "")
    })
  },
  hookProblems: (run) => [
    ...run.log.split("\n").filter((line) =>
      /Hook JSON output had unrecognized keys|hook output invalid|JSON output validation failed|failed schema validation|Hooks: .*(?:error|Failed|failed)|non-blocking status code|hook[^\n]*timed out|not supported for/i
        .test(line)
    ),
    ...hookEvents(run).filter((e) => e.subtype === "hook_response" && e.outcome !== "success").map((e) =>
      `${e.hook_name}: ${e.outcome} (exit ${e.exit_code}): ${String(e.stderr).slice(0, 200)}`
    )
  ]
}

/** The stream-json events of a Claude Code run. */
export const streamEvents = (run: Run): Array<any> =>
  run.stdout.split("\n").filter((line) => line.startsWith("{")).map((line) => JSON.parse(line))

/** The hook events of a Claude Code run (`--include-hook-events`). */
export const hookEvents = (run: Run): Array<any> =>
  streamEvents(run).filter((e) => e.type === "system" && String(e.subtype).startsWith("hook_"))

/**
 * How Codex trusts the project and its hooks for a run: `project` with `--trust`,
 * `config` with the project's `[projects."<path>"] trust_level = "trusted"` entry in
 * `config.toml` (what Codex records when a user trusts a project), `hooks` with
 * `--dangerously-bypass-hook-trust` for the run (the hooks' trust is otherwise recorded by
 * their hash in `/hooks`).
 */
export type CodexTrust = "none" | "hooks" | "project" | "project-and-hooks" | "config-and-hooks"

/** The Codex configuration of a run: the fake model as the provider, no update check, analytics or telemetry. */
export const codexConfig = (model: FakeModel, trustedProject?: string): string =>
  [
    "model = \"gpt-test\"",
    "model_provider = \"fake\"",
    "check_for_update_on_startup = false",
    "",
    "[analytics]",
    "enabled = false",
    "",
    "[otel]",
    "exporter = \"none\"",
    "",
    "[model_providers.fake]",
    "name = \"fake\"",
    `base_url = "${model.origin}/v1"`,
    "env_key = \"FAKE_MODEL_KEY\"",
    "wire_api = \"responses\"",
    "request_max_retries = 0",
    "stream_max_retries = 0",
    "",
    ...(trustedProject === undefined
      ? []
      : [`[projects.${JSON.stringify(trustedProject)}]`, "trust_level = \"trusted\"", ""])
  ].join("\n")

/** Codex's command-line flags for a trust setting. */
export const codexTrustArgs = (trust: CodexTrust): ReadonlyArray<string> => [
  ...(trust === "project" || trust === "project-and-hooks" ? ["--trust"] : []),
  ...(trust === "hooks" || trust === "project-and-hooks" || trust === "config-and-hooks"
    ? ["--dangerously-bypass-hook-trust"]
    : [])
]

/**
 * The Codex CLI, run as `codex exec` with approvals and the sandbox bypassed (pass
 * `approvals: true` to keep them), trusting the project with `--trust` and its hooks for
 * the run with `--dangerously-bypass-hook-trust` (the default; see `CodexTrust`).
 */
export const codexWith = (settings: { readonly trust?: CodexTrust; readonly approvals?: boolean } = {}): Host => ({
  name: "codex",
  title: "Codex",
  version: versions.codex,
  vendor: OpenAi.vendor,
  shell: (command) => tool("exec_command", { cmd: command }),
  run: (workspace, model, options = {}) => {
    fs.mkdirSync(path.join(workspace.root, "tmp"), { recursive: true, mode: 0o700 })
    fs.writeFileSync(
      path.join(workspace.codexHome, "config.toml"),
      codexConfig(model, settings.trust === "config-and-hooks" ? workspace.project : undefined)
    )
    return runProcess(process.execPath, [
      packages.codexLauncher,
      "exec",
      "--skip-git-repo-check",
      "--color",
      "never",
      ...(settings.approvals === true ? [] : ["--dangerously-bypass-approvals-and-sandbox"]),
      ...codexTrustArgs(settings.trust ?? "project-and-hooks"),
      ...(options.args ?? []),
      options.prompt ?? defaultPrompt
    ], {
      cwd: workspace.project,
      env: { ...baseEnv(workspace), CODEX_HOME: workspace.codexHome, FAKE_MODEL_KEY: "fake-key", ...options.env },
      home: workspace.home,
      timeoutMs: options.timeoutMs ?? 90_000,
      settleMs: options.settleMs ?? 5_000,
      log: (stderr) => stderr
    })
  },
  hookProblems: (run) =>
    run.log.split("\n").filter((line) =>
      /^hook: \S+ Failed|hook[^\n]*(?:invalid|unsupported|unknown field|failed to parse|timed out)/i.test(line)
    )
})

/** Codex as most scenarios run it. */
export const codex: Host = codexWith()

/** The `hook: <Event> <Status>` lines of a Codex run, in order. */
export const codexHookLines = (run: Run): ReadonlyArray<string> =>
  run.stderr.split("\n").filter((line) => /^hook: \S+ (?:Completed|Blocked|Failed|Stopped)/.test(line))

/** Both hosts. */
export const both: ReadonlyArray<Host> = [claudeCode, codex]
