/**
 * The arguments of `ahp hook`: each form parsed with its defaults, values given as the
 * next word or after `=`, the environment standing in for the flags a host's settings make
 * awkward, and every argument error with the message the hook shows (exit code 2).
 */
import { assert, describe, it } from "@effect/vitest"
import * as Args from "../src/Args.js"

const run = (argv: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) => {
  const parsed = Args.parse(argv, env)
  assert.strictEqual(parsed._tag, "Run", JSON.stringify(parsed))
  return parsed as Args.Run
}

const invalid = (argv: ReadonlyArray<string>, env: Record<string, string | undefined> = {}) => {
  const parsed = Args.parse(argv, env)
  return parsed._tag === "Invalid" ? parsed.message : `parsed as ${parsed._tag}`
}

describe("Args.parse", () => {
  it("a hook call with its defaults", () => {
    assert.deepStrictEqual(run(["claude-code"]), {
      _tag: "Run",
      host: "claude-code",
      registration: undefined,
      timeoutSeconds: undefined,
      failClosed: false,
      source: undefined,
      verbose: false,
      bridge: true,
      payload: undefined,
      audit: undefined,
      auditContent: false
    })
  })

  it("a hook call with every option, as separate words or after =", () => {
    const words = [
      "codex",
      "--registration",
      "r.json",
      "--timeout=2.5",
      "--fail-closed",
      "--source",
      "urn:x",
      "--verbose",
      "--no-bridge",
      "--audit=a.jsonl",
      "--audit-content"
    ]
    assert.deepStrictEqual(run(words), {
      _tag: "Run",
      host: "codex",
      registration: "r.json",
      timeoutSeconds: 2.5,
      failClosed: true,
      source: "urn:x",
      verbose: true,
      bridge: false,
      payload: undefined,
      audit: "a.jsonl",
      auditContent: true
    })
    assert.strictEqual(run(["claude-code", "--source=urn:a=b"]).source, "urn:a=b", "only the first = splits")
  })

  it("the environment: AHP_HOOK_FAIL_CLOSED, AHP_HOOK_VERBOSE and AHP_BRIDGE, where empty, 0 and false are off", () => {
    for (const on of ["1", "yes", "true"]) {
      const parsed = run(["claude-code"], { AHP_HOOK_FAIL_CLOSED: on, AHP_HOOK_VERBOSE: on, AHP_BRIDGE: on })
      assert.deepStrictEqual([parsed.failClosed, parsed.verbose, parsed.bridge], [true, true, true], on)
    }
    for (const off of ["", "0", "false"]) {
      const parsed = run(["claude-code"], { AHP_HOOK_FAIL_CLOSED: off, AHP_HOOK_VERBOSE: off, AHP_BRIDGE: off })
      assert.deepStrictEqual([parsed.failClosed, parsed.verbose, parsed.bridge], [false, false, false], off)
    }
    assert.isFalse(run(["claude-code", "--no-bridge"], { AHP_BRIDGE: "1" }).bridge, "the flag wins")
  })

  it("Codex's legacy notify program: the payload as the last argument, for Codex only", () => {
    const payload = "{\"type\":\"agent-turn-complete\"}"
    assert.strictEqual(run(["codex", "--verbose", payload]).payload, payload)
    assert.strictEqual(invalid(["claude-code", payload]), `unknown argument ${payload}`)
    assert.strictEqual(invalid(["codex", payload, "--verbose"]), `unknown argument ${payload}`, "only as the last")
    assert.strictEqual(invalid(["install", "codex", payload]), `unknown argument ${payload}`, "nor to install")
  })

  it("install, uninstall and doctor, with the project scope by default", () => {
    assert.deepStrictEqual(
      Args.parse(["install", "claude-code", "--user", "--timeout", "10", "--bridge-http", "8787"], {
        AHP_HOOK_FAIL_CLOSED: "1"
      }),
      {
        _tag: "Install",
        host: "claude-code",
        scope: "user",
        settings: undefined,
        command: undefined,
        timeoutSeconds: 10,
        registration: undefined,
        failClosed: false,
        bridgeHttpPort: 8787
      },
      "the environment's fail-closed is the hook call's, not what install writes"
    )
    const uninstall = Args.parse(["uninstall", "codex", "--settings", "s.json"], {})
    assert.deepStrictEqual(
      uninstall._tag === "Uninstall" ? [uninstall.scope, uninstall.settings] : [],
      ["project", "s.json"]
    )
    assert.strictEqual(Args.parse(["doctor", "codex", "--registration", "r.json"], {})._tag, "Doctor")
  })

  it("help, anywhere among the words", () => {
    assert.deepStrictEqual(Args.parse(["--help"], {}), { _tag: "Help" })
    assert.deepStrictEqual(Args.parse(["codex", "--bogus", "-h"], {}), { _tag: "Help" })
    assert.include(Args.usage, Args.synopsis)
    for (const option of ["--registration", "--timeout", "--fail-closed", "--no-bridge", "--audit", "--bridge-http"]) {
      assert.include(Args.usage, `  ${option}`)
    }
  })

  it("argument errors name what is wrong", () => {
    const cases: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [[], "missing the host: claude-code or codex"],
      [["cursor"], "expected claude-code or codex, got \"cursor\""],
      [["install"], "expected claude-code or codex, got \"\""],
      [["claude-code", "--registration"], "--registration needs a value"],
      [["claude-code", "--bogus"], "unknown argument --bogus"],
      [["claude-code", "--verbose=1"], "unknown argument --verbose=1"],
      [["claude-code", "--timeout", "0"], "--timeout takes a positive number of seconds"],
      [["claude-code", "--timeout", "-1"], "--timeout takes a positive number of seconds"],
      [["claude-code", "--timeout", "soon"], "--timeout takes a positive number of seconds"],
      [["claude-code", "--timeout", "Infinity"], "--timeout takes a positive number of seconds"],
      [["claude-code", "--bridge-http", "8787"], "--bridge-http is an install option"],
      [["install", "codex", "--bridge-http", "8787"], "--bridge-http: Codex has no http hook type"],
      [["install", "claude-code", "--bridge-http", "0"], "--bridge-http takes the bridge's port (1-65535)"],
      [["install", "claude-code", "--bridge-http", "65536"], "--bridge-http takes the bridge's port (1-65535)"],
      [["install", "claude-code", "--bridge-http", "80.5"], "--bridge-http takes the bridge's port (1-65535)"],
      [["install", "claude-code", "--bridge-http", "0x50"], "--bridge-http takes the bridge's port (1-65535)"],
      [["install", "claude-code", "--project", "--user"], "--project or --user, not both"]
    ]
    for (const [argv, message] of cases) assert.strictEqual(invalid(argv), message, argv.join(" "))
  })
})
