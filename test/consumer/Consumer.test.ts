/**
 * The install lines and programs of the documents, as a user runs them: every published
 * package's README (and docs/guide/bundling.md) is read for its install line, which is
 * run with the packed tarballs in place of the registry's names (`withTarballs`; the
 * document's own tarball line must be exactly that) in a fresh project outside the
 * workspace that holds nothing else (`"type": "module"`, `@types/node`); the document's
 * program is written there, type-checked under plain strict NodeNext settings with
 * `skipLibCheck: false` (a package README's) and run as the document shows, printing what
 * it shows. One package alone per project: a package that needs something its install line
 * does not install fails here, as a user's project would.
 *
 * Needs the npm registry, or an npm cache that already holds effect and its companions.
 * Every step that fails says which step, the command, its exit code and its output.
 */
import { assert, describe, inject, it } from "@effect/vitest"
import * as fs from "node:fs"
import { builtinModules } from "node:module"
import * as os from "node:os"
import * as path from "node:path"
import ts from "typescript"
import { workspacePackages } from "../../scripts/pack.mjs"
import {
  blocks,
  type Document,
  documentedTarballs,
  installedWorkspacePackages,
  limit,
  packageName,
  type PackedPackage,
  readDocument,
  root,
  step,
  tsc,
  withTarballs
} from "./support.js"

const manifest = (file: string): any => JSON.parse(fs.readFileSync(file, "utf8"))
const typesNode = manifest(path.join(root, "package.json")).devDependencies["@types/node"]

/** The documents whose install lines and programs run here: each published package's README, and the bundling guide. */
const documents = [
  ...workspacePackages()
    .filter((p) => !p.private)
    .map((p) => path.relative(root, path.join(p.path, "README.md"))),
  "docs/guide/bundling.md"
]

/** The compiler options of every consumer: plain strict NodeNext, the libraries' declarations checked. */
const compilerOptions = {
  target: "ES2022",
  lib: ["ES2022"],
  module: "NodeNext",
  moduleResolution: "NodeNext",
  strict: true,
  skipLibCheck: false,
  types: ["node"]
}

// npm installs mostly wait on the disk and the network; tsc computes (about 10 CPU-s for a
// consumer of the Node packages): two at a time on 2 cores.
const installs = limit(3)
const typeChecks = limit(2)

const packedPackages = (): ReadonlyArray<PackedPackage> => {
  const packed = inject("packed")
  if (packed._tag === "Failed") throw new Error(`the packages could not be packed: ${packed.error}`)
  return packed.packages
}

const npmEnv = {
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
  npm_config_prefer_offline: "true",
  npm_config_loglevel: "error"
}

const isGlobal = (line: ReadonlyArray<string>) => line.includes("-g") || line.includes("--global")

/** The bare specifiers a program file imports or requires. */
const imports = (file: string, content: string): Array<string> =>
  ts.preProcessFile(content, true, /\.[cm]?js$/.test(file)).importedFiles.map((i) => i.fileName)
    .filter((specifier) => !specifier.startsWith("."))

/** The copies of `effect` installed in a project. */
const effectCopies = (project: string) =>
  fs.readdirSync(path.join(project, "node_modules"), { recursive: true, encoding: "utf8" })
    .filter((entry) => entry === "effect/package.json" || entry.endsWith("/node_modules/effect/package.json"))

/**
 * Whether a document's TypeScript is type-checked: a package README's program is (what the
 * package's declarations need shows up there); the bundling guide's app is bundled by
 * esbuild, which checks no types, and run in both formats.
 */
const typeChecked = (document: Document) =>
  document.file !== "docs/guide/bundling.md" && document.files.some(({ name }) => name.endsWith(".ts"))

/** What a document's check does after its runs, for the documents that claim more. */
const extras: Record<string, (project: string, document: Document, env: Record<string, string>) => Promise<void>> = {
  // Each bundle runs with nothing installed beside it.
  "docs/guide/bundling.md": async (project, document) => {
    const alone = fs.mkdtempSync(path.join(os.tmpdir(), "ahp-bundle-"))
    try {
      const shown = document.runs.find((run) => !run.fails)!.expected
      for (const bundle of ["app.mjs", "app.cjs"]) {
        fs.copyFileSync(path.join(project, "dist", bundle), path.join(alone, bundle))
        const ran = await step(`running ${bundle} without node_modules`, process.execPath, [bundle], alone)
        assert.strictEqual(ran.stdout.trimEnd(), shown, bundle)
      }
    } finally {
      fs.rmSync(alone, { recursive: true, force: true })
    }
  },
  "apps/ahp/README.md": async (project, _document, env) => {
    const version = await step("ahp --version", "sh", ["-c", "ahp --version"], project, { env })
    assert.strictEqual(version.stdout, `${manifest(path.join(root, "apps", "ahp", "package.json")).version}\n`)
  }
}

describe.concurrent("each document's install line and program, in a fresh project", () => {
  for (const file of documents) {
    it(`${file}: installs alone with its line, type-checks and runs its program as shown`, async () => {
      const document = readDocument(file)
      const packages = packedPackages()
      const packed = path.dirname(packages[0]!.tarball)
      const lines = document.install.map((line) => withTarballs(line, packages, packed))
      if (document.tarballs !== undefined) {
        assert.deepStrictEqual(
          document.tarballs.map((line) => line.join(" ")),
          document.install.map((line) => withTarballs(line, packages, documentedTarballs).join(" ")),
          `${file}: the tarballs' line installs what the registry's line installs`
        )
      }
      // every peer of every workspace package installed is named, with exactly its range
      const named = new Map(
        document.install.flatMap((line) => line.slice(2)).filter((w) => !w.startsWith("-")).map((
          w
        ) => [packageName(w), w])
      )
      for (const name of document.install.flatMap((line) => installedWorkspacePackages(line, packages))) {
        const peers = packages.find((p) => p.name === name)!.manifest.peerDependencies ?? {}
        for (const [peer, range] of Object.entries(peers)) {
          assert.strictEqual(named.get(peer), `${peer}@${range}`, `${file} installs ${name}'s peer ${peer}`)
        }
      }
      // a program imports only what its install line names (or Node's own modules)
      for (const { content, name } of document.files) {
        for (const specifier of imports(name, content)) {
          const imported = packageName(specifier)
          assert.isTrue(
            specifier.startsWith("node:") || builtinModules.includes(specifier) || named.has(imported),
            `${file}: ${name} imports ${specifier}, which its install line does not install`
          )
        }
      }

      const project = fs.mkdtempSync(path.join(os.tmpdir(), `ahp-consumer-${path.basename(path.dirname(file))}-`))
      try {
        const global = path.join(project, "global")
        const env = {
          PATH: `${path.join(global, "bin")}${path.delimiter}${process.env.PATH}`,
          AHP_CACHE_DIR: path.join(project, ".cache")
        }
        fs.writeFileSync(
          path.join(project, "package.json"),
          JSON.stringify({
            name: "consumer",
            private: true,
            type: "module",
            devDependencies: { "@types/node": typesNode }
          })
        )
        for (const line of lines) {
          await installs(() =>
            step(`installing with \`${line.join(" ")}\``, line[0]!, line.slice(1), project, {
              env: isGlobal(line) ? { ...npmEnv, npm_config_prefix: global } : npmEnv
            })
          )
        }
        const local = lines.filter((line) => !isGlobal(line)).flatMap((line) =>
          installedWorkspacePackages(line, packages)
        )
        if (local.length > 0) {
          const scope = path.join(project, "node_modules", "@effect-ahp")
          assert.deepStrictEqual(
            fs.readdirSync(scope).map((name) => `@effect-ahp/${name}`).sort(),
            [...new Set(local)].sort(),
            `${file}: the workspace packages installed`
          )
          for (const name of fs.readdirSync(scope)) {
            const installed = path.join(scope, name)
            assert.isFalse(fs.lstatSync(installed).isSymbolicLink(), `${installed} is a link`)
          }
          assert.deepStrictEqual(effectCopies(project), ["effect/package.json"], `${file}: one copy of effect`)
          await step("checking the installed tree (npm ls)", "npm", ["ls", "--all"], project, { env: npmEnv })
        }
        for (const line of lines.filter(isGlobal)) {
          for (const name of installedWorkspacePackages(line, packages)) {
            const installed = path.join(global, "lib", "node_modules", name)
            assert.isTrue(fs.existsSync(path.join(installed, "package.json")), `${name} installed globally`)
            assert.isFalse(fs.existsSync(path.join(installed, "node_modules")), `${name} installs nothing with it`)
          }
        }

        for (const { content, name } of document.files) {
          fs.mkdirSync(path.dirname(path.join(project, name)), { recursive: true })
          fs.writeFileSync(path.join(project, name), content)
        }
        if (typeChecked(document)) {
          fs.writeFileSync(path.join(project, "tsconfig.json"), JSON.stringify({ compilerOptions, include: ["*.ts"] }))
          await typeChecks(() =>
            step(
              "type-checking and compiling the program with tsc",
              process.execPath,
              [tsc, "-p", "tsconfig.json"],
              project
            )
          )
        }

        assert.isNotEmpty(document.runs, `${file} runs its program`)
        for (const run of document.runs) {
          const ran = await step(`${file}:${run.line}`, "sh", ["-ec", run.commands], project, {
            env,
            ...(run.fails ? { expected: "nonzero" as const } : {})
          })
          if (run.fails) assert.include(ran.stderr, run.expected, `${file}:${run.line} fails as shown`)
          else assert.strictEqual(ran.stdout.trimEnd(), run.expected, `${file}:${run.line} prints what is shown`)
        }
        await extras[file]?.(project, document, env)
      } finally {
        fs.rmSync(project, { recursive: true, force: true })
      }
    })
  }

  it("the root README shows each package's install line, and only lines the documents have", () => {
    const readme = fs.readFileSync(path.join(root, "README.md"), "utf8")
    // the section runs from its heading (## or ###) to the next heading of level 2 or 3
    const [, section = ""] = /\n##+ Installing the packages\n([\s\S]*?)(?=\n##+ |$)/.exec(readme) ?? []
    assert.isNotEmpty(section, "README.md has its section Installing the packages")
    const shown = blocks(section).flatMap((b) => b.content.split("\n")).filter((line) => /^npm (i|install) /.test(line))
    assert.isNotEmpty(shown)
    const known = documents.flatMap((file) => {
      const document = readDocument(file)
      return [...document.install, ...(document.tarballs ?? [])].map((line) => line.join(" "))
    })
    for (const line of shown) assert.include(known, line, "README.md shows a line a document has (and the check runs)")
    for (const file of documents.filter((file) => file.endsWith("README.md"))) {
      for (const line of readDocument(file).install) {
        assert.include(shown, line.join(" "), `README.md shows ${file}'s line`)
      }
    }
  })
})
