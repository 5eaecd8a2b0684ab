/**
 * `ahp hook install|uninstall claude-code|codex [--project|--user]`: writes (or removes) the
 * hook entries in the host's settings file, one command hook per AHP-mapped host event —
 * one entry per event, so the host never runs several AHP hooks of one event in parallel.
 *
 * - Claude Code: `.claude/settings.json` in the working directory (`--project`, the
 *   default) or `~/.claude/settings.json` (`--user`); the `hooks` object.
 * - Codex: `.codex/hooks.json` (`--project`) or `$CODEX_HOME/hooks.json` (`--user`,
 *   `~/.codex` by default). Codex runs a new or changed hook only once trusted in `/hooks`.
 *
 * The file is merged, never rewritten from scratch: every other key, event and handler is
 * kept in its order; an entry of ours (a command running `ahp … hook <host>` or the hook
 * bundle with `<host>`) is updated in place, and a second one for the same event removed.
 * With `--registration`, only the events the registration selects get an entry (an event
 * no subscription selects would cost a hook process per call for nothing), and an entry of
 * ours for any other event is removed; without it, every mapped event gets one (the hook
 * finds its registration when it runs). Running it twice changes nothing the second time.
 * With `--bridge-http PORT` (Claude Code only), every event but SessionStart gets an `http`
 * entry posting to `http://127.0.0.1:PORT/hooks/claude-code` with the header
 * `X-AHP-Bridge-Secret: $AHP_BRIDGE_SECRET` (Claude Code fills it in from the environment
 * variable `allowedEnvVars` names); SessionStart, where Claude Code skips `http` hooks,
 * keeps the command hook. An `http` hook that cannot reach the bridge is a non-blocking
 * error for Claude Code: the action goes ahead. Before a change the file is copied to
 * `<file>.ahp-backup-<time>`; a file that is not a JSON object is left alone (exit 1).
 * What it did is printed on stdout.
 *
 * @since 0.1.0
 */
import * as HostEvents from "@effect-ahp/hosts/HostEvents"
import { Json, Registration } from "@effect-ahp/protocol"
import * as fs from "node:fs"
import * as path from "node:path"
import type { Writable } from "node:stream"
import type * as Args from "./Args.js"
import { projectTrust } from "./internal/codexTrust.js"
import { errorCode } from "./internal/errno.js"
import * as Locate from "./Locate.js"
import * as Terminal from "./Terminal.js"

/**
 * The hook timeout written for each event when none is given (seconds); the hook answers
 * before it. Events whose host budget is special (SessionEnd, Interrupt) keep the host's.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaultTimeoutSeconds = 30

const ownBudget = new Set(["SessionEnd", "Interrupt"])

const quote = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, "'\\''")}'`)

/**
 * Whether a handler is one of ours for a host.
 *
 * @since 0.1.0
 * @category predicates
 */
export const isOurs = (handler: Json.JsonValue, host: HostEvents.HostName): boolean => {
  if (Json.isObject(handler) && handler.type === "http" && typeof handler.url === "string") {
    return host === "claude-code" && /^http:\/\/127\.0\.0\.1:\d+\/hooks\/claude-code(?:\?|$)/.test(handler.url)
  }
  if (!Json.isObject(handler) || handler.type !== "command" || typeof handler.command !== "string") return false
  const match = /(?:^|[\s"'/\\])ahp(?:-hook\.mjs|\.mjs|\.cmd|\.js)?["']?(?:\s+hook)?\s+(claude-code|codex)(?:\s|$)/
    .exec(
      handler.command
    )
  return match !== null && match[1] === host
}

/**
 * The handler of one event.
 *
 * @since 0.1.0
 * @category models
 */
export interface Entry {
  readonly event: string
  readonly handler: Json.JsonObject
}

/**
 * The entries to install for a host: the command (`prefix`, the host, the options) per
 * mapped event.
 *
 * @since 0.1.0
 * @category constructors
 */
export const entries = (
  host: HostEvents.HostName,
  prefix: string,
  options: {
    readonly timeoutSeconds?: number | undefined
    readonly registration?: string | undefined
    readonly failClosed: boolean
    readonly bridgeHttpPort?: number | undefined
  }
): ReadonlyArray<Entry> =>
  HostEvents.installed(host).map((event) => {
    const timeout = ownBudget.has(event.name) ? undefined : options.timeoutSeconds ?? defaultTimeoutSeconds
    if (options.bridgeHttpPort !== undefined && host === "claude-code" && event.name !== "SessionStart") {
      return { event: event.name, handler: httpHandler(options.bridgeHttpPort, timeout) }
    }
    const command = [
      prefix,
      host,
      ...(timeout !== undefined ? ["--timeout", String(timeout)] : []),
      ...(options.registration !== undefined ? ["--registration", quote(options.registration)] : []),
      ...(options.failClosed ? ["--fail-closed"] : [])
    ].join(" ")
    return { event: event.name, handler: { type: "command", command, ...(timeout !== undefined ? { timeout } : {}) } }
  })

/**
 * The bridge's secret header and the environment variable Claude Code fills it from.
 *
 * @since 0.1.0
 * @category constants
 */
export const bridgeSecretHeader = { name: "X-AHP-Bridge-Secret", variable: "AHP_BRIDGE_SECRET" } as const

/**
 * Claude Code's `http` hook entry posting to `ahp bridge --http PORT` (`timeout` in
 * seconds, also passed to the bridge so its answer is due before it; the host's own when
 * `undefined`).
 *
 * @since 0.1.0
 * @category constructors
 */
export const httpHandler = (port: number, timeout: number | undefined): Json.JsonObject => ({
  type: "http",
  url: `http://127.0.0.1:${port}/hooks/claude-code${timeout !== undefined ? `?timeout=${timeout}` : ""}`,
  ...(timeout !== undefined ? { timeout } : {}),
  headers: { [bridgeSecretHeader.name]: `$${bridgeSecretHeader.variable}` },
  allowedEnvVars: [bridgeSecretHeader.variable]
})

/**
 * The host events a registration document selects: those whose AHP event some
 * subscription's `events` select (observe subscriptions included); `undefined` when the
 * document shows no subscriptions at all (not a registration).
 *
 * @since 0.1.0
 * @category filtering
 */
export const selected = (
  document: Json.JsonValue,
  host: HostEvents.HostName
): ReadonlyArray<HostEvents.HostEvent> | undefined => {
  if (!Json.isObject(document) || !Array.isArray(document.hooks)) return undefined
  const selectors = document.hooks.flatMap((backend) =>
    Json.isObject(backend) && Array.isArray(backend.subscriptions)
      ? backend.subscriptions.flatMap((sub) =>
        Json.isObject(sub) && Array.isArray(sub.events)
          ? sub.events.filter((selector): selector is string => typeof selector === "string")
          : []
      )
      : []
  )
  return HostEvents.installed(host).filter((event) =>
    event.type !== undefined && selectors.some((selector) => Registration.selectorMatches(selector, event.type!))
  )
}

/**
 * A merge's result: the new settings and the events changed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Merged {
  readonly settings: Json.JsonObject
  readonly changed: ReadonlyArray<string>
}

const groupsOf = (hooks: Json.JsonObject, event: string): ReadonlyArray<Json.JsonValue> =>
  Array.isArray(hooks[event]) ? hooks[event] : []

const handlersOf = (group: Json.JsonValue): ReadonlyArray<Json.JsonValue> =>
  Json.isObject(group) && Array.isArray(group.hooks) ? group.hooks : []

/** Takes our handlers out of one event's groups, dropping the groups and the event left empty. */
const removeOurs = (hooks: Record<string, Json.JsonValue>, event: string, host: HostEvents.HostName): boolean => {
  const value = hooks[event]
  if (!Array.isArray(value) || !value.some((group) => handlersOf(group).some((h) => isOurs(h, host)))) return false
  const groups = value.flatMap((group): Array<Json.JsonValue> => {
    const handlers = handlersOf(group)
    if (!handlers.some((h) => isOurs(h, host))) return [group]
    const kept = handlers.filter((h) => !isOurs(h, host))
    return kept.length === 0 ? [] : [{ ...(group as Json.JsonObject), hooks: kept }]
  })
  if (groups.length === 0) delete hooks[event]
  else hooks[event] = groups
  return true
}

/**
 * Merges the entries into settings: each event ends with exactly one handler of ours, equal
 * to its entry (updated where one was, appended as its own group otherwise); every event in
 * `unwanted` is left with none of ours.
 *
 * @since 0.1.0
 * @category merging
 */
export const install = (
  settings: Json.JsonObject,
  host: HostEvents.HostName,
  wanted: ReadonlyArray<Entry>,
  unwanted: ReadonlyArray<string> = []
): Merged => {
  const hooks: Record<string, Json.JsonValue> = Json.isObject(settings.hooks) ? { ...settings.hooks } : {}
  const changed: Array<string> = []
  for (const event of unwanted) if (removeOurs(hooks, event, host)) changed.push(event)
  for (const { event, handler } of wanted) {
    const before = groupsOf(hooks, event)
    let placed = false
    const groups = before.flatMap((group): Array<Json.JsonValue> => {
      const handlers = handlersOf(group)
      if (!handlers.some((h) => isOurs(h, host))) return [group]
      const kept = handlers.flatMap((h) => {
        if (!isOurs(h, host)) return [h]
        if (placed) return []
        placed = true
        return [handler]
      })
      return kept.length === 0 ? [] : [{ ...(group as Json.JsonObject), hooks: kept }]
    })
    if (!placed) groups.push({ hooks: [handler] })
    if (!Json.equals(groups, before)) {
      hooks[event] = groups
      changed.push(event)
    }
  }
  return { settings: changed.length === 0 ? settings : { ...settings, hooks }, changed }
}

/**
 * Removes every handler of ours, and the groups and events it leaves empty.
 *
 * @since 0.1.0
 * @category merging
 */
export const uninstall = (settings: Json.JsonObject, host: HostEvents.HostName): Merged => {
  if (!Json.isObject(settings.hooks)) return { settings, changed: [] }
  const hooks: Record<string, Json.JsonValue> = { ...settings.hooks }
  const changed: Array<string> = []
  for (const event of Object.keys(settings.hooks)) if (removeOurs(hooks, event, host)) changed.push(event)
  return { settings: changed.length === 0 ? settings : { ...settings, hooks }, changed }
}

/**
 * The settings file of a host and scope.
 *
 * @since 0.1.0
 * @category paths
 */
export const settingsFile = (
  host: HostEvents.HostName,
  scope: "project" | "user",
  env: Readonly<Record<string, string | undefined>>,
  cwd: string,
  home: string
): string => {
  if (host === "claude-code") return path.join(scope === "user" ? home : cwd, ".claude", "settings.json")
  return scope === "user"
    ? path.join(env.CODEX_HOME || path.join(home, ".codex"), "hooks.json")
    : path.join(cwd, ".codex", "hooks.json")
}

/**
 * Why settings cannot be merged without losing a value (a `hooks` that is not an object, an
 * event of the host that is not a list), if they cannot.
 *
 * @since 0.1.0
 * @category merging
 */
export const shapeProblem = (settings: Json.JsonObject, host: HostEvents.HostName): string | undefined => {
  if (settings.hooks === undefined) return undefined
  if (!Json.isObject(settings.hooks)) return "\"hooks\" is not an object"
  const event = HostEvents.installed(host).find((e) =>
    settings.hooks !== undefined && Json.isObject(settings.hooks) &&
    settings.hooks[e.name] !== undefined && !Array.isArray(settings.hooks[e.name])
  )
  return event === undefined ? undefined : `"hooks.${event.name}" is not a list`
}

const stamp = (date: Date) => date.toISOString().replace(/[-:]/g, "").replace(/\.\d+Z$/, "Z")

/**
 * Copies `file` beside itself as `FILE.ahp-backup-STAMP`, or `…-STAMP-2`, `-3`… when a
 * backup of that second exists (two changes within one second); returns the copy's path.
 */
const backUp = (file: string, when: Date): string => {
  const base = `${file}.ahp-backup-${stamp(when)}`
  for (let n = 1;; n++) {
    const backup = n === 1 ? base : `${base}-${n}`
    try {
      fs.copyFileSync(file, backup, fs.constants.COPYFILE_EXCL)
      return backup
    } catch (error) {
      if (errorCode(error) !== "EEXIST" || n >= 1000) throw error
    }
  }
}

/**
 * What install and uninstall take from their process (a part of the hook's `Process`): the
 * directory, home and environment that locate the settings, when the run started (the
 * backup's name), and the streams they report on.
 *
 * @since 0.1.0
 * @category models
 */
export interface InstallProcess {
  readonly stdout: Writable
  readonly stderr: Writable
  readonly env: Readonly<Record<string, string | undefined>>
  readonly cwd: string
  readonly home: string
  readonly startedAt: number
}

/**
 * Runs install or uninstall; `command` holds the words that run `ahp hook` (for the default
 * command of the entries); `io` gives the directory, home and environment that locate the
 * settings, and the streams it reports on. Resolves with the exit code: 0, or 2 when the
 * settings file cannot be read as a JSON object or written (the command line's "could not
 * do it").
 *
 * @since 0.1.0
 * @category running
 */
export const main = async (args: Args.Install, command: ReadonlyArray<string>, io: InstallProcess): Promise<number> => {
  const cwd = io.cwd
  const file = path.resolve(cwd, args.settings ?? settingsFile(args.host, args.scope, io.env, cwd, io.home))
  const say = (text: string) => io.stdout.write(`${Terminal.line(text)}\n`)
  const fail = (message: string) => {
    io.stderr.write(`ahp hook ${args._tag.toLowerCase()}: ${Terminal.line(message)}\n`)
    return 2
  }
  let text: string | undefined
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (error) {
    if (errorCode(error) !== "ENOENT") return fail(`cannot read ${file}`)
  }
  const parsed = text === undefined || text.trim() === "" ? Json.parse("{}") : Json.parse(text)
  if (parsed._tag === "Left" || !Json.isObject(parsed.right)) {
    return fail(`${file} is not a JSON object; nothing was changed`)
  }
  const shape = shapeProblem(parsed.right, args.host)
  if (shape !== undefined) return fail(`${file}: ${shape}; nothing was changed`)
  const prefix = args.command ?? command.map(quote).join(" ")
  const registration = args.registration === undefined ? undefined : path.resolve(cwd, args.registration)
  let events: ReadonlyArray<HostEvents.HostEvent> | undefined
  if (args._tag === "Install" && registration !== undefined) {
    let document: Json.JsonValue | undefined
    try {
      const read = Json.parse(fs.readFileSync(registration, "utf8"))
      if (read._tag === "Right") document = read.right
    } catch {
      return fail(`cannot read the registration ${registration}; nothing was changed`)
    }
    events = document === undefined ? undefined : selected(document, args.host)
    if (events === undefined) return fail(`${registration} is not a registration; nothing was changed`)
    if (events.length === 0) {
      return fail(`${registration} selects none of the events ${args.host} offers; nothing was changed`)
    }
  }
  const all = entries(args.host, prefix, { ...args, registration })
  const wanted = events === undefined ? all : all.filter((e) => events.some((event) => event.name === e.event))
  const unwanted = all.filter((e) => !wanted.includes(e)).map((e) => e.event)
  const merged = args._tag === "Install"
    ? install(parsed.right, args.host, wanted, unwanted)
    : uninstall(parsed.right, args.host)
  const verb = args._tag === "Install" ? "installed" : "removed"
  if (merged.changed.length === 0) {
    say(
      `${args.host}: ${file}: ${args._tag === "Install" ? "already installed" : "nothing to remove"}; nothing changed`
    )
    return 0
  }
  let backup: string | undefined
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true })
    if (text !== undefined) backup = backUp(file, new Date(io.startedAt))
    const temporary = `${file}.${process.pid}.tmp`
    fs.writeFileSync(temporary, `${Json.stringify(merged.settings, 2)}\n`)
    fs.renameSync(temporary, file)
  } catch {
    return fail(`cannot write ${file}${backup !== undefined ? ` (a backup was made: ${backup})` : ""}`)
  }
  if (args._tag === "Install") {
    const removed = merged.changed.filter((event) => unwanted.includes(event))
    const placed = merged.changed.filter((event) => !unwanted.includes(event))
    if (placed.length > 0) say(`${args.host}: ${file}: ${verb} the hook for ${placed.join(", ")}`)
    if (removed.length > 0) {
      say(`${args.host}: ${file}: removed the hook for ${removed.join(", ")} (the registration selects none of them)`)
    }
    const command = all.find((e) => e.handler.type === "command")
    if (command !== undefined) say(`  command: ${command.handler.command}`)
    const http = all.find((e) => e.handler.type === "http")
    if (http !== undefined) {
      say(
        `  http: ${http.handler.url} (Claude Code passes $${bridgeSecretHeader.variable} as ${bridgeSecretHeader.name})`
      )
    }
  } else say(`${args.host}: ${file}: ${verb} the hook for ${merged.changed.join(", ")}`)
  say(backup === undefined ? "  (a new file)" : `  backup: ${backup}`)
  if (args.host === "codex" && args._tag === "Install") {
    say("  Codex runs a new or changed hook only once you trust it: review it in Codex's /hooks")
  }
  return 0
}

/**
 * `ahp hook doctor <host>`: whether the policy is on for the working directory, for
 * automation that must not run without it (`codex exec` skips hooks it does not trust
 * without a sign, and shows no hook's message). Checks that the settings hold an entry of
 * ours for every event the registration selects (every mapped event without one), and
 * that the registration the hook would use here is found and used: a project registration
 * trusted with `ahp trust`, owned by the user alone; for Codex's project hooks, that Codex
 * trusts the project (`$CODEX_HOME/config.toml`). Resolves with 0 when all hold, else
 * 1 with every problem on stderr (2 for settings that cannot be read as a JSON object).
 *
 * @since 0.1.0
 * @category running
 */
export const doctor = (args: Args.Install, io: InstallProcess): number => {
  const cwd = io.cwd
  const file = path.resolve(cwd, args.settings ?? settingsFile(args.host, args.scope, io.env, cwd, io.home))
  const problems: Array<string> = []
  let settings: Json.JsonObject | undefined
  try {
    const parsed = Json.parse(fs.readFileSync(file, "utf8"))
    if (parsed._tag === "Left" || !Json.isObject(parsed.right)) {
      io.stderr.write(`ahp hook doctor: ${Terminal.line(file)} is not a JSON object\n`)
      return 2
    }
    settings = parsed.right
  } catch {
    problems.push(`no hooks are installed: ${file} cannot be read; run: ahp hook install ${args.host} --${args.scope}`)
  }
  const located = Locate.registration({
    flag: args.registration,
    env: io.env,
    cwd,
    payloadCwd: undefined,
    home: io.home
  })
  let events: ReadonlyArray<HostEvents.HostEvent> = HostEvents.installed(args.host)
  if (located._tag === "Found") {
    if (located.notice !== undefined) problems.push(located.notice)
    const read = Json.parse(located.text)
    const chosen = read._tag === "Right" ? selected(read.right, args.host) : undefined
    if (chosen === undefined) problems.push(`${located.file} is not a registration`)
    else events = chosen
  } else if (located._tag === "Unreadable") {
    problems.push(`the registration ${located.file} cannot be used: ${located.reason}`)
  } else {
    problems.push(located.notice ?? `no registration found (looked for ${located.searched.join(", ")})`)
  }
  if (settings !== undefined) {
    const hooks = Json.isObject(settings.hooks) ? settings.hooks : {}
    const missing = events.filter((event) =>
      !groupsOf(hooks, event.name).some((group) => handlersOf(group).some((h) => isOurs(h, args.host)))
    )
    if (missing.length > 0) {
      problems.push(
        `${file} has no ahp hook for ${
          missing.map((e) => e.name).join(", ")
        }; run: ahp hook install ${args.host} --${args.scope}`
      )
    }
  }
  if (args.host === "codex" && args.scope === "project") {
    const trust = projectTrust(io.env.CODEX_HOME || path.join(io.home, ".codex"), cwd)
    if (trust._tag === "NotRecorded") {
      problems.push(
        `Codex does not trust this project, so it runs none of its hooks: ${trust.file} has no` +
          ` [projects.${JSON.stringify(trust.folders[0])}] trust_level = "trusted"; run codex exec --trust here once`
      )
    } else if (trust.level !== "trusted") {
      problems.push(
        `Codex does not trust this project, so it runs none of its hooks: [projects.${
          JSON.stringify(trust.folder)
        }] has trust_level = ${JSON.stringify(trust.level)}; change it to "trusted"`
      )
    }
  }
  if (problems.length > 0) {
    io.stderr.write(problems.map((problem) => `ahp hook doctor: ${Terminal.line(problem)}\n`).join(""))
    return 1
  }
  io.stdout.write(
    `${args.host}: the policy is on here: ${Terminal.line(file)} runs the hook, which uses ${
      Terminal.line(located._tag === "Found" ? located.file : "no registration")
    }\n`
  )
  if (args.host === "codex") {
    io.stdout.write("  Codex runs a new or changed hook only once you trusted it in /hooks\n")
  }
  return 0
}
