/**
 * The shell-command guard, an example policy backend. At `tool.before` it reads the
 * command of a shell-like tool call (`tool.input.command`, a string or an argument list)
 * and answers:
 *
 * - `deny` for destructive commands: a recursive forced delete of `/`, `~`, `.` or `*`,
 *   `mkfs`, `dd` onto a device, a write to a raw disk, a fork bomb, a recursive `chmod` /
 *   `chown` of `/`, `shutdown` / `reboot`;
 * - `ask` (with a `message` saying why) for risky ones: other recursive deletes, force
 *   pushes, `git reset --hard`, `git clean -f`, `sudo`, piping a download into a shell,
 *   recursive permission changes, killing processes, dropping database objects — or `deny`
 *   when the request does not grant `ask`;
 * - `allow` when every part of the command (split on `;`, `&&`, `||`, `|`) is a well-known
 *   read-only command (`ls`, `cat`, `git status`, …);
 * - nothing (no effect) otherwise: the host's own permission flow decides.
 *
 * It never sends an effect the request does not grant.
 *
 * @since 0.1.0
 */
import { Backend, Grant } from "@effect-ahp/backend"
import type { Capabilities, HookEffect, Json } from "@effect-ahp/protocol"
import { Effect } from "effect"

/**
 * The guard's verdict on one command.
 *
 * @since 0.1.0
 * @category models
 */
export interface Verdict {
  readonly kind: "deny" | "ask" | "allow" | "none"
  /** Why, for a person (empty for `none`). */
  readonly reason: string
}

interface Rule {
  readonly pattern: RegExp
  readonly reason: string
}

const letters = "[a-zA-Z]*"

// `rm` with both the recursive and the force flag: -rf, -fr, -Rf, -r -f, --recursive --force…
const recursiveForce = `rm\\s+(?:${
  [
    `-${letters}(?:[rR]${letters}f|f${letters}[rR])${letters}`,
    `-${letters}[rR]${letters}\\s+-${letters}f${letters}`,
    `-${letters}f${letters}\\s+-${letters}[rR]${letters}`,
    "--recursive\\s+--force",
    "--force\\s+--recursive"
  ].join("|")
})`

const destructive: ReadonlyArray<Rule> = [
  {
    pattern: new RegExp(`(?:^|\\s)${recursiveForce}\\s+(?:--\\s+)?(?:/|/\\*|~/?|\\$HOME/?|\\.{1,2}/?|\\*)(?:\\s|$)`),
    reason: "a recursive forced delete of /, ~, . or * destroys data that cannot be recovered"
  },
  { pattern: /(?:^|\s)mkfs(?:\.\w+)?\s/, reason: "mkfs formats a file system" },
  { pattern: /(?:^|\s)dd\s.*\bof=\/dev\//, reason: "dd onto a device overwrites a disk" },
  { pattern: />\s*\/dev\/(?:sd|hd|nvme|vd|disk)\w*/, reason: "writing to a raw disk device destroys it" },
  { pattern: /:\(\)\s*\{\s*:\s*\|\s*:\s*&\s*\}\s*;\s*:/, reason: "a fork bomb exhausts the machine" },
  {
    pattern: /(?:^|\s)(?:chmod|chown)\s+(?:-\w*R\w*\s+)\S+\s+\/(?:\s|$)/,
    reason: "recursively changing / breaks the system"
  },
  {
    pattern: /(?:^|\s)(?:shutdown|reboot|halt|poweroff)(?:\s|$)/,
    reason: "stopping the machine is not an agent's call"
  }
]

const risky: ReadonlyArray<Rule> = [
  { pattern: /(?:^|\s)rm\s+(?:-\w*[rR]\w*|--recursive)/, reason: "a recursive delete removes whole directories" },
  {
    pattern: /(?:^|\s)git\s+push\s+(?:.*\s)?(?:--force(?:-with-lease)?|-f)(?:\s|=|$)/,
    reason: "a force push rewrites shared history"
  },
  { pattern: /(?:^|\s)git\s+reset\s+(?:.*\s)?--hard(?:\s|$)/, reason: "git reset --hard discards uncommitted work" },
  { pattern: /(?:^|\s)git\s+clean\s+(?:.*\s)?-\w*f/, reason: "git clean -f deletes untracked files" },
  { pattern: /(?:^|\s)sudo\s/, reason: "sudo runs the command with full privileges" },
  {
    pattern: /(?:curl|wget)\s[^|]*\|\s*(?:sudo\s+)?(?:ba|z|da)?sh(?:\s|$)/,
    reason: "piping a download into a shell runs unreviewed code"
  },
  { pattern: /(?:^|\s)(?:chmod|chown)\s+-\w*R/, reason: "a recursive permission change affects every file below" },
  { pattern: /(?:^|\s)(?:kill\s+-9|pkill|killall)(?:\s|$)/, reason: "killing processes may lose work" },
  { pattern: /\bdrop\s+(?:table|database|schema)\b/i, reason: "dropping database objects loses data" }
]

const readOnly = new Set([
  "ls",
  "pwd",
  "cat",
  "head",
  "tail",
  "less",
  "wc",
  "echo",
  "grep",
  "rg",
  "which",
  "date",
  "whoami",
  "uname",
  "stat",
  "file",
  "du",
  "df",
  "tree",
  "sort",
  "uniq",
  "diff"
])

const readOnlyGit = new Set(["status", "log", "diff", "show", "branch", "remote", "rev-parse", "blame"])

const isReadOnly = (segment: string): boolean => {
  const words = segment.trim().split(/\s+/)
  const [first = "", second = ""] = words
  if (/[<>]/.test(segment)) return false
  if (first === "git") return readOnlyGit.has(second)
  if (first === "find") return !/\s-(?:delete|exec|execdir|ok)\b/.test(segment)
  return readOnly.has(first)
}

/**
 * Classifies one shell command.
 *
 * @since 0.1.0
 * @category policy
 */
export const classify = (command: string): Verdict => {
  const hit = (rules: ReadonlyArray<Rule>) => rules.find((rule) => rule.pattern.test(command))
  const deny = hit(destructive)
  if (deny !== undefined) return { kind: "deny", reason: deny.reason }
  const ask = hit(risky)
  if (ask !== undefined) return { kind: "ask", reason: ask.reason }
  const segments = command.split(/;|&&|\|\||\|/).filter((s) => s.trim() !== "")
  return segments.length > 0 && segments.every(isReadOnly)
    ? { kind: "allow", reason: "read-only command" }
    : { kind: "none", reason: "" }
}

/**
 * The command of a tool call's input: `command` (or `cmd`) as a string or an argument list.
 *
 * @since 0.1.0
 * @category policy
 */
export const commandOf = (input: Json.JsonObject): string | undefined => {
  const command = input.command ?? input.cmd
  if (typeof command === "string") return command
  if (Array.isArray(command) && command.every((part) => typeof part === "string")) return command.join(" ")
  return undefined
}

/**
 * The deny code of destructive commands.
 *
 * @since 0.1.0
 * @category constants
 */
export const destructiveCode = "com.example.shell-guard.destructive"

/**
 * The effects answering a verdict, within what the request grants.
 *
 * @since 0.1.0
 * @category policy
 */
export const effectsFor = (
  verdict: Verdict,
  capabilities: Capabilities.Capabilities
): ReadonlyArray<HookEffect.HookEffect> => {
  const granted = (effect: HookEffect.HookEffect) => Grant.isGranted(capabilities, effect)
  switch (verdict.kind) {
    case "deny": {
      const deny: HookEffect.HookEffect = { type: "deny", reason: verdict.reason, code: destructiveCode }
      return granted(deny) ? [deny] : []
    }
    case "ask": {
      const message: HookEffect.HookEffect = { type: "message", text: `Approval needed: ${verdict.reason}.` }
      if (granted({ type: "ask" })) return granted(message) ? [{ type: "ask" }, message] : [{ type: "ask" }]
      const deny: HookEffect.HookEffect = { type: "deny", reason: `${verdict.reason} (approval is not available here)` }
      return granted(deny) ? [deny] : []
    }
    case "allow":
      return granted({ type: "allow" }) ? [{ type: "allow" }] : []
    case "none":
      return []
  }
}

/**
 * The guard as a backend layer (one `tool.before` intercept handler).
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = Backend.intercept("tool.before", (request) =>
  Effect.sync(() => {
    const command = commandOf(request.event.tool.input)
    return command === undefined ? [] : effectsFor(classify(command), request.capabilities)
  }))
