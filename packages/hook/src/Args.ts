/**
 * The arguments of `ahp hook`, parsed without a command-line library (the hook runs on
 * every tool call and must start fast). Environment variables stand in for the flags a
 * host's settings make awkward to pass.
 *
 * @since 0.1.0
 */
import * as HostEvents from "@effect-ahp/hosts/HostEvents"

/**
 * `ahp hook claude-code|codex`: answer one hook call.
 *
 * @since 0.1.0
 * @category models
 */
export interface Run {
  readonly _tag: "Run"
  readonly host: HostEvents.HostName
  readonly registration: string | undefined
  /** The host's timeout for this hook, when the settings set one (seconds). */
  readonly timeoutSeconds: number | undefined
  /** Deny blocking events when the policy cannot be evaluated at all. */
  readonly failClosed: boolean
  readonly source: string | undefined
  readonly verbose: boolean
  /** Whether to forward to a running bridge. */
  readonly bridge: boolean
  /** The payload given as the last argument (Codex's legacy `notify` program), instead of stdin. */
  readonly payload: string | undefined
  /** The decision audit file (JSON Lines): the call is then settled here, never forwarded. */
  readonly audit: string | undefined
  /** Whether audit records carry the event. */
  readonly auditContent: boolean
}

/**
 * `ahp hook install|uninstall claude-code|codex`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Install {
  readonly _tag: "Install" | "Uninstall" | "Doctor"
  readonly host: HostEvents.HostName
  readonly scope: "project" | "user"
  /** The settings file to edit instead of the host's default for the scope. */
  readonly settings: string | undefined
  /** The command the hook entries run (default: this `ahp` with `hook <host>`). */
  readonly command: string | undefined
  readonly timeoutSeconds: number | undefined
  readonly registration: string | undefined
  readonly failClosed: boolean
  /**
   * The port of the `ahp bridge --http PORT` that Claude Code's `http` hook entries post
   * to (install only; SessionStart keeps a command hook).
   */
  readonly bridgeHttpPort: number | undefined
}

/**
 * The parsed arguments.
 *
 * @since 0.1.0
 * @category models
 */
export type Args = Run | Install | { readonly _tag: "Help" } | { readonly _tag: "Invalid"; readonly message: string }

/**
 * The synopsis: the forms of `ahp hook` and what it does (the command line's help of
 * `hook` lists the options and exit codes after it).
 *
 * @since 0.1.0
 * @category constants
 */
export const synopsis = `Usage:
  ahp hook claude-code|codex [--registration FILE] [--timeout SECONDS] [--fail-closed]
                             [--source URI] [--verbose] [--no-bridge]
                             [--audit FILE [--audit-content]] [NOTIFY-JSON]
  ahp hook install claude-code|codex [--project|--user] [--settings FILE] [--command CMD]
                             [--timeout SECONDS] [--registration FILE] [--fail-closed]
                             [--bridge-http PORT]
  ahp hook uninstall claude-code|codex [--project|--user] [--settings FILE]
  ahp hook doctor claude-code|codex [--project|--user] [--settings FILE] [--registration FILE]

Runs as a Claude Code or Codex command hook: reads the hook payload on stdin, dispatches
the AHP event to the registered backends, prints the host's answer (exit code 0). As Codex's
legacy notify program, the payload is the last argument (NOTIFY-JSON) and stdin is not read.
\`doctor\` exits 1, saying why, unless the hook entries are installed in the settings and the
registration the hook would use in this folder is found and used (a project one trusted).
`

/**
 * The usage text shown with a usage error: the synopsis and the options.
 *
 * @since 0.1.0
 * @category constants
 */
export const usage = `${synopsis}
  --registration FILE  the registration (else $AHP_REGISTRATION_FILE, else .ahp/registration.json
                       in the project or a parent folder, else ~/.ahp/registration.json)
  --timeout SECONDS    the timeout the host's settings give this hook; the hook answers before it
  --fail-closed        deny blocking events when the registration is missing or unusable
                       (also $AHP_HOOK_FAIL_CLOSED=1)
  --source URI         the source of the events (default urn:effect-ahp:<host>)
  --verbose            a one-line trace per backend and the decision on stderr (also $AHP_HOOK_VERBOSE=1)
  --no-bridge          never forward to a running \`ahp bridge\` (also $AHP_BRIDGE=0)
  --audit FILE         append the call's decision audit record to FILE (JSON Lines); the call is
                       then settled by this hook, not forwarded to a bridge
  --audit-content      include the event in the audit record (to replay the call)
  --project, --user    install into the project's settings (default) or the user's
  --settings FILE      the settings file to edit instead
  --command CMD        the command the installed entries run (default: this ahp)
  --bridge-http PORT   install Claude Code's http hook entries posting to \`ahp bridge --http PORT\`
                       (with the header X-AHP-Bridge-Secret: $AHP_BRIDGE_SECRET); SessionStart,
                       where Claude Code skips http hooks, keeps the command hook
`

const truthy = (value: string | undefined) => value !== undefined && value !== "" && value !== "0" && value !== "false"

/**
 * Parses the arguments after `hook`.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (argv: ReadonlyArray<string>, env: Readonly<Record<string, string | undefined>>): Args => {
  const words = [...argv]
  if (words.includes("--help") || words.includes("-h")) return { _tag: "Help" }
  const first = words.shift()
  if (first === undefined) return { _tag: "Invalid", message: "missing the host: claude-code or codex" }
  const action = first === "install" || first === "uninstall" || first === "doctor" ? first : undefined
  const hostName = action === undefined ? first : words.shift()
  if (hostName === undefined || !HostEvents.isHostName(hostName)) {
    return { _tag: "Invalid", message: `expected claude-code or codex, got ${JSON.stringify(hostName ?? "")}` }
  }
  const values: Record<string, string> = {}
  const flags = new Set<string>()
  let payload: string | undefined
  const takesValue = new Set([
    "--registration",
    "--timeout",
    "--source",
    "--settings",
    "--command",
    "--audit",
    "--bridge-http"
  ])
  const switches = new Set(["--fail-closed", "--verbose", "--no-bridge", "--project", "--user", "--audit-content"])
  while (words.length > 0) {
    const word = words.shift()!
    const [name, inline] = word.includes("=")
      ? [word.slice(0, word.indexOf("=")), word.slice(word.indexOf("=") + 1)]
      : [word, undefined]
    if (takesValue.has(name)) {
      const value = inline ?? words.shift()
      if (value === undefined) return { _tag: "Invalid", message: `${name} needs a value` }
      values[name] = value
    } else if (switches.has(name) && inline === undefined) flags.add(name)
    else if (action === undefined && hostName === "codex" && word.startsWith("{") && words.length === 0) payload = word
    else return { _tag: "Invalid", message: `unknown argument ${word}` }
  }
  const timeout = values["--timeout"]
  const timeoutSeconds = timeout === undefined ? undefined : Number(timeout)
  if (timeoutSeconds !== undefined && !(Number.isFinite(timeoutSeconds) && timeoutSeconds > 0)) {
    return { _tag: "Invalid", message: "--timeout takes a positive number of seconds" }
  }
  const failClosed = flags.has("--fail-closed") || truthy(env.AHP_HOOK_FAIL_CLOSED)
  const bridgeHttp = values["--bridge-http"]
  const bridgeHttpPort = bridgeHttp === undefined ? undefined : Number(bridgeHttp)
  if (bridgeHttpPort !== undefined) {
    if (action !== "install") return { _tag: "Invalid", message: "--bridge-http is an install option" }
    if (hostName !== "claude-code") return { _tag: "Invalid", message: "--bridge-http: Codex has no http hook type" }
    if (!/^\d+$/.test(bridgeHttp!) || bridgeHttpPort < 1 || bridgeHttpPort > 65535) {
      return { _tag: "Invalid", message: "--bridge-http takes the bridge's port (1-65535)" }
    }
  }
  if (action !== undefined) {
    if (flags.has("--project") && flags.has("--user")) {
      return { _tag: "Invalid", message: "--project or --user, not both" }
    }
    return {
      _tag: action === "install" ? "Install" : action === "doctor" ? "Doctor" : "Uninstall",
      host: hostName,
      scope: flags.has("--user") ? "user" : "project",
      settings: values["--settings"],
      command: values["--command"],
      timeoutSeconds,
      registration: values["--registration"],
      failClosed: flags.has("--fail-closed"),
      bridgeHttpPort
    }
  }
  return {
    _tag: "Run",
    host: hostName,
    registration: values["--registration"],
    timeoutSeconds,
    failClosed,
    source: values["--source"],
    verbose: flags.has("--verbose") || truthy(env.AHP_HOOK_VERBOSE),
    bridge: !flags.has("--no-bridge") && (env.AHP_BRIDGE === undefined || truthy(env.AHP_BRIDGE)),
    payload,
    audit: values["--audit"],
    auditContent: flags.has("--audit-content")
  }
}
