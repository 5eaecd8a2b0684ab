/**
 * The command line's conventions, through its entry in this process (`runInProcess`) and,
 * where the launcher decides alone (a bare `ahp`, `--version`, `hook …`) or a terminal is
 * needed, as a child process of the bundle: bare `ahp` prints the help and exits 2,
 * `--help` and `--version` on either side of a command, usage errors on stderr with exit 2
 * and "did you mean", colour only on a terminal and never with NO_COLOR, and "did you mean"
 * for mistyped event selectors and policy values in the documents themselves; `hook` and
 * `bridge` listed and following them, `hook` with its own grammar and help. (Every form
 * of the grammar is covered without processes by CommandLine.test.ts.)
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { runInProcess } from "./inProcess.js"
import { bundle, guardRegistration, output, root, runCli, tempDir, toolBefore, writeFile } from "./support.js"

const version: string = JSON.parse(fs.readFileSync(path.join(root, "apps", "ahp", "package.json"), "utf8")).version

/** Runs the command line on a pseudo-terminal (`script`), returning everything it printed. */
const onTerminal = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  Effect.async<string>((resume) => {
    const child = spawn("script", ["-qec", [process.execPath, bundle, ...args].join(" "), "/dev/null"], {
      env: { ...process.env, NO_COLOR: "", TERM: "xterm", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let out = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text))
    child.on("close", () => resume(Effect.succeed(out)))
  })

describe("ahp conventions", () => {
  it.live("bare ahp prints the help on stderr and exits 2; --help and help exit 0", () =>
    Effect.gen(function*() {
      const bare = yield* runCli([])
      assert.strictEqual(bare.code, 2)
      assert.strictEqual(bare.stdout, "")
      assert.match(bare.stderr, /^Usage: ahp <command> \[options\]/)
      assert.include(bare.stderr, "Exit codes (every command):")
      const help = yield* runInProcess(["--help"])
      assert.strictEqual(help.code, 0)
      assert.strictEqual(help.stdout, bare.stderr)
      const dispatch = yield* runInProcess(["dispatch", "--help"])
      assert.strictEqual(dispatch.code, 0)
      assert.match(dispatch.stdout, /^Usage: ahp dispatch --registration FILE --event FILE \[options\]/)
    }))

  it.live("hook and bridge follow them: listed in the help, usage errors exit 2, their own help exits 0", () =>
    Effect.gen(function*() {
      const help = yield* runInProcess(["--help"])
      assert.match(help.stdout, /^ {2}hook {2,}Run as a Claude Code or Codex command hook/m)
      assert.match(help.stdout, /^ {2}bridge {2,}Keep a registration's backends running/m)
      for (const args of [["hook", "--help"], ["help", "hook"], ["--help", "hook"]]) {
        const run = yield* (args[0] === "hook" ? runCli(args) : runInProcess(args))
        assert.strictEqual(run.code, 0, args.join(" "))
        assert.match(run.stdout, /^Usage:\s+ahp hook claude-code\|codex /, args.join(" "))
      }
      const bare = yield* runCli(["hook"])
      assert.strictEqual(bare.code, 2)
      assert.strictEqual(bare.stdout, "")
      assert.match(bare.stderr, /^ahp hook: missing the host: claude-code or codex\n\nUsage:/)
      const host = yield* runCli(["hook", "claud-code"])
      assert.strictEqual(host.code, 2)
      assert.match(host.stderr, /^ahp hook: expected claude-code or codex, got "claud-code"/)
      const bridge = yield* runInProcess(["bridge", "--htp", "0"])
      assert.strictEqual(bridge.code, 2)
      assert.match(bridge.stderr, /^ahp bridge: unknown option --htp for ahp bridge \(did you mean --http\?\)/)
      const bridgeHelp = yield* runInProcess(["bridge", "--help"])
      assert.strictEqual(bridgeHelp.code, 0)
      assert.match(bridgeHelp.stdout, /^Usage: ahp bridge \[options\]/)
    }))

  it.live("--version answers on either side of a command", () =>
    Effect.gen(function*() {
      for (const args of [["--version"], ["validate", "--version"], ["--log-level", "debug", "--version"]]) {
        const run = yield* (args.length === 1 ? runCli(args) : runInProcess(args))
        assert.strictEqual(run.code, 0, args.join(" "))
        assert.strictEqual(run.stdout, `${version}\n`, args.join(" "))
      }
    }))

  it.scopedLive("usage errors: stderr, exit 2, the mistake named", () =>
    Effect.gen(function*() {
      const typo = yield* runInProcess(["dispach"])
      assert.strictEqual(typo.code, 2)
      assert.strictEqual(typo.stdout, "")
      assert.match(typo.stderr, /^ahp: unknown command dispach \(did you mean dispatch\?\)\nUsage: ahp <command>/)
      const option = yield* runInProcess(["validate", "x.json", "--jsno"])
      assert.strictEqual(option.code, 2)
      assert.match(option.stderr, /^ahp validate: unknown option --jsno for ahp validate \(did you mean --json\?\)/)
      assert.include(option.stderr, "Run 'ahp validate --help' for more.")
      const dir = yield* tempDir
      const valid = writeFile(dir, "registration.json", guardRegistration)
      const after = yield* runInProcess(["validate", valid, "--log-level", "debug"])
      assert.strictEqual(after.code, 0, after.stderr)
      assert.match(after.stdout, /registration\.json: valid/)
    }))

  it.live("colour only on a terminal, never with NO_COLOR", () =>
    Effect.gen(function*() {
      const piped = yield* runCli(["--help"], { env: { NO_COLOR: "" } })
      assert.notInclude(piped.stdout, "\u001b[")
      const terminal = yield* onTerminal(["--help"], {})
      assert.include(terminal, "\u001b[1mUsage:")
      const noColour = yield* onTerminal(["--help"], { NO_COLOR: "1" })
      assert.include(noColour, "Usage: ahp")
      assert.notInclude(noColour, "\u001b[")
    }))

  it.scopedLive("did you mean: mistyped event selectors, policy values and event types", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const typo = {
        protocolVersion: "draft",
        hooks: [{
          id: "com.example.guard",
          transport: { type: "stdio", command: "guard", lifecycle: "persistant" },
          subscriptions: [{
            mode: "intercept",
            events: ["tool.befor"],
            timeoutMs: 1000,
            failurePolicy: "fail-close",
            content: { default: "body" }
          }]
        }]
      }
      const file = writeFile(dir, "typo.json", typo)
      const validate = yield* runInProcess(["validate", file])
      assert.strictEqual(validate.code, 1)
      assert.match(validate.stdout, /\/hooks\/0\/subscriptions\/0\/events\/0: .*\(did you mean "tool\.before"\?\)/)
      assert.match(
        validate.stdout,
        /\/hooks\/0\/subscriptions\/0\/failurePolicy: .*got "fail-close" \(did you mean "fail-closed"\?\)/
      )
      assert.match(validate.stdout, /\/hooks\/0\/transport\/lifecycle: .*\(did you mean "persistent"\?\)/)
      const dispatch = yield* runInProcess([
        "dispatch",
        "--registration",
        file,
        "--event",
        writeFile(dir, "event.json", toolBefore("ls"))
      ])
      assert.strictEqual(dispatch.code, 2)
      const messages = output(dispatch).issues.map((i: any) => i.message).join("\n")
      assert.include(messages, "(did you mean \"fail-closed\"?)")
      assert.include(messages, "(did you mean \"tool.before\"?)")
      const event = yield* runInProcess([
        "dispatch",
        "--registration",
        file,
        "--event",
        writeFile(dir, "typo-event.json", { ...toolBefore("ls"), type: "tool.befor" })
      ])
      assert.strictEqual(event.code, 2)
      assert.match(output(event).message, /unknown event type "tool\.befor" \(did you mean "tool\.before"\?\)/)
    }))
})
