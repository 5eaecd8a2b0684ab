/**
 * The shell-command guard, an example policy backend. At `tool.before` it reads the
 * command of a shell-like tool call (`tool.input.command`, a string or an argument list),
 * parses it with a real shell parser and judges every command in it, looking through
 * `sh -c`, `eval`, `env`, `sudo`, `xargs`, `nohup`, `timeout`, paths to binaries, quoting,
 * escapes, command substitutions and scripts piped into a shell:
 *
 * - `deny` for destructive commands: a recursive forced delete of `/`, `~`, `.`, `*` or a
 *   system folder, `find / -delete`, `mkfs`, `dd` onto a device, a write to a raw disk or
 *   a system file, a fork bomb, a recursive `chmod` / `chown` of `/`, `shutdown`;
 * - `ask` (with a `message` saying why) for risky ones: other recursive deletes, `find …
 *   -delete`, force pushes (`--force`, `+ref`), `git reset --hard`, `git clean -f`, `sudo`,
 *   piping a download into a shell, killing processes, dropping database objects, reads of
 *   secret files (`.env`, `~/.ssh`, cloud credentials, keys), and whatever cannot be parsed
 *   or is too large or nested to check — or `deny` when the request does not grant `ask`;
 * - `allow` only when every command is on a closed list of read-only commands with safe
 *   flags, with no expansion, assignment, heredoc or redirect that writes;
 * - nothing (no effect) otherwise: the host's own permission flow decides.
 *
 * It never sends an effect the request does not grant.
 *
 * @since 0.1.0
 */
import { Backend } from "@effect-ahp/backend"
import { Capabilities, type HookEffect, type Json } from "@effect-ahp/protocol"
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

/**
 * Classifies one shell command. The shell parser is loaded on the first call, so a process
 * that never guards a command never loads it.
 *
 * @since 0.1.0
 * @category policy
 */
export const classify = (command: string): Effect.Effect<Verdict> =>
  Effect.map(Effect.promise(() => import("../internal/shellSyntax.js")), (syntax) => syntax.classify(command))

/**
 * The command of a tool call's input: `command` (or `cmd`) as a string or an argument list.
 *
 * @since 0.1.0
 * @category policy
 */
export const commandOf = (input: Json.JsonObject): string | undefined => {
  const command = input.command ?? input.cmd
  if (typeof command === "string") return command
  if (Array.isArray(command) && command.every((part) => typeof part === "string")) return command.map(quote).join(" ")
  return undefined
}

const quote = (part: string) => /^[\w@%+=:,./-]+$/.test(part) ? part : `'${part.replaceAll("'", "'\\''")}'`

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
): ReadonlyArray<Backend.EffectAt<"tool.before">> => {
  const granted = (effect: Backend.EffectAt<"tool.before">) => Capabilities.isGranted(capabilities, effect)
  switch (verdict.kind) {
    case "deny": {
      const deny: HookEffect.Deny = { type: "deny", reason: verdict.reason, code: destructiveCode }
      return granted(deny) ? [deny] : []
    }
    case "ask": {
      const message: HookEffect.Message = { type: "message", text: `Approval needed: ${verdict.reason}.` }
      if (granted({ type: "ask" })) return granted(message) ? [{ type: "ask" }, message] : [{ type: "ask" }]
      const deny: HookEffect.Deny = { type: "deny", reason: `${verdict.reason} (approval is not available here)` }
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
  Effect.suspend(() => {
    const command = commandOf(request.event.tool.input)
    return command === undefined
      ? Effect.succeed([])
      : Effect.map(classify(command), (verdict) => effectsFor(verdict, request.capabilities))
  }))
