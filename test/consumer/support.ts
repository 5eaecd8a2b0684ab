/**
 * What the consumer check's files share: running a step (a failure names the step, the
 * command, its exit code and its output), reading the documents whose install lines and
 * programs it runs, and turning an install line into the one that installs the tarballs.
 *
 * A document marks its parts with an HTML comment right before a code block:
 * - `<!-- install -->`: the install command(s) once the packages are published, one `npm i`
 *   (or `npm install`) a line, with the Effect 3 line pinned (`effect@^3.22.4`, …);
 * - `<!-- install: tarballs -->` (optional): the same line(s) with the packed tarballs in
 *   `/tmp/ahp-packages` instead of the registry's names (`withTarballs`);
 * - `<!-- file: NAME -->`: a file of the program, written to NAME in the project;
 * - `<!-- run -->`: shell commands run in the project, and the `text` block after them
 *   what they print on stdout; `<!-- run: fails -->`: commands that must fail, the `text`
 *   block after them a line of what they print on stderr.
 */
import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { fileURLToPath } from "node:url"

export const root = fileURLToPath(new URL("../../", import.meta.url))
export const tsc = path.join(root, "node_modules", "typescript", "bin", "tsc")

/** Where the documents' tarball lines take the tarballs from (`node scripts/pack.mjs /tmp/ahp-packages`). */
export const documentedTarballs = "/tmp/ahp-packages"

/** A published package as the consumer check packed it (from its tarball's package.json). */
export interface PackedPackage {
  readonly name: string
  readonly version: string
  readonly tarball: string
  readonly manifest: Manifest
}

export interface Manifest {
  readonly name: string
  readonly version: string
  readonly dependencies?: Readonly<Record<string, string>>
  readonly peerDependencies?: Readonly<Record<string, string>>
  readonly [key: string]: unknown
}

/** What the global setup packed, or why it could not. */
export type Packed =
  | { readonly _tag: "Packed"; readonly dir: string; readonly packages: ReadonlyArray<PackedPackage> }
  | { readonly _tag: "Failed"; readonly error: string }

declare module "vitest" {
  export interface ProvidedContext {
    packed: Packed
  }
}

export interface Ran {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** How a step runs: the exit code it must end with (default 0; `"nonzero"`: any but 0), its stdin, extra environment. */
export interface StepOptions {
  readonly expected?: number | "nonzero"
  readonly input?: string
  readonly env?: Readonly<Record<string, string>>
}

/**
 * The environment of a user's shell: this process's, without what pnpm and npm set for the
 * scripts they run (`npm_config_*` would configure the npm the steps run).
 */
export const userEnv = (): Record<string, string> =>
  Object.fromEntries(
    Object.entries(process.env).filter((entry): entry is [string, string] =>
      entry[1] !== undefined && !/^(npm|pnpm)_/i.test(entry[0])
    )
  )

const execute = (command: string, args: ReadonlyArray<string>, cwd: string, options: StepOptions): Promise<Ran> =>
  new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...userEnv(), NO_COLOR: "1", ...options.env } })
    child.stdin.on("error", () => {})
    child.stdin.end(options.input ?? "")
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (text: string) => (stdout += text))
    child.stderr.setEncoding("utf8").on("data", (text: string) => (stderr += text))
    child.on("error", (error) => resolve({ code: null, stdout, stderr: `${stderr}${String(error)}` }))
    child.on("close", (code) => resolve({ code, stdout, stderr }))
  })

const tail = (text: string) => text.trim().split("\n").slice(-30).join("\n")

/** Runs a command; a failure names the step, the command, its exit code and its output. */
export const step = async (
  what: string,
  command: string,
  args: ReadonlyArray<string>,
  cwd: string,
  options: StepOptions = {}
): Promise<Ran> => {
  const expected = options.expected ?? 0
  const ran = await execute(command, args, cwd, options)
  const ok = expected === "nonzero" ? ran.code !== 0 && ran.code !== null : ran.code === expected
  if (!ok) {
    throw new Error(
      `${what}: \`${[command, ...args].join(" ")}\` in ${cwd} exited with ${ran.code} (expected ${expected})\n` +
        `--- stdout\n${tail(ran.stdout)}\n--- stderr\n${tail(ran.stderr)}`
    )
  }
  return ran
}

/** At most `n` of the functions it is given run at once; the others wait their turn. */
export const limit = (n: number) => {
  let active = 0
  const waiting: Array<() => void> = []
  return async <A>(f: () => Promise<A>): Promise<A> => {
    if (active >= n) await new Promise<void>((resolve) => waiting.push(resolve))
    active++
    try {
      return await f()
    } finally {
      active--
      waiting.shift()?.()
    }
  }
}

/** A fenced code block of a Markdown document. */
export interface Block {
  readonly lang: string
  readonly content: string
  /** The HTML comment right before the block, without `<!--` and `-->`. */
  readonly marker: string | undefined
  /** The text between the previous block and this one. */
  readonly prose: string
  readonly line: number
}

export const blocks = (markdown: string): ReadonlyArray<Block> => {
  const lines = markdown.split("\n")
  const found: Array<Block> = []
  let after = 0
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\w*)$/.exec(lines[i]!)
    if (open === null) continue
    const end = lines.indexOf("```", i + 1)
    if (end === -1) throw new Error(`line ${i + 1}: a code block that does not end`)
    let before = i - 1
    while (before >= 0 && lines[before]!.trim() === "") before--
    const comment = /^<!-- (.*) -->$/.exec(lines[before] ?? "")
    found.push({
      lang: open[1]!,
      content: lines.slice(i + 1, end).join("\n"),
      marker: comment?.[1],
      prose: lines.slice(after, comment === null ? i : before).join("\n"),
      line: i + 1
    })
    i = end
    after = end + 1
  }
  return found
}

/** Commands of a `run` block and what they print. */
export interface Run {
  readonly commands: string
  /** stdout (`fails`: false), or a line of stderr (`fails`: true). */
  readonly expected: string
  readonly fails: boolean
  readonly line: number
}

/** A document's install lines, program files and runs. */
export interface Document {
  /** Relative to the repository. */
  readonly file: string
  /** The install lines once published, each a command's words. */
  readonly install: ReadonlyArray<ReadonlyArray<string>>
  /** The install lines with tarballs, when the document shows them. */
  readonly tarballs: ReadonlyArray<ReadonlyArray<string>> | undefined
  readonly files: ReadonlyArray<{ readonly name: string; readonly content: string }>
  readonly runs: ReadonlyArray<Run>
}

const installLines = (block: Block, where: string) =>
  block.content.split("\n").filter((line) => line.trim() !== "").map((line) => {
    const words = line.trim().split(/\s+/)
    if (words[0] !== "npm" || (words[1] !== "i" && words[1] !== "install")) {
      throw new Error(`${where}:${block.line}: an install line is one npm install command, got \`${line}\``)
    }
    return words
  })

/** Reads a document's marked blocks; a document without an install block or a run without its output is an error. */
export const readDocument = (file: string): Document => {
  const all = blocks(fs.readFileSync(path.join(root, file), "utf8"))
  const marked = (marker: string) => all.filter((b) => b.marker === marker)
  const [install, ...more] = marked("install")
  if (install === undefined || more.length > 0) {
    throw new Error(`${file}: one <!-- install --> block, not ${more.length + 1}`)
  }
  if (!/once\b[^.]*\bpublished/i.test(install.prose)) {
    throw new Error(`${file}:${install.line}: the registry's install line is marked "once published"`)
  }
  const [tarballs] = marked("install: tarballs")
  if (tarballs !== undefined && !tarballs.prose.includes(`node scripts/pack.mjs ${documentedTarballs}`)) {
    throw new Error(`${file}:${tarballs.line}: the tarballs' line says how they are made (node scripts/pack.mjs)`)
  }
  const files = all.flatMap((b) => {
    const name = /^file: (\S+)$/.exec(b.marker ?? "")?.[1]
    return name === undefined ? [] : [{ name, content: `${b.content}\n` }]
  })
  const runs = all.flatMap((b, i) => {
    if (b.marker !== "run" && b.marker !== "run: fails") return []
    const output = all[i + 1]
    if (b.lang !== "sh" || output === undefined || output.lang !== "text" || output.marker !== undefined) {
      throw new Error(`${file}:${b.line}: a run block is a sh block followed by a text block of what it prints`)
    }
    return [{ commands: b.content, expected: output.content, fails: b.marker === "run: fails", line: b.line }]
  })
  return {
    file,
    install: installLines(install, file),
    tarballs: tarballs === undefined ? undefined : installLines(tarballs, file),
    files,
    runs
  }
}

/** The package a specifier names: `@scope/name` or `name`, without a subpath or a version range. */
export const packageName = (specifier: string): string => {
  const parts = specifier.split("/")
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!
  const at = name.indexOf("@", 1)
  return at === -1 ? name : name.slice(0, at)
}

const workspaceScope = "@effect-ahp/"

/**
 * An install line with the workspace's packages as tarballs: each `@effect-ahp/*` name is
 * replaced by its tarball, followed by the tarballs of its workspace dependencies (depth
 * first, each once), which are not on the registry either.
 */
export const withTarballs = (
  line: ReadonlyArray<string>,
  packages: ReadonlyArray<PackedPackage>,
  dir: string
): Array<string> => {
  const listed = new Set<string>()
  const out: Array<string> = []
  const add = (name: string) => {
    if (listed.has(name)) return
    const found = packages.find((p) => p.name === name)
    if (found === undefined) throw new Error(`\`${line.join(" ")}\` names ${name}, which is not a published package`)
    listed.add(name)
    out.push(path.join(dir, path.basename(found.tarball)))
    for (const dependency of Object.keys(found.manifest.dependencies ?? {})) {
      if (dependency.startsWith(workspaceScope)) add(dependency)
    }
  }
  for (const word of line) {
    if (word.startsWith(workspaceScope)) add(word)
    else out.push(word)
  }
  return out
}

/** The workspace packages an install line installs: those it names and their workspace dependencies. */
export const installedWorkspacePackages = (
  line: ReadonlyArray<string>,
  packages: ReadonlyArray<PackedPackage>
): Array<string> =>
  withTarballs(line, packages, "/")
    .map((word) => packages.find((p) => `/${path.basename(p.tarball)}` === word)?.name)
    .filter((name): name is string => name !== undefined)
