/**
 * The command hook's process lifetime, driven as the hosts drive it: through the host's
 * shell (Claude Code `sh -c`, Codex a login shell `bash -lc` whose profile is slow), with
 * the host's timeout enforced by killing the hook when it passes (both hosts wait for the
 * hook's exit, not for its answer). With `--timeout 3` and a hung fail-closed backend the
 * hook writes its denial and exits before the timeout, without waiting for the backend to
 * stop (not for one that ignores SIGTERM either); the backend is stopped after the hook's
 * exit. A hook killed with SIGKILL in the middle of a call leaves no backend behind.
 */
import * as Command from "@effect-ahp/hook/Command"
import { HostEvents } from "@effect-ahp/hosts"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { maxFactor, scaled } from "../../../test/support/load.js"
import { processesWith } from "../../../test/support/processes.mjs"
import { answerOf, hungRegistration, runHook, startedPids } from "./hookSupport.js"
import {
  bundle,
  eventually,
  intercept,
  isAlive,
  logEntries,
  registration,
  scriptedStdio,
  tempDir,
  writeFile
} from "./support.js"

const bash = (host: HostEvents.HostName, command: string) =>
  JSON.stringify({
    session_id: "sess-1",
    ...(host === "codex" ? { turn_id: "turn-1" } : {}),
    cwd: "/work/repo",
    hook_event_name: "PreToolUse",
    permission_mode: "default",
    tool_name: "Bash",
    tool_input: { command },
    tool_use_id: "toolu_1"
  })

/** How each host runs a command hook. */
const shells: Record<HostEvents.HostName, ReadonlyArray<string>> = {
  "claude-code": ["sh", "-c"],
  codex: ["bash", "-lc"]
}

/**
 * The host's timeout of a run, as `--timeout` and as the kill: 3 s scaled by the load factor
 * (`load.ts`), or four times what the host's shell takes to start the command line
 * (`--version`, the slower of two tries) here and now when that is more. A loaded machine
 * scales the deadline, never the verdict.
 */
const timeoutSecondsFor = (shell: ReadonlyArray<string>, home: string): number => {
  const startUp = () => {
    const started = performance.now()
    spawnSync(shell[0]!, [...shell.slice(1), `"${process.execPath}" "${bundle}" --version`], {
      env: { ...process.env, HOME: home },
      stdio: "ignore"
    })
    return performance.now() - started
  }
  return Math.ceil(Math.max(scaled(3_000), 4 * Math.max(startUp(), startUp())) / 1000)
}

/**
 * A PreToolUse call under a host's timeout of 3 s or more (see `timeoutSecondsFor`) to a
 * fail-closed backend that never answers and outlives the end of its stdin (`hang`), or also
 * ignores SIGTERM. Codex's login shell reads a profile that takes 0.5 s before the hook's
 * Node starts: the hook's deadline counts from the shell's start, as the host's timeout does.
 */
const hung = (host: HostEvents.HostName, behaviour: "hang" | "ignore-sigterm") =>
  Effect.gen(function*() {
    const dir = yield* tempDir
    const { log, registration: reg } = hungRegistration(dir, "fail-closed", behaviour)
    fs.mkdirSync(path.join(dir, "home"), { recursive: true })
    fs.writeFileSync(path.join(dir, "home", ".bash_profile"), "sleep 0.5\n")
    const timeoutSeconds = timeoutSecondsFor(shells[host], path.join(dir, "home"))
    const run = yield* runHook(
      [host, "--registration", reg, "--timeout", String(timeoutSeconds), "--verbose"],
      bash(host, "rm -rf /"),
      { dir, shell: shells[host], timeoutMs: timeoutSeconds * 1000 }
    )
    // the time a backend gets after the end of its stdin at that timeout (`Command`'s exit grace)
    return { exitGraceMs: Command.exitGrace(timeoutSeconds * 1000), log, run }
  })

/**
 * What a hung-backend test may take at most, a bound for a hung test: the host's timeout at
 * the largest load factor, and as much again for each wait after it.
 */
const hungTestTimeout = 4 * 3_000 * maxFactor

describe("a hook answers and exits before a short host timeout", () => {
  for (const host of HostEvents.hostNames) {
    for (const behaviour of ["hang", "ignore-sigterm"] as const) {
      it.scopedLive(
        `${host} through \`${shells[host].join(" ")}\`, a fail-closed backend that does ${behaviour}`,
        () =>
          Effect.gen(function*() {
            const { exitGraceMs, log, run } = yield* hung(host, behaviour)
            const timing = `answered at ${run.answeredMs} ms, exited at ${run.exitedMs} ms`
            assert.isFalse(run.killed, `killed at the host's timeout: ${timing}\n${run.stderr}`)
            assert.strictEqual(run.code, 0)
            assert.deepStrictEqual(answerOf(run).hookSpecificOutput, {
              hookEventName: "PreToolUse",
              permissionDecision: "deny",
              permissionDecisionReason: "Required policy backend unavailable"
            })
            // no bridge runs: the budget's failure names the hook's deadline
            assert.include(run.stderr, "budget ran out (the hook's deadline was")
            assert.notInclude(run.stderr, "bridge")
            // the exit did not wait for the backend to take its grace and be stopped
            assert.isBelow(run.exitedMs! - run.answeredMs!, exitGraceMs, timing)
            // (on a loaded machine the deadline may pass before the backend is started)
            const pids = startedPids(log)
            assert.isAtMost(pids.length, 1)
            // stopped after the hook's exit: the grace, SIGTERM, SIGKILL 150 ms later
            yield* eventually(() => pids.every((pid) => !isAlive(pid)))
          }),
        { timeout: hungTestTimeout }
      )
    }
  }
})

/** The pids of the processes whose parent is `pid`. */
const childrenOf = (pid: number): Array<number> =>
  fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name)).flatMap((name) => {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "latin1")
      return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]) === pid ? [Number(name)] : []
    } catch {
      return []
    }
  })

/**
 * Runs a PreToolUse call to the single fail-closed backend `transport` under a host's timeout
 * of 600 s, waits until `busy` returns the backend's pid (the call is then under way), kills
 * the hook with SIGKILL as a host does at its timeout, and returns the backend's pid.
 */
const killMidCall = (
  dir: string,
  transport: Record<string, unknown>,
  busy: (hook: number) => number | undefined
) =>
  Effect.gen(function*() {
    const reg = writeFile(
      dir,
      `${path.basename(dir)}.json`,
      registration({
        id: "com.example.busy",
        transport,
        subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-closed", timeoutMs: 600_000 })]
      })
    )
    let hook: number | undefined
    const run = yield* Effect.fork(
      runHook(["claude-code", "--registration", reg, "--timeout", "600"], bash("claude-code", "ls"), {
        dir,
        onStart: (pid) => (hook = pid)
      })
    )
    const backend = yield* eventually(() => hook === undefined ? undefined : busy(hook))
    process.kill(hook!, "SIGKILL")
    const killed = yield* run.await
    assert.isTrue(killed._tag === "Success" && killed.value.code === null, "the hook was killed mid-call")
    return backend
  })

describe.skipIf(process.platform !== "linux")("a hook killed at the host's timeout", () => {
  it.scopedLive("leaves no backend behind: not one hung in the call that ignores SIGTERM, not `ahp serve … --stdio`", () =>
    Effect.gen(function*() {
      const [stubbornDir, slowDir] = [yield* tempDir, yield* tempDir]
      const log = path.join(stubbornDir, "backend.log")
      const [stubborn, slow] = yield* Effect.all([
        // the request logged: it hangs in the call, outlives the end of its stdin, ignores SIGTERM
        killMidCall(
          stubbornDir,
          scriptedStdio("ignore-sigterm", log, "persistent", ["--linger"]),
          () => logEntries(log).some((e) => e.event === "message") ? startedPids(log)[0] : undefined
        ),
        // the request is written as it starts: it waits for its handler (600 s) before it exits
        killMidCall(
          slowDir,
          {
            type: "stdio",
            command: process.execPath,
            args: [bundle, "serve", "slow", "--stdio", "--delay-ms", "600000"],
            lifecycle: "persistent"
          },
          (hook) => childrenOf(hook).find((pid) => processesWith("serve slow --stdio").some((p) => p.pid === pid))
        )
      ], { concurrency: 2 })
      // the guardian: the exit grace after the end of their stdin, SIGTERM, SIGKILL 150 ms later
      yield* eventually(() => !isAlive(stubborn!) && !isAlive(slow!))
    }))
})

describe("docs/guide/hook-timing.md", () => {
  it("shows the margin, deadline, watchdog and exit grace the hook uses", () => {
    const guide = fileURLToPath(new URL("../../../docs/guide/hook-timing.md", import.meta.url))
    const rows = fs.readFileSync(guide, "utf8").split("\n").filter((line) => /^\| \d/.test(line))
    assert.isNotEmpty(rows)
    for (const row of rows) {
      const [timeout, ...shown] = row.split("|").slice(1, -1).map((cell) => Number(cell.trim()))
      const margin = Command.margin(timeout!)
      assert.deepStrictEqual(
        shown,
        [margin, timeout! - margin, timeout! - margin / 2, Command.exitGrace(timeout!)],
        row
      )
    }
  })
})
