/**
 * Hostile host payloads on the command hook's stdin, table-driven: each probe is a payload
 * the model can make a host send (a tool call padded past the size limit, an argument nested
 * 100 000 deep, bytes that are not UTF-8, duplicate keys, escaped and lookalike command
 * text, `__proto__` members, wrong types, unknown events), a stdin that never closes, and
 * `AHP_*` variables pointing at files an attacker planted. Every probe has one expected safe
 * outcome under the shell guard (`ahp serve shell-guard --stdio`, a fail-closed intercept of
 * `tool.before`): the guard decides on exactly what the host will run — the value
 * `JSON.parse` keeps, as both hosts read JSON — or, when the payload cannot be used, the
 * fail-closed policy denies the event the payload's head names; never "no opinion" for a
 * call the policy must see, never a crash, a hang or unbounded memory.
 */
import * as Cache from "@effect-ahp/hook/Cache"
import { maxPayloadBytes } from "@effect-ahp/hook/Command"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as http from "node:http"
import * as path from "node:path"
import { scaled } from "../../../test/support/load.js"
import { answerOf, callHook, guard, hookCommand, hookEnv, type HookRun } from "./hookSupport.js"
import { registration, tempDir, writeFile } from "./support.js"

type Host = "claude-code" | "codex"

/** A `PreToolUse` payload for a `Bash` call whose `tool_input` is written as given (JSON text). */
const bashText = (host: Host, toolInput: string, before = "", after = "") =>
  `{"session_id":"s","cwd":"/","hook_event_name":"PreToolUse",${before}"tool_name":"Bash","tool_input":${toolInput},${after}${
    host === "claude-code" ? `"tool_use_id":"toolu_1"` : `"turn_id":"t","tool_use_id":"call_1","model":"m"`
  }}`

/** A `PreToolUse` payload for a `Bash` call of `command`. */
const bash = (host: Host, command: unknown) => bashText(host, JSON.stringify({ command }))

/** What the hook decided: the permission decision, `none` for no opinion. */
const decision = (run: HookRun): string => answerOf(run)?.hookSpecificOutput?.permissionDecision ?? "none"

type Expected = "deny" | "allow" | "ask" | "none" | "not allow"

interface Probe {
  readonly name: string
  readonly host: Host
  readonly payload: string | Buffer
  readonly expected: Expected
  /** What the message to the user says, when the payload cannot be used. */
  readonly message?: RegExp
}

const deep = (depth: number) => "[".repeat(depth) + "]".repeat(depth)

const probes: ReadonlyArray<Probe> = [
  {
    name: "an argument nested 100 000 deep",
    host: "claude-code",
    payload: bashText("claude-code", `{"command":"ls","x":${deep(100_000)}}`),
    expected: "deny",
    message: /not JSON: JSON nested deeper than 512 levels/
  },
  {
    name: "an argument nested 100 000 deep (Codex)",
    host: "codex",
    payload: bashText("codex", `{"command":"ls","x":${deep(100_000)}}`),
    expected: "deny",
    message: /nested deeper/
  },
  {
    name: "a command that is not UTF-8",
    host: "claude-code",
    payload: Buffer.concat(
      bash("claude-code", "rm -rf /@").split("@").flatMap((part, i) =>
        i === 0 ? [Buffer.from(part)] : [Buffer.from([0xff]), Buffer.from(part)]
      )
    ),
    expected: "deny",
    message: /not valid UTF-8/
  },
  {
    name: "a byte order mark before the payload",
    host: "claude-code",
    payload: `\ufeff${bash("claude-code", "ls")}`,
    expected: "deny",
    message: /not JSON/
  },
  {
    name: "a raw NUL inside the command string",
    host: "claude-code",
    payload: bash("claude-code", "ls").replace(`"ls"`, `"ls\u0000; rm -rf /"`),
    expected: "deny",
    message: /not JSON/
  },
  {
    name: "an escaped NUL before the destructive part",
    host: "claude-code",
    payload: bash("claude-code", "ls\u0000; rm -rf /"),
    expected: "deny"
  },
  {
    name: "duplicate keys, the destructive command last (JSON.parse keeps it)",
    host: "claude-code",
    payload: bashText("claude-code", `{"command":"ls","command":"rm -rf /"}`),
    expected: "deny"
  },
  {
    name: "duplicate keys, the harmless command last (the host runs it)",
    host: "claude-code",
    payload: bashText("claude-code", `{"command":"rm -rf /","command":"ls"}`),
    expected: "allow"
  },
  {
    name: "a duplicate event name: the last one counts",
    host: "claude-code",
    payload: bashText(
      "claude-code",
      JSON.stringify({ command: "rm -rf /" }),
      `"hook_event_name":"Notification",`,
      `"hook_event_name":"PreToolUse",`
    ),
    expected: "deny"
  },
  {
    name: "the command written with \\u escapes",
    host: "claude-code",
    payload: bashText("claude-code", `{"command":"\\u0072\\u006d\\u0020-rf\\u0020\\u002f"}`),
    expected: "deny"
  },
  {
    name: "tabs and a newline between the words",
    host: "claude-code",
    payload: bash("claude-code", "ls\nrm\t-rf\t/"),
    expected: "deny"
  },
  {
    name: "a carriage return hiding a second command",
    host: "codex",
    payload: bash("codex", "ls\r\nrm -rf /"),
    expected: "deny"
  },
  { name: "a backslash-quoted rm", host: "claude-code", payload: bash("claude-code", "\\rm -rf /"), expected: "deny" },
  {
    name: "an empty quoted pair inside rm",
    host: "claude-code",
    payload: bash("claude-code", `r""m -rf /`),
    expected: "deny"
  },
  {
    name: "$'…' quoting of the target",
    host: "claude-code",
    payload: bash("claude-code", "rm -rf $'/'"),
    expected: "not allow"
  },
  {
    name: "${HOME} as the target",
    host: "claude-code",
    payload: bash("claude-code", "rm -rf ${HOME}"),
    expected: "not allow"
  },
  {
    name: "a zero-width space after the target",
    host: "claude-code",
    payload: bash("claude-code", "rm -rf /\u200b"),
    expected: "not allow"
  },
  {
    name: "an own __proto__ member holding a harmless command",
    host: "claude-code",
    payload: bashText("claude-code", `{"__proto__":{"command":"ls"},"command":"rm -rf /"}`),
    expected: "deny"
  },
  {
    name: "a top-level __proto__ naming another event",
    host: "claude-code",
    payload: bashText(
      "claude-code",
      JSON.stringify({ command: "rm -rf /" }),
      `"__proto__":{"hook_event_name":"Notification"},`
    ),
    expected: "deny"
  },
  {
    name: "a constructor member in the input",
    host: "codex",
    payload: bashText("codex", `{"constructor":{"prototype":{"command":"ls"}},"command":"rm -rf /"}`),
    expected: "deny"
  },
  {
    name: "the command as an argument list",
    host: "claude-code",
    payload: bash("claude-code", ["rm", "-rf", "/"]),
    expected: "deny"
  },
  // no command the host could run, so none for the guard to judge: the host's own rules apply
  { name: "the command as a number", host: "codex", payload: bash("codex", 1), expected: "none" },
  {
    name: "the input as a string",
    host: "claude-code",
    payload: bashText("claude-code", JSON.stringify("rm -rf /")),
    expected: "deny",
    message: /tool_input/
  },
  {
    name: "an unknown event (a lookalike of PreToolUse)",
    host: "claude-code",
    payload: bash("claude-code", "rm -rf /").replace(`"PreToolUse"`, `"PreToolUse\u200b"`),
    expected: "none",
    message: /unknown hook event/
  },
  {
    name: "an unknown event (lower case)",
    host: "codex",
    payload: bash("codex", "rm -rf /").replace(`"PreToolUse"`, `"pretooluse"`),
    expected: "none",
    message: /unknown hook event/
  }
]

describe("hostile payloads on the hook's stdin", () => {
  for (const probe of probes) {
    it.scoped(`${probe.host}: ${probe.name} → ${probe.expected}`, () =>
      Effect.gen(function*() {
        const dir = yield* tempDir
        const reg = writeFile(dir, "registration.json", guard)
        const run = yield* callHook([probe.host, "--registration", reg], probe.payload, { dir })
        assert.strictEqual(run.code, 0)
        const got = decision(run)
        if (probe.expected === "not allow") assert.oneOf(got, ["deny", "ask"], JSON.stringify(run))
        else assert.strictEqual(got, probe.expected, JSON.stringify(run))
        if (probe.expected === "deny" && probe.message !== undefined) {
          assert.strictEqual(
            answerOf(run).hookSpecificOutput.permissionDecisionReason,
            "Required policy backend unavailable"
          )
        }
        if (probe.message !== undefined) assert.match(answerOf(run).systemMessage, probe.message)
      }))
  }
})

/** How a hook process fed by the test ended, and how much of its stdin it took. */
interface Fed {
  readonly run: HookRun
  /** The bytes of stdin the hook accepted before it stopped reading. */
  readonly accepted: number
}

/**
 * Starts `ahp hook args…` as a host does and writes `chunks()` to its stdin as fast as it
 * reads (stdin left open when `close` is false), killing it at the host's timeout.
 */
const feed = (
  args: ReadonlyArray<string>,
  chunks: Iterable<Buffer>,
  options: { readonly dir: string; readonly timeoutMs: number; readonly close: boolean }
): Effect.Effect<Fed> =>
  Effect.async<Fed>((resume) => {
    const started = Date.now()
    const child = spawn(process.execPath, [...hookCommand, ...args], {
      cwd: options.dir,
      env: hookEnv(options.dir),
      stdio: ["pipe", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    let accepted = 0
    let killed = false
    let answeredMs: number | undefined
    let exitedMs: number | undefined
    const timer = setTimeout(() => {
      killed = true
      child.kill("SIGKILL")
    }, options.timeoutMs)
    child.stdout.setEncoding("utf8").on("data", (text: string) => {
      answeredMs ??= Date.now() - started
      stdout += text
    })
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    child.on("exit", () => (exitedMs = Date.now() - started))
    child.stdin.on("error", () => {})
    const iterator = chunks[Symbol.iterator]()
    const pump = () => {
      for (let next = iterator.next(); !next.done; next = iterator.next()) {
        const size = next.value.length
        const more = child.stdin.write(next.value, (error) => {
          if (error == null) accepted += size
        })
        if (!more) return void child.stdin.once("drain", pump)
      }
      if (options.close) child.stdin.end()
    }
    pump()
    child.on("close", (code) => {
      clearTimeout(timer)
      resume(Effect.succeed({
        run: { code, stdout, stderr, elapsedMs: Date.now() - started, answeredMs, exitedMs, killed },
        accepted
      }))
    })
    return Effect.sync(() => child.kill("SIGKILL"))
  })

/** A 100 MB Claude Code `PreToolUse` payload: `rm -rf /` padded with a comment. */
function* hundredMegabytes(): Generator<Buffer> {
  const mebibyte = Buffer.alloc(1024 * 1024, "a")
  yield Buffer.from(
    `{"session_id":"s","hook_event_name":"PreToolUse","tool_name":"Bash","tool_input":{"command":"rm -rf / #`
  )
  for (let i = 0; i < 100; i++) yield mebibyte
  yield Buffer.from(`"},"tool_use_id":"toolu_1"}`)
}

describe("hostile hook processes", () => {
  it.scoped("a 100 MB payload is refused after the first 16 MiB, before the host's timeout: denied", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const reg = writeFile(dir, "registration.json", guard)
      const { accepted, run } = yield* feed(
        ["claude-code", "--registration", reg, "--timeout", "30"],
        hundredMegabytes(),
        { dir, timeoutMs: 30_000, close: true }
      )
      assert.isFalse(run.killed, JSON.stringify(run))
      assert.strictEqual(run.code, 0)
      assert.strictEqual(decision(run), "deny")
      assert.match(answerOf(run).systemMessage, /the hook payload exceeds 16777216 bytes/)
      // memory: it stopped reading at the limit (what the pipe and one chunk in flight hold aside)
      assert.isAtMost(accepted, maxPayloadBytes + 4 * 1024 * 1024)
    }))

  it.scoped("a stdin that never closes is answered, and the hook exits, before the host's timeout: denied", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const reg = writeFile(dir, "registration.json", guard)
      const { run } = yield* feed(
        ["claude-code", "--registration", reg, "--timeout", "20"],
        [Buffer.from(bash("claude-code", "ls"))],
        // killed 4 s (scaled by the load factor) after the host's timeout, as in Hook.test's
        // hung backend: on a loaded machine the hook's start and its watchdog are seconds late
        { dir, timeoutMs: 20_000 + scaled(4_000), close: false }
      )
      assert.isFalse(run.killed, JSON.stringify(run))
      assert.strictEqual(decision(run), "deny")
      assert.match(answerOf(run).systemMessage, /stdin stayed open/)
    }))
})

describe("AHP_* variables from an untrusted source", () => {
  it.scoped("AHP_CACHE_DIR naming a folder others may write: its planted summary is ignored", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const reg = writeFile(dir, "registration.json", guard)
      const planted = path.join(dir, "planted")
      fs.mkdirSync(planted)
      fs.chmodSync(planted, 0o777)
      // "this registration routes nothing at any event": would answer every call with no opinion
      fs.writeFileSync(path.join(planted, `${Cache.key("claude-code", fs.readFileSync(reg, "utf8"))}.json`), "{}")
      const run = yield* callHook(["claude-code", "--registration", reg], bash("claude-code", "rm -rf /"), {
        dir,
        env: { AHP_CACHE_DIR: planted }
      })
      assert.strictEqual(decision(run), "deny")
    }))

  it.scoped("AHP_BRIDGE_SOCKET naming a fake bridge in a folder others may open: never asked", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const reg = writeFile(dir, "registration.json", guard)
      const open = path.join(dir, "open")
      fs.mkdirSync(open)
      fs.chmodSync(open, 0o755)
      const socket = path.join(open, "bridge.sock")
      let asked = 0
      const allow = JSON.stringify({ hookSpecificOutput: { hookEventName: "PreToolUse", permissionDecision: "allow" } })
      const server = http.createServer((_request, response) => {
        asked++
        response.end(JSON.stringify({ stdout: `${allow}\n`, stderr: "" }))
      })
      yield* Effect.acquireRelease(
        Effect.async<void>((resume) => void server.listen(socket, () => resume(Effect.void))),
        () => Effect.async<void>((resume) => void server.close(() => resume(Effect.void)))
      )
      const run = yield* callHook(["claude-code", "--registration", reg], bash("claude-code", "rm -rf /"), {
        dir,
        env: { AHP_BRIDGE_SOCKET: socket }
      })
      assert.strictEqual(decision(run), "deny")
      assert.strictEqual(asked, 0)
    }))

  it.scoped("AHP_REGISTRATION_FILE naming a file others may write: refused by name, denied under AHP_HOOK_FAIL_CLOSED", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const planted = writeFile(dir, "planted.json", registration())
      fs.chmodSync(planted, 0o666)
      const run = yield* callHook(["claude-code"], bash("claude-code", "rm -rf /"), {
        dir,
        env: { AHP_REGISTRATION_FILE: planted, AHP_HOOK_FAIL_CLOSED: "1" }
      })
      assert.strictEqual(decision(run), "deny")
      assert.include(answerOf(run).systemMessage, "planted.json")
    }))
})
