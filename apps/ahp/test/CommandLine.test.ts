/**
 * The command line's grammar and help, as pure functions over the real command table:
 * global options on either side of the command, help, usage errors that name the mistake
 * with "did you mean", and help text that describes every option.
 */
import { Wire } from "@effect-ahp/protocol"
import { style } from "@effect-ahp/tools/Style"
import { closest } from "@effect-ahp/tools/Suggest"
import { assert, describe, it } from "@effect/vitest"
import { Option } from "effect"
import { exampleNames, program } from "../src/Cli.js"
import * as CommandLine from "../src/CommandLine.js"

const parse = (...argv: ReadonlyArray<string>) => CommandLine.parse(program.commands, argv)

const usage = (...argv: ReadonlyArray<string>): string => {
  const parsed = parse(...argv)
  assert.strictEqual(parsed._tag, "Usage", argv.join(" "))
  return parsed._tag === "Usage" ? parsed.message ?? "" : ""
}

const plain = style(false)

describe("CommandLine", () => {
  it("takes global options before or after the command", () => {
    for (const argv of [["--log-level", "debug", "validate", "a.json"], ["validate", "a.json", "--log-level=debug"]]) {
      const parsed = parse(...argv)
      assert.strictEqual(parsed._tag, "Run", argv.join(" "))
      if (parsed._tag === "Run") assert.deepStrictEqual(parsed.logLevel, Option.some("debug"))
    }
    for (const argv of [["--help", "dispatch"], ["dispatch", "--help"], ["dispatch", "-h"], ["help", "dispatch"]]) {
      const parsed = parse(...argv)
      assert.strictEqual(parsed._tag, "Help", argv.join(" "))
      if (parsed._tag === "Help") assert.strictEqual(parsed.command?.name, "dispatch")
    }
    assert.deepStrictEqual(parse("--version"), { _tag: "Version" })
    assert.deepStrictEqual(parse("validate", "--version"), { _tag: "Version" })
  })

  it("a bare command line asks for the help, as a usage error", () => {
    assert.deepStrictEqual(parse(), { _tag: "Usage", command: undefined, message: undefined })
    const root = parse("--help")
    assert.strictEqual(root._tag, "Help")
    if (root._tag === "Help") assert.isUndefined(root.command)
  })

  it("names each mistake, with did-you-mean for typos", () => {
    assert.strictEqual(usage("dispach"), "unknown command dispach (did you mean dispatch?)")
    assert.strictEqual(usage("frobnicate"), "unknown command frobnicate")
    assert.strictEqual(
      usage("dispatch", "--registration", "r", "--event", "e", "--prety"),
      "unknown option --prety for ahp dispatch (did you mean --pretty?)"
    )
    assert.match(usage("--pretty", "dispatch"), /unknown option --pretty; a command's options go after the command/)
    assert.strictEqual(usage("dispatch", "--registration", "r"), "missing --event FILE")
    assert.strictEqual(usage("dispatch", "--event"), "--event needs a value (FILE)")
    assert.strictEqual(usage("validate", "a", "--json=yes"), "--json takes no value")
    assert.strictEqual(usage("validate"), "missing FILE: give at least one")
    assert.strictEqual(
      usage("inspect", "--backend", "b", "--event", "e", "--mode", "observ"),
      "--mode must be one of intercept, observe, got \"observ\" (did you mean observe?)"
    )
    assert.strictEqual(
      usage("inspect", "--backend", "b", "--event", "e", "--timeout", "soon"),
      "--timeout needs a whole number of at least 1, got \"soon\""
    )
    assert.strictEqual(
      usage("serve", "shell-gaurd", "--stdio"),
      "EXAMPLE must be one of shell-guard, secret-redactor, prompt-annotator, audit, slow, got \"shell-gaurd\" (did you mean shell-guard?)"
    )
    assert.strictEqual(usage("demo", "extra"), "unexpected argument \"extra\"")
    assert.strictEqual(usage("demo", "--audit-file", "a", "--audit-file", "b"), "--audit-file is given 2 times")
    assert.strictEqual(
      usage("validate", "a", "--log-level", "loud"),
      "--log-level must be one of all, trace, debug, info, warning, error, fatal, none, got \"loud\""
    )
  })

  it("hands every word after a command with its own grammar to it; global options before it still count", () => {
    const external = CommandLine.external({
      name: "hook",
      summary: "a command with its own grammar",
      help: "Usage:\n  ahp hook HOST [--flag]\n",
      exitCodes: [[0, "done"]],
      run: (argv) => argv
    })
    const parseExternal = (...argv: ReadonlyArray<string>) => CommandLine.parse([external], argv)
    for (
      const [argv, words] of [
        [["hook", "codex", "--registration", "r.json", "--help", "--version", "--"], [
          "codex",
          "--registration",
          "r.json",
          "--help",
          "--version",
          "--"
        ]],
        [["--log-level", "debug", "hook", "-h", "x"], ["-h", "x"]],
        [["hook"], []]
      ] as const
    ) {
      const parsed = parseExternal(...argv)
      assert.strictEqual(parsed._tag, "Run", argv.join(" "))
      if (parsed._tag === "Run") assert.deepStrictEqual(parsed.run, words)
    }
    for (const argv of [["--help", "hook"], ["help", "hook"]]) {
      const parsed = parseExternal(...argv)
      assert.strictEqual(parsed._tag, "Help", argv.join(" "))
      if (parsed._tag === "Help") {
        assert.strictEqual(
          CommandLine.help({ ...program, commands: [external] }, parsed.command, plain),
          "Usage:\n  ahp hook HOST [--flag]\n\nExit codes:\n  0  done"
        )
      }
    }
    assert.deepStrictEqual(parseExternal("--version", "hook", "codex"), { _tag: "Version" })
  })

  it("decodes values: defaults, --name=value, and -- before arguments that look like options", () => {
    const dispatch = parse(
      "dispatch",
      "--registration=r.json",
      "--event",
      "e.json",
      "--observation-timeout",
      "250",
      "--pretty"
    )
    assert.strictEqual(dispatch._tag, "Run")
    const files = parse("validate", "--", "--strange.json", "-")
    assert.strictEqual(files._tag, "Run")
  })

  it("hands @effect/cli each value as the value it is, and every word after -- as an argument", () => {
    const probe = CommandLine.make({
      name: "probe",
      summary: "a command that returns what it was given",
      exitCodes: [[0, "done"]],
      options: {
        reason: CommandLine.optionalText("reason", "TEXT", "a value that may read as an option"),
        pretty: CommandLine.flag("pretty", "an on/off option")
      },
      args: CommandLine.atLeastOne("FILE", "the files"),
      run: (options, files) => ({ reason: Option.getOrUndefined(options.reason), pretty: options.pretty, files })
    })
    const run = (...argv: ReadonlyArray<string>) => {
      const parsed = CommandLine.parse([probe], ["probe", ...argv])
      assert.strictEqual(parsed._tag, "Run", argv.join(" "))
      return parsed._tag === "Run" ? parsed.run : undefined
    }
    assert.deepStrictEqual(run("--reason", "-x", "a"), { reason: "-x", pretty: false, files: ["a"] })
    assert.deepStrictEqual(run("--reason", "--help", "a"), { reason: "--help", pretty: false, files: ["a"] })
    assert.deepStrictEqual(run("--reason", "--log-level", "a", "--pretty"), {
      reason: "--log-level",
      pretty: true,
      files: ["a"]
    })
    assert.deepStrictEqual(run("--reason=", "a"), { reason: "", pretty: false, files: ["a"] })
    assert.deepStrictEqual(run("--reason", "a=b", "-", "--", "--pretty", "--x"), {
      reason: "a=b",
      pretty: false,
      files: ["-", "--pretty", "--x"]
    })
    assert.deepStrictEqual(run("a", "--", "--version", "--wizard"), {
      reason: undefined,
      pretty: false,
      files: ["a", "--version", "--wizard"]
    })
    const usage = (...argv: ReadonlyArray<string>) => {
      const parsed = CommandLine.parse([probe], ["probe", ...argv])
      return parsed._tag === "Usage" ? parsed.message : parsed._tag
    }
    assert.strictEqual(usage("a", "--wizard"), "unknown option --wizard for ahp probe")
    assert.strictEqual(usage("a", "--pretty", "--pretty"), "--pretty is given 2 times")
    assert.strictEqual(usage("a", "--pretty=yes"), "--pretty takes no value")
  })

  it("documents every option and every command's exit codes; usage reads `ahp <command> …`", () => {
    const root = CommandLine.help(program, undefined, plain)
    assert.match(root, /^Usage: ahp <command> \[options\]/)
    for (const command of program.commands) assert.include(root, `  ${command.name}`)
    for (const code of ["0", "1", "2", "130"]) assert.match(root, new RegExp(`^  ${code} +\\S`, "m"))
    for (const command of program.commands) {
      const text = CommandLine.help(program, command, plain)
      assert.match(text, new RegExp(`^Usage:\\s+ahp ${command.name}( |$)`, "m"))
      assert.notMatch(text, /user-defined|true or false value|wizard|completions/i)
      assert.include(text, "Exit codes:")
      for (const option of command.options) {
        assert.isAtLeast(option.description.length, 10, `${command.name} --${option.name}`)
        assert.match(text, new RegExp(`--${option.name}\\b.*\\S`), `${command.name} --${option.name}`)
      }
    }
    assert.notInclude(root, "\u001b[")
    assert.include(CommandLine.help(program, undefined, style(true)), "\u001b[1mUsage:")
  })

  it("lists every kind validate knows and every example serve knows", () => {
    const validate = program.commands.find((c) => c.name === "validate")!
    assert.strictEqual(validate.options.find((o) => o.name === "kind")?.note, [...Wire.kinds, "event"].join(" | "))
    assert.deepStrictEqual([...exampleNames].sort(), [
      "audit",
      "prompt-annotator",
      "secret-redactor",
      "shell-guard",
      "slow"
    ])
  })

  it("suggests only close words", () => {
    assert.strictEqual(closest("fail-close", ["fail-open", "fail-closed"]), "fail-closed")
    assert.strictEqual(closest("tool.befor", ["tool.before", "tool.after"]), "tool.before")
    assert.strictEqual(closest("zzz", ["tool.before"]), undefined)
    assert.strictEqual(closest("tool.before", ["tool.before"]), undefined)
  })
})
