/**
 * The README and the docs stay true: the two set-up commands are the README's, and no other
 * file has one; every TypeScript block is a file of apps/ahp/docs shown whole (compiled by
 * `tsc -b`, run by Docs.test.ts), and every such file is shown somewhere; every shell command
 * runs from the repository root and prints what the block after it shows (the hook commands
 * as `pnpm ahp` runs them: the workspace's bin `apps/ahp/bin/ahp.mjs` in a process of its
 * own; the others in this process); every option of a usage block exists.
 */
import { style } from "@effect-ahp/tools/Style"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import { scaled } from "../../../test/support/load.js"
import { program } from "../src/Cli.js"
import * as CommandLine from "../src/CommandLine.js"
import { runInProcess } from "./inProcess.js"
import { root, runCli } from "./support.js"

interface Block {
  /** The Markdown file, relative to the repository root. */
  readonly file: string
  readonly lang: string
  readonly content: string
  /** The HTML comment right before the block, without `<!--` and `-->`. */
  readonly marker: string | undefined
  readonly line: number
}

/** The README first, then CONTRIBUTING.md and every Markdown file under docs/, in name order. */
const documents: ReadonlyArray<string> = [
  "README.md",
  "CONTRIBUTING.md",
  ...fs.readdirSync(path.join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".md"))
    .map((name) => path.posix.join("docs", name.split(path.sep).join("/")))
    .sort()
]

const blocksOf = (file: string): ReadonlyArray<Block> => {
  const lines = fs.readFileSync(path.join(root, file), "utf8").split("\n")
  const found: Array<Block> = []
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)$/.exec(lines[i]!)
    if (open === null) continue
    const end = lines.indexOf("```", i + 1)
    let before = i - 1
    while (before >= 0 && lines[before]!.trim() === "") before--
    const comment = /^<!-- (.*) -->$/.exec(lines[before] ?? "")
    found.push({ file, lang: open[1]!, content: lines.slice(i + 1, end).join("\n"), marker: comment?.[1], line: i + 1 })
    i = end
  }
  return found
}

/**
 * A document with an `<!-- install -->` block is the consumer check's (test/consumer): it
 * installs that line in a fresh project and runs the document's program and commands there.
 */
const isConsumerDocument = (file: string) => blocksOf(file).some((b) => b.marker === "install")

const consumerDocuments = documents.filter(isConsumerDocument)

const blocks: ReadonlyArray<Block> = documents.filter((file) => !isConsumerDocument(file)).flatMap(blocksOf)

const where = (block: Block) => `${block.file} line ${block.line}`

const setupCommands = [
  "npm i -g pnpm@12.4.2 && pnpm install --frozen-lockfile && pnpm ahp demo",
  "npm i -g pnpm@12.4.2 && pnpm install --frozen-lockfile && pnpm test"
]

const isSetup = (block: Block) => block.lang === "sh" && block.content.startsWith("npm i -g pnpm")

/** Shell blocks the tour does not run (the consumer check runs what they show). */
const isNotRun = (block: Block) => block.lang === "sh" && block.marker?.startsWith("not run") === true

const docsDir = path.join(root, "apps", "ahp", "docs")

/** What `pnpm ahp` runs: the workspace's bin, which rebuilds dist/ahp.mjs when a source is newer. */
const workspaceBin = path.join(root, "apps", "ahp", "bin", "ahp.mjs")

/** `pnpm ahp a b < file` → the arguments and the stdin file. */
const parseCommand = (line: string) => {
  const [command, input] = line.split(" < ")
  const words = command!.trim().split(/\s+/)
  assert.deepStrictEqual(words.slice(0, 2), ["pnpm", "ahp"], line)
  return { args: words.slice(2), input: input?.trim() }
}

const normalise = (text: string) => text.replace(/\d+ ms/g, "N ms").trimEnd()

describe("README and docs", () => {
  it("keeps exactly the two set-up commands, in the README, whose scripts exist", () => {
    assert.deepStrictEqual(
      blocks.filter(isSetup).map((b) => [b.file, b.content]),
      setupCommands.map((c) => ["README.md", c])
    )
    const manifest = JSON.parse(fs.readFileSync(path.join(root, "package.json"), "utf8"))
    assert.strictEqual(manifest.scripts.test, "node scripts/test.mjs")
    // `pnpm ahp` is the workspace's `ahp` bin (no script of that name, so pnpm adds no noise)
    assert.notProperty(manifest.scripts, "ahp")
    assert.strictEqual(manifest.devDependencies["@effect-ahp/cli"], "workspace:*")
    const cli = JSON.parse(fs.readFileSync(path.join(root, "apps", "ahp", "package.json"), "utf8"))
    assert.isTrue(fs.existsSync(path.join(root, "apps", "ahp", cli.bin.ahp)))
  })

  it("leaves to the consumer check only the documents it reads", () => {
    const consumerTest = fs.readFileSync(path.join(root, "test", "consumer", "Consumer.test.ts"), "utf8")
    for (const file of consumerDocuments) {
      assert.include(consumerTest, JSON.stringify(file), `${file} has an install block the consumer check never reads`)
    }
  })

  it("has only blocks the tests check", () => {
    for (const block of blocks) {
      const known = isSetup(block) ||
        block.lang === "sh" ||
        (block.lang === "ts" && block.marker?.startsWith("file: ")) ||
        ((block.lang === "json" || block.lang === "text") &&
          (block.marker === "output" || block.marker?.startsWith("usage: ")))
      assert.isTrue(known, `${where(block)}: a ${block.lang} block the tests do not check`)
    }
  })

  it("shows every docs file whole, and nothing else as TypeScript", () => {
    const shown = blocks.filter((b) => b.lang === "ts").map((block) => {
      const file = block.marker!.slice("file: ".length)
      assert.strictEqual(path.dirname(path.join(root, file)), docsDir, `${where(block)}: ${file}`)
      assert.strictEqual(
        block.content,
        fs.readFileSync(path.join(root, file), "utf8").trimEnd(),
        `${where(block)}: ${file}`
      )
      return path.basename(file)
    })
    assert.deepStrictEqual([...new Set(shown)].sort(), fs.readdirSync(docsDir).filter((f) => f.endsWith(".ts")).sort())
  })

  it("the install steps name real scripts and the tarballs they write", () => {
    const notRun = blocks.filter(isNotRun)
    assert.isNotEmpty(notRun)
    for (const block of notRun) {
      for (const script of block.content.match(/scripts\/[\w.-]+\.mjs/g) ?? []) {
        assert.isTrue(fs.existsSync(path.join(root, script)), script)
      }
      for (const [, name, version] of block.content.matchAll(/effect-ahp-([a-z]+)-(\d+\.\d+\.\d+)\.tgz/g)) {
        const dir = name === "cli" ? path.join(root, "apps", "ahp") : path.join(root, "packages", name!)
        const manifest = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8"))
        assert.deepStrictEqual([manifest.name, manifest.version], [`@effect-ahp/${name}`, version])
      }
    }
  })

  it("lists only real options in usage blocks", () => {
    for (const block of blocks.filter((b) => b.marker?.startsWith("usage: "))) {
      const name = block.marker!.slice("usage: ".length)
      const command = program.commands.find((c) => c.name === name)
      assert.isDefined(command, `${where(block)}: ${name}`)
      const help = CommandLine.help(program, command, style(false))
      for (const option of block.content.match(/--[a-z-]+/g) ?? []) {
        assert.include(help, option, `${where(block)}: ${name} ${option}`)
      }
    }
  })

  /** Runs a command with the repository root as the working directory, as the README's commands run. */
  const inRoot = <A, E>(self: Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        const before = process.cwd()
        process.chdir(root)
        return before
      }),
      () => self,
      (before) => Effect.sync(() => process.chdir(before))
    )

  it.live("runs every shell command shown and prints what the docs show", () =>
    Effect.gen(function*() {
      const tour = blocks.filter((b) => b.lang === "sh" && !isSetup(b) && !isNotRun(b))
      assert.isAtLeast(tour.length, 4)
      // The backends of examples/registration.json run dist/ahp.mjs, which the workspace's
      // bin builds on its first run, as `pnpm ahp` does before the first tour command.
      const built = yield* runCli(["--version"], { command: [workspaceBin] })
      assert.strictEqual(built.code, 0, built.stderr)
      for (const block of tour) {
        const next = blocks[blocks.indexOf(block) + 1]
        const commands = block.content.split("\n").filter((l) => l.trim() !== "")
        for (const line of commands) {
          const { args, input } = parseCommand(line)
          for (const arg of [...args, ...(input === undefined ? [] : [input])]) {
            if (arg.startsWith("examples/")) {
              assert.isTrue(fs.existsSync(path.join(root, arg)), `${where(block)}: ${line}: ${arg} is missing`)
            }
          }
          // demo and conformance print no output here; Demo.test.ts and Conformance.test.ts run them
          if (args[0] === "demo" || args[0] === "conformance") {
            assert.strictEqual(CommandLine.parse(program.commands, args)._tag, "Run", line)
            continue
          }
          const stdin = input === undefined ? {} : { input: fs.readFileSync(path.join(root, input), "utf8") }
          const run = args[0] === "hook"
            ? yield* runCli(args, { command: [workspaceBin], ...stdin })
            : yield* inRoot(runInProcess(args, stdin))
          assert.strictEqual(run.code, 0, `${where(block)}: ${line}\n${run.stdout}\n${run.stderr}`)
          if (next?.marker === "output" && next.file === block.file && commands.length === 1) {
            assert.strictEqual(normalise(run.stdout), normalise(next.content), `${where(block)}: ${line}`)
          }
        }
      }
    }), scaled(240_000))
})
