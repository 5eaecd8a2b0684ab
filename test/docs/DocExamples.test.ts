/**
 * Every `@example` in the packages' doc comments is a whole program that type-checks
 * against the packages as a user imports them: its imports included, strict NodeNext as
 * the repository compiles. An example is extracted from its comment (the lines between
 * ` * ```ts` and ` * ``` `), and the examples are checked together in one compiler program
 * whose files sit beside this test, so `@effect-ahp/*` resolves to the workspace packages.
 */
import { assert, describe, it } from "@effect/vitest"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import ts from "typescript"
import { scaled } from "../support/load.js"

const here = path.dirname(fileURLToPath(import.meta.url))
const root = path.resolve(here, "..", "..")

interface Example {
  /** Where the example is, `packages/NAME/src/FILE.ts line N`. */
  readonly where: string
  readonly code: string
}

const sourceFiles = (dir: string): ReadonlyArray<string> =>
  fs.readdirSync(dir, { recursive: true, encoding: "utf8" })
    .filter((name) => name.endsWith(".ts"))
    .map((name) => path.join(dir, name))
    .sort()

/** The examples of one source file, each with the comment's ` * ` prefix removed. */
const examplesOf = (file: string): ReadonlyArray<Example> => {
  const lines = fs.readFileSync(file, "utf8").split("\n")
  const found: Array<Example> = []
  for (let i = 0; i < lines.length; i++) {
    if (lines[i]!.trim() !== "* @example") continue
    const open = i + 1
    assert.strictEqual(lines[open]?.trim(), "* ```ts", `${path.relative(root, file)} line ${open + 1}: a ts block`)
    const close = lines.findIndex((line, k) => k > open && line.trim() === "* ```")
    assert.isAbove(close, open, `${path.relative(root, file)} line ${open + 1}: an unclosed example`)
    const code = lines.slice(open + 1, close).map((line) => line.replace(/^\s*\* ?/, "")).join("\n")
    found.push({ where: `${path.relative(root, file)} line ${open + 2}`, code: `${code}\n` })
    i = close
  }
  return found
}

const examples: ReadonlyArray<Example> = fs.readdirSync(path.join(root, "packages")).sort().flatMap((name) => {
  const src = path.join(root, "packages", name, "src")
  return fs.existsSync(src) ? sourceFiles(src).flatMap(examplesOf) : []
})

const base = JSON.parse(fs.readFileSync(path.join(root, "tsconfig.base.json"), "utf8")).compilerOptions

/** The repository's strict options; an example may leave a value unused (it shows how one is made). */
const options: ts.CompilerOptions = {
  ...ts.convertCompilerOptionsFromJson(base, root).options,
  noUnusedLocals: false,
  noUnusedParameters: false,
  composite: false,
  incremental: false,
  declaration: false,
  declarationMap: false,
  sourceMap: false,
  noEmit: true,
  types: ["node"],
  skipLibCheck: true
}

/** Type-checks the examples as files beside this test; the diagnostics of each, formatted. */
const check = (all: ReadonlyArray<Example>): ReadonlyArray<string> => {
  const files = new Map(all.map((example, i) => [path.join(here, `example-${i}.ts`), example]))
  const host = ts.createCompilerHost(options)
  const getSourceFile = host.getSourceFile
  host.getSourceFile = (name, language, ...rest) => {
    const example = files.get(path.resolve(name))
    return example !== undefined
      ? ts.createSourceFile(name, example.code, language)
      : getSourceFile.call(host, name, language, ...rest)
  }
  const fileExists = host.fileExists
  host.fileExists = (name) => files.has(path.resolve(name)) || fileExists.call(host, name)
  const program = ts.createProgram({ rootNames: [...files.keys()], options, host })
  return [...files].flatMap(([name, example]) => {
    const source = program.getSourceFile(name)!
    return [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)].map((d) => {
      const line = d.start === undefined ? 0 : source.getLineAndCharacterOfPosition(d.start).line
      return `${example.where} (example line ${line + 1}): ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`
    })
  })
}

describe("doc comment examples", () => {
  it("are whole programs that type-check", () => {
    assert.isAtLeast(examples.length, 10)
    for (const example of examples) {
      assert.match(example.code, /^import /m, `${example.where}: an example imports what it uses`)
    }
    assert.deepStrictEqual(check(examples), [])
  }, scaled(120_000))

  it("reports an example that does not type-check, with where it is", () => {
    const broken = { where: "packages/x/src/X.ts line 1", code: "import { Effect } from \"effect\"\nEffect.nope\n" }
    const [diagnostic, ...more] = check([broken])
    assert.deepStrictEqual(more, [])
    assert.match(diagnostic!, /^packages\/x\/src\/X\.ts line 1 \(example line 2\): Property 'nope' does not exist/)
  }, scaled(120_000))
})
