/**
 * The shell guard's analysis: a command is parsed with a POSIX shell parser
 * (`@ericcornelissen/bash-parser`) and every simple command in it (in pipelines, lists,
 * subshells, functions, loops, command substitutions, and the scripts given to `sh -c`,
 * `eval` or piped into a shell) is judged after looking through wrappers (`env`, `sudo`,
 * `xargs`, `nohup`, `timeout`, … and absolute or relative paths). The most severe verdict
 * wins: deny, then ask, then none; allow only when every command is on the read-only list
 * with no expansion, assignment, heredoc or redirect that writes. What cannot be parsed,
 * is too large or nests too deep is asked about, never allowed.
 *
 * @internal
 */
import parse from "@ericcornelissen/bash-parser"

/** @internal */
export type Kind = "deny" | "ask" | "allow" | "none"

/** @internal */
export interface Verdict {
  readonly kind: Kind
  readonly reason: string
}

/** The longest command analysed, in characters. */
const maxLength = 16_384
/** How many scripts within scripts (`sh -c`, `eval`, pipes into a shell) are looked through. */
const maxDepth = 6

const rank: Record<Kind, number> = { allow: 0, none: 1, ask: 2, deny: 3 }
const allow: Verdict = { kind: "allow", reason: "read-only command" }
const none: Verdict = { kind: "none", reason: "" }
const deny = (reason: string): Verdict => ({ kind: "deny", reason })
const ask = (reason: string): Verdict => ({ kind: "ask", reason })
const worst = (a: Verdict, b: Verdict): Verdict => (rank[b.kind] > rank[a.kind] ? b : a)

interface Node {
  readonly type?: string
  readonly [key: string]: unknown
}
interface Word {
  readonly text: string
  readonly dynamic: boolean
}

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null

const shells = new Set(["sh", "bash", "zsh", "dash", "ksh", "ash", "fish"])
const broadTargets = new Set([
  "/",
  "/*",
  "~",
  "~/",
  "~/*",
  "$HOME",
  "$HOME/",
  "$HOME/*",
  ".",
  "./",
  "..",
  "../",
  "*",
  "./*"
])
const systemDirs = /^\/(?:etc|bin|sbin|usr|lib|lib64|boot|sys|proc|var|opt|root|home)(?:\/|$)/
const rawDisk = /^\/dev\/(?:sd|hd|nvme|vd|xvd|disk|mmcblk)/
const secretPath =
  /(?:^|\/)(?:\.env(?:\.(?!(?:example|sample|template)$)[^/]*)?$|\.ssh(?:\/|$)|\.aws(?:\/|$)|\.azure(?:\/|$)|\.config\/gcloud(?:\/|$)|\.kube\/config$|\.netrc$|\.npmrc$|\.pypirc$|\.git-credentials$|\.docker\/config\.json$|id_(?:rsa|dsa|ecdsa|ed25519)[^/]*|[^/]*\.(?:pem|key|p12|pfx)$|shadow$)/

const readOnly = new Set([
  "ls",
  "pwd",
  "cat",
  "head",
  "tail",
  "wc",
  "echo",
  "grep",
  "egrep",
  "fgrep",
  "rg",
  "which",
  "whoami",
  "uname",
  "stat",
  "file",
  "du",
  "df",
  "tree",
  "sort",
  "uniq",
  "diff",
  "find",
  "id",
  "basename",
  "dirname",
  "realpath",
  "readlink",
  "true",
  "false",
  "date",
  "printenv",
  "nl",
  "cut",
  "tr",
  "column",
  "cmp",
  "md5sum",
  "sha256sum",
  "type"
])
/** Flags that make a read-only command write, run another command or change state. */
const unsafeFlags: Record<string, RegExp> = {
  sort: /^(?:-o|--output)/,
  tree: /^-o$/,
  rg: /^--pre/,
  date: /^(?:-s|--set)/,
  find: /^-(?:delete|exec|execdir|ok|okdir|fprint|fprint0|fprintf|fls)$/
}
const readOnlyGit = new Set(["status", "log", "diff", "show", "rev-parse", "blame", "ls-files", "describe", "shortlog"])

/** Wrappers that run the rest of their arguments as a command, with how many option arguments they take. */
const wrapperOptions: Record<string, ReadonlySet<string>> = {
  env: new Set(["-u", "--unset", "-C", "--chdir", "-S", "--split-string"]),
  sudo: new Set(["-u", "-g", "-h", "-p", "-C", "-D", "-R", "-T", "-U", "--user", "--group"]),
  doas: new Set(["-u", "-C"]),
  xargs: new Set(["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--delimiter", "--max-args"]),
  nohup: new Set(),
  time: new Set(["-f", "-o"]),
  nice: new Set(["-n", "--adjustment"]),
  ionice: new Set(["-c", "-n", "-p"]),
  timeout: new Set(["-s", "--signal", "-k", "--kill-after"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  command: new Set(),
  builtin: new Set(),
  exec: new Set(["-a"]),
  chroot: new Set(),
  watch: new Set(["-n", "-d"])
}

const basename = (name: string) => name.slice(name.lastIndexOf("/") + 1)

const wordOf = (node: unknown): Word | undefined =>
  isNode(node) && typeof node.text === "string" && node.type !== "Redirect"
    ? { text: node.text, dynamic: Array.isArray(node.expansion) && node.expansion.length > 0 }
    : undefined

class Analysis {
  verdict: Verdict = allow
  constructor(readonly depth: number) {}
  add(verdict: Verdict) {
    this.verdict = worst(this.verdict, verdict)
  }
  /** Marks the command as not provably read-only. */
  effectful() {
    this.add(none)
  }
}

/** Judges `source`, a shell script. */
export const classify = (source: string): Verdict => analyse(source, 0)

const analyse = (source: string, depth: number): Verdict => {
  if (source.length > maxLength) return ask("the command is too long to check")
  if (depth > maxDepth) return ask("the command nests shells too deeply to check")
  let ast: unknown
  try {
    ast = parse(source)
  } catch {
    return ask("the command could not be parsed, so it cannot be checked")
  }
  const analysis = new Analysis(depth)
  if (/<<-?/.test(source)) analysis.effectful()
  walk(ast, analysis, [])
  return analysis.verdict
}

const walk = (node: unknown, analysis: Analysis, functions: ReadonlyArray<string>): void => {
  if (Array.isArray(node)) {
    for (const child of node) walk(child, analysis, functions)
    return
  }
  if (!isNode(node)) return
  switch (node.type) {
    case "Pipeline":
      pipeline(node.commands as ReadonlyArray<Node>, analysis)
      break
    case "Function": {
      const name = wordOf(node.name)?.text ?? ""
      walk(node.body, analysis, [...functions, name])
      return
    }
    case "Command":
      command(node, analysis, functions)
      break
    case "Redirect":
      redirect(node, analysis)
      return
    case "CommandExpansion":
    case "ArithmeticExpansion":
    case "ParameterExpansion":
      analysis.effectful()
      break
    case "If":
    case "For":
    case "While":
    case "Until":
    case "Case":
      analysis.effectful()
      break
  }
  for (const [key, child] of Object.entries(node)) {
    if (key !== "type" && key !== "loc") walk(child, analysis, functions)
  }
}

/** A shell reading its script from a pipe: the script is the previous stage's literal `echo`/`printf`, if it is one. */
const pipeline = (stages: ReadonlyArray<Node>, analysis: Analysis) => {
  stages.forEach((stage, index) => {
    const words = wordsOf(stage)
    const name = words[0] === undefined ? "" : basename(unwrap(words).map((w) => w.text)[0] ?? "")
    if (index === 0 || !shells.has(name) || words.some((w) => w.text === "-c")) return
    const previous = wordsOf(stages[index - 1]!)
    const source = basename(previous[0]?.text ?? "")
    if ((source === "echo" || source === "printf") && previous.slice(1).every((w) => !w.dynamic)) {
      analysis.add(analyse(previous.slice(1).map((w) => w.text).join(" "), analysis.depth + 1))
      analysis.effectful()
    } else {
      analysis.add(ask("piping into a shell runs unreviewed code"))
    }
  })
}

const wordsOf = (node: Node): ReadonlyArray<Word> => {
  if (node.type !== "Command") return []
  const name = wordOf(node.name)
  const rest = Array.isArray(node.suffix) ? node.suffix.flatMap((s) => wordOf(s) ?? []) : []
  return name === undefined ? rest : [name, ...rest]
}

/** The words after the wrappers in front of a command (`sudo`, `env X=1`, `nice -n 5`, …). */
const unwrap = (words: ReadonlyArray<Word>): ReadonlyArray<Word> => {
  let rest = words
  for (let guard = 0; guard < 32 && rest.length > 0; guard++) {
    const name = basename(rest[0]!.text)
    const options = wrapperOptions[name]
    if (options === undefined) return rest
    let i = 1
    while (i < rest.length) {
      const text = rest[i]!.text
      if (text === "--") {
        i++
        break
      }
      if (name === "env" && /^[A-Za-z_][A-Za-z0-9_]*=/.test(text)) i++
      else if (text.startsWith("-") && text.length > 1) i += options.has(text) ? 2 : 1
      else if (name === "timeout" && /^\d/.test(text)) {
        i++
        break
      } else break
    }
    rest = rest.slice(i)
  }
  return rest
}

const command = (node: Node, analysis: Analysis, functions: ReadonlyArray<string>) => {
  if (Array.isArray(node.prefix) && node.prefix.some((p) => isNode(p) && p.type === "AssignmentWord")) {
    analysis.effectful()
  }
  const all = wordsOf(node)
  if (all.length === 0) return
  const raw = basename(all[0]!.text)
  if (functions.includes(raw)) {
    analysis.add(deny("a function that calls itself is a fork bomb"))
    return
  }
  for (const word of all) {
    if (secretPath.test(word.text.replace(/^[A-Za-z_]+=|^@/, ""))) analysis.add(ask("it reads a secret file"))
    if (/\bdrop\s+(?:table|database|schema)\b/i.test(word.text)) {
      analysis.add(ask("dropping database objects loses data"))
    }
  }
  if (raw === "sudo" || raw === "doas") analysis.add(ask("sudo runs the command with full privileges"))
  if (raw === "xargs") analysis.effectful()
  const words = unwrap(all)
  if (words.length === 0) return
  const name = basename(words[0]!.text)
  const args = words.slice(1)
  if (words !== all) analysis.effectful()
  analysis.add(judge(name, args, analysis.depth))
}

const script = (args: ReadonlyArray<Word>, depth: number): Verdict =>
  args.some((w) => w.dynamic) ?
    worst(ask("it runs a script built at run time"), analyse(args.map((w) => w.text).join(" "), depth + 1))
    : worst(none, analyse(args.map((w) => w.text).join(" "), depth + 1))

const flags = (args: ReadonlyArray<Word>) => args.filter((w) => w.text.startsWith("-")).map((w) => w.text)
const operands = (args: ReadonlyArray<Word>) => args.filter((w) => !w.text.startsWith("-"))
const hasShort = (args: ReadonlyArray<Word>, letters: RegExp, long: string) =>
  flags(args).some((f) => f === long || (/^-[^-]/.test(f) && letters.test(f.slice(1))))
const broad = (word: Word) =>
  broadTargets.has(word.text.replace(/\/+$/, "") || "/") || broadTargets.has(word.text) ||
  systemDirs.test(word.text) && word.text.split("/").length <= 3

const judge = (name: string, args: ReadonlyArray<Word>, depth: number): Verdict => {
  if (shells.has(name)) {
    const c = args.findIndex((w) => /^-[a-z]*c[a-z]*$/.test(w.text))
    return c >= 0 && args[c + 1] !== undefined ? script([args[c + 1]!], depth) : none
  }
  if (name === "eval") return script(args, depth)
  if (name === "rm") {
    const recursive = hasShort(args, /[rR]/, "--recursive")
    const force = hasShort(args, /f/, "--force")
    if (recursive && force && operands(args).some(broad)) {
      return deny("a recursive forced delete of /, ~, . or * destroys data that cannot be recovered")
    }
    if (recursive) return ask("a recursive delete removes whole directories")
    return none
  }
  if (name === "find") {
    const deletes = args.some((w) => w.text === "-delete") ||
      args.some((w, i) => /^-(?:exec|execdir|ok|okdir)$/.test(w.text) && basename(args[i + 1]?.text ?? "") === "rm")
    if (deletes) {
      const start = args[0]?.text ?? "."
      return ["/", "/*", "~", "~/", "$HOME"].includes(start) || systemDirs.test(start)
        ? deny("deleting every file below / or ~ destroys data that cannot be recovered")
        : ask("find deletes every file it matches")
    }
    const exec = args.findIndex((w) => /^-(?:exec|execdir|ok|okdir)$/.test(w.text))
    if (exec >= 0) return worst(none, judge(basename(args[exec + 1]?.text ?? ""), args.slice(exec + 2), depth))
  }
  if (/^mkfs(?:\.\w+)?$/.test(name) || name === "mkswap" || name === "wipefs") return deny("mkfs formats a file system")
  if (name === "dd" && args.some((w) => /^of=\/dev\/(?!null$)/.test(w.text))) {
    return deny("dd onto a device overwrites a disk")
  }
  if (name === "shred" && args.some((w) => rawDisk.test(w.text))) return deny("shredding a disk device destroys it")
  if (["shutdown", "reboot", "halt", "poweroff"].includes(name)) {
    return deny("stopping the machine is not an agent's call")
  }
  if (name === "chmod" || name === "chown" || name === "chgrp") {
    if (hasShort(args, /R/, "--recursive")) {
      return operands(args).slice(1).some(broad)
        ? deny("recursively changing / breaks the system")
        : ask("a recursive permission change affects every file below")
    }
    return none
  }
  if (name === "git") return git(args)
  if (
    (name === "kill" && args.some((w) => w.text === "-9" || w.text === "-KILL")) || name === "pkill" ||
    name === "killall"
  ) {
    return ask("killing processes may lose work")
  }
  if (!readOnly.has(name)) return none
  if (args.some((w) => w.dynamic)) return none
  const unsafe = unsafeFlags[name]
  if (unsafe !== undefined && args.some((w) => unsafe.test(w.text))) return none
  if (name === "uniq" && operands(args).length > 1) return none
  return allow
}

const git = (args: ReadonlyArray<Word>): Verdict => {
  const sub = args.findIndex((w) => !w.text.startsWith("-"))
  const verb = args[sub]?.text ?? ""
  const rest = args.slice(sub + 1)
  switch (verb) {
    case "push":
      if (
        rest.some((w) =>
          /^(?:--force(?:-with-lease)?(?:=.*)?|-[a-z]*f[a-z]*|--mirror)$/.test(w.text) || w.text.startsWith("+")
        )
      ) {
        return ask("a force push rewrites shared history")
      }
      if (rest.some((w) => w.text === "--delete" || w.text === "-d" || /^:/.test(w.text))) {
        return ask("a push that deletes a remote branch loses shared history")
      }
      return none
    case "reset":
      return rest.some((w) => w.text === "--hard") ? ask("git reset --hard discards uncommitted work") : none
    case "clean":
      return hasShort(rest, /f/, "--force") ? ask("git clean -f deletes untracked files") : none
    case "branch":
      return rest.length === 0 || rest.every((w) => /^(?:-a|-r|-v|-vv|--list|--show-current|--all)$/.test(w.text))
        ? allow
        : none
    case "remote":
      return rest.length === 0 || rest.every((w) => w.text === "-v") ? allow : none
    default:
      return readOnlyGit.has(verb) && sub === 0 && !rest.some((w) => w.dynamic || /^--output|^--ext-diff/.test(w.text))
        ? allow
        : none
  }
}

const redirect = (node: Node, analysis: Analysis) => {
  const op = isNode(node.op) ? String(node.op.text) : ""
  const file = wordOf(node.file)?.text ?? ""
  if (op === ">&" || op === "<&") {
    if (!/^\d+$|^-$/.test(file)) analysis.effectful()
    return
  }
  if (op.startsWith("<") && op !== "<>") {
    if (secretPath.test(file)) analysis.add(ask("it reads a secret file"))
    if (op !== "<") analysis.effectful()
    return
  }
  if (file === "/dev/null") return
  if (rawDisk.test(file)) analysis.add(deny("writing to a raw disk device destroys it"))
  else if (systemDirs.test(file)) analysis.add(deny("overwriting a system file breaks the machine"))
  else if (secretPath.test(file) || /(?:^~|\$HOME)\/\.[^/]+$/.test(file)) {
    analysis.add(ask("it overwrites a credential or start-up file"))
  }
  analysis.effectful()
}
