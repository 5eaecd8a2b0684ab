/**
 * The `ahp` command line: every command's options, arguments, help text and exit codes.
 * A command's implementation module is imported only when that command runs, so
 * `ahp validate` loads neither the harness nor the transports, and `ahp serve` not the
 * harness.
 *
 * @since 0.1.0
 */
import { Wire } from "@effect-ahp/protocol"
import type { FileSystem, Path } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import packageJson from "../package.json" with { type: "json" }
import * as CommandLine from "./CommandLine.js"
import * as Args from "./hook/Args.js"
import * as Io from "./Io.js"

/**
 * What a parsed command line runs: sets the exit code, never fails.
 *
 * @since 0.1.0
 * @category models
 */
export type Run = Effect.Effect<void, never, Io.ExitCode | FileSystem.FileSystem | Path.Path>

/**
 * The example backends `ahp serve` knows.
 *
 * @since 0.1.0
 * @category models
 */
export const exampleNames = ["shell-guard", "secret-redactor", "prompt-annotator", "audit", "slow"] as const

/**
 * An example backend's name.
 *
 * @since 0.1.0
 * @category models
 */
export type ExampleName = typeof exampleNames[number]

const load = <M>(module: () => Promise<M>, run: (module: M) => Run): Run => Effect.flatMap(Effect.promise(module), run)

const interrupted = [130, "interrupted (Ctrl-C or SIGTERM)"] as const

const unusable = "a usage error, or an input that cannot be read (missing, not a regular file, over 16 MiB, not UTF-8)"

const validate = CommandLine.make({
  name: "validate",
  summary: "Validate AHP registrations and wire messages (.json, .jsonl)",
  details: [
    "Every problem is reported with its JSON Pointer; a .json file holds one document, a .jsonl file",
    "one message per line. The kind of each document is inferred unless --kind names it."
  ],
  exitCodes: [[0, "every file is valid"], [1, "a file is invalid"], [2, unusable], interrupted],
  options: {
    kind: CommandLine.optionalChoice("kind", "KIND", Wire.kinds, "validate every file as this kind"),
    json: CommandLine.flag("json", "print one JSON object with every verdict")
  },
  args: CommandLine.atLeastOne("FILE", "the documents to validate"),
  run: ({ json, kind }, files): Run => load(() => import("./Validate.js"), (m) => m.run({ files, json, kind }))
})

/** The decision audit's options, shared by the commands that settle calls. */
const auditOptions = {
  audit: CommandLine.optionalText(
    "audit",
    "FILE",
    "append one decision audit record per settled call to FILE (JSON Lines; see the README)"
  ),
  auditContent: CommandLine.flag("audit-content", "include each event in its audit record (to replay the calls)")
}

const dispatch = CommandLine.make({
  name: "dispatch",
  summary: "Run one boundary call through the real harness and transports; print the result as JSON",
  details: [
    "Starts the registered backends, sends them the event, settles the decision, delivers the",
    "observations, stops every process it started, and prints one JSON object on stdout (logs go to",
    "stderr). id, time and source are filled in when the event has none."
  ],
  exitCodes: [
    [0, "the call completed, whatever the decision (a deny included)"],
    [2, `an invalid registration, event, grant or state (the JSON on stdout says which); ${unusable}`],
    [130, "interrupted: the result is printed with \"interrupted\": true after every backend is stopped"]
  ],
  options: {
    registration: CommandLine.text("registration", "FILE", "the registration document (JSON)"),
    event: CommandLine.text("event", "FILE", "the boundary input: {\"type\": …, …the event's fields} (JSON)"),
    capabilities: CommandLine.optionalText(
      "capabilities",
      "FILE",
      "the host's grant: a capability manifest, or a map from event type to capabilities",
      "default: everything each boundary permits"
    ),
    state: CommandLine.optionalText("state", "FILE", "the pending state before the first interceptor (JSON)"),
    elicitationSchema: CommandLine.optionalText(
      "elicitation-schema",
      "FILE",
      "the form schema an edit of an elicitation answer must satisfy (JSON)"
    ),
    source: CommandLine.optionalText(
      "source",
      "URI",
      "the harness URI for an event without source",
      "default: urn:effect-ahp:harness"
    ),
    observationTimeoutMs: CommandLine.integer(
      "observation-timeout",
      "MS",
      "the bound of each observation delivery, in milliseconds",
      { min: 1, default: 5000 }
    ),
    noWaitObservers: CommandLine.flag(
      "no-wait-observers",
      "print the result once the decision is settled (observations still complete before exit)"
    ),
    ...auditOptions,
    pretty: CommandLine.flag("pretty", "indent the JSON output")
  },
  run: (options): Run => load(() => import("./Dispatch.js"), (m) => m.main(options))
})

const inspect = CommandLine.make({
  name: "inspect",
  summary: "Send one message to one backend and classify what came back",
  details: [
    "Classifies the answer as no-effect, deny, effects or failure (observe mode: delivered or",
    "not-delivered), with timings; credentials are redacted."
  ],
  exitCodes: [
    [0, "the backend answered validly, or took the notification"],
    [1, "the backend failed (timeout, crash, malformed answer, …) or did not take the notification"],
    [2, `an invalid backend or event; ${unusable}`],
    interrupted
  ],
  options: {
    backend: CommandLine.text("backend", "FILE", "one backend of a registration, or a registration (JSON)"),
    event: CommandLine.text("event", "FILE", "the event to send: {\"type\": …, …the event's fields} (JSON)"),
    id: CommandLine.optionalText("id", "ID", "the backend to pick from a registration with several"),
    mode: CommandLine.choice(
      "mode",
      "MODE",
      ["intercept", "observe"] as const,
      "send a hooks/intercept request or a hooks/observe notification",
      "intercept"
    ),
    timeout: CommandLine.optionalInteger("timeout", "MS", "the deadline in milliseconds", {
      min: 1,
      note: "default: the subscription's, else 5000"
    }),
    json: CommandLine.flag("json", "print the report as one JSON object")
  },
  run: (options): Run => load(() => import("./Inspect.js"), (m) => m.run(options))
})

const serve = CommandLine.make({
  name: "serve",
  summary: "Serve an example policy backend over stdio or HTTP",
  details: [
    "--stdio reads one JSON-RPC message per line on stdin and answers on stdout; --http PORT",
    "serves on 127.0.0.1 (0 picks a free port) and first prints `listening on <url>`."
  ],
  exitCodes: [
    [0, "stdin ended (--stdio)"],
    [2, "neither or both of --stdio and --http, or the port cannot be listened on"],
    [130, "stopped (Ctrl-C or SIGTERM)"]
  ],
  options: {
    stdio: CommandLine.flag("stdio", "serve over stdin/stdout (JSON lines)"),
    http: CommandLine.optionalInteger("http", "PORT", "serve over HTTP on this port", { min: 0 }),
    host: CommandLine.optionalText("host", "HOST", "the HTTP interface", "default: 127.0.0.1"),
    auditFile: CommandLine.optionalText(
      "audit-file",
      "FILE",
      "where the audit example appends its lines",
      "default: ahp-audit.jsonl"
    ),
    delayMs: CommandLine.integer("delay-ms", "MS", "how long the slow example waits", { min: 0, default: 2000 }),
    audit: CommandLine.optionalText(
      "audit",
      "FILE",
      "append the backend's own record of each call (event identity, latency, effects answered) to FILE"
    ),
    auditContent: CommandLine.flag("audit-content", "include each event in its record")
  },
  args: CommandLine.oneArgOf("EXAMPLE", exampleNames, "the example backend"),
  run: (options, name): Run =>
    load(() => import("./Serve.js"), (m) =>
      m.run({
        ...options,
        name,
        host: Option.getOrElse(options.host, () => "127.0.0.1"),
        auditFile: Option.getOrElse(options.auditFile, () => m.defaultOptions.auditFile)
      }))
})

const demo = CommandLine.make({
  name: "demo",
  summary: "Run a scripted agent session through the example backends and trace every boundary",
  exitCodes: [[0, "every decision is the expected one"], [1, "a decision differs from the expected one"], interrupted],
  options: {
    auditFile: CommandLine.optionalText(
      "audit-file",
      "FILE",
      "keep the audit log in this file",
      "default: a temporary file, removed"
    ),
    ...auditOptions
  },
  run: (options): Run => load(() => import("./Demo.js"), (m) => m.run(options))
})

const conformance = CommandLine.make({
  name: "conformance",
  summary: "Run the official AHP fixtures and print a summary table",
  exitCodes: [
    [0, "every check passes"],
    [1, "a check fails"],
    [2, "no fixtures found, or unreadable ones"],
    interrupted
  ],
  options: {
    fixtures: CommandLine.optionalText(
      "fixtures",
      "DIR",
      "the official data folder holding fixtures/draft/manifest.json",
      "default: ../shared/ahp"
    ),
    json: CommandLine.flag("json", "print the summary as one JSON object")
  },
  run: (options): Run => load(() => import("./Conformance.js"), (m) => m.run(options))
})

const test = CommandLine.make({
  name: "test",
  summary: "Run policy test cases against the real backends; print a pass/fail table",
  details: [
    "A case file holds a registration (inline, or a path relative to the case file), an event (or a",
    "host and its hook payload) and what to expect: decision, event parts, messages, failure codes.",
    "Each failure is shown as a diff of the differing paths; --record writes the outcomes as expectations."
  ],
  exitCodes: [
    [0, "every case passed (or, with --record, every case was recorded)"],
    [1, "a case failed"],
    [2, `a case file that cannot be read or is not a valid case, or a JUnit file that cannot be written; ${unusable}`],
    interrupted
  ],
  options: {
    junit: CommandLine.optionalText("junit", "FILE", "also write the results as JUnit XML to FILE"),
    record: CommandLine.flag("record", "write each case's current outcome as its expectation (rewrites the files)")
  },
  args: CommandLine.atLeastOne("FILE", "the case files (JSON)"),
  run: (options, files): Run =>
    load(() => import("./PolicyTest.js"), (m) => Effect.asVoid(m.run({ ...options, files })))
})

const replay = CommandLine.make({
  name: "replay",
  summary: "Re-dispatch the events of a decision audit file and report every decision that changed",
  details: [
    "Reads the records written with --audit-content (others are reported as skipped) line by line and",
    "dispatches each event through the registration (--registration, else $AHP_REGISTRATION_FILE, else",
    ".ahp/registration.json)."
  ],
  exitCodes: [
    [0, "no decision changed"],
    [1, "a decision changed"],
    [2, `an audit file or registration that cannot be used, or a line that is not an audit record; ${unusable}`],
    interrupted
  ],
  options: {
    registration: CommandLine.optionalText(
      "registration",
      "FILE",
      "the registration to replay against",
      "default: $AHP_REGISTRATION_FILE, else .ahp/registration.json"
    )
  },
  args: CommandLine.exactlyOne("AUDIT.jsonl", "the decision audit file (JSON Lines)"),
  run: (options, file): Run => load(() => import("./Replay.js"), (m) => Effect.asVoid(m.run({ ...options, file })))
})

const auth = CommandLine.make({
  name: "auth",
  summary: "OAuth logins for HTTP backends: login BACKEND, logout BACKEND, status",
  details: [
    "login opens the browser (authorization code with PKCE, redirect to 127.0.0.1) and keeps the token in",
    "the per-user token file (AHP_OAUTH_TOKENS, else ahp/oauth-tokens.json under XDG_STATE_HOME or",
    "~/.local/state, mode 0600). A backend without an oauth binding needs --issuer and --client-id."
  ],
  exitCodes: [
    [0, "logged in, logged out, or the status printed"],
    [1, "the login failed, logout found no login, or the registration cannot be read"],
    [2, "a usage error, an unknown backend or an unusable registration"],
    interrupted
  ],
  options: {
    registration: CommandLine.text("registration", "FILE", "the registration document (JSON)"),
    issuer: CommandLine.optionalText(
      "issuer",
      "URL",
      "for a backend without an oauth binding: the login client's issuer"
    ),
    clientId: CommandLine.optionalText(
      "client-id",
      "ID",
      "for a backend without an oauth binding: the login client's id"
    ),
    scope: CommandLine.optionalText("scope", "SCOPES", "space-separated scopes the login client may request"),
    timeout: CommandLine.integer("timeout", "SECONDS", "how long login waits for the browser's answer", {
      min: 1,
      default: 300
    }),
    noBrowser: CommandLine.flag("no-browser", "login only prints the URL to open")
  },
  args: CommandLine.atLeastOne("ACTION [BACKEND]", "login BACKEND, logout BACKEND or status"),
  run: (options, args): Run => load(() => import("./Auth.js"), (m) => m.run(options, args))
})

const trust = CommandLine.make({
  name: "trust",
  summary: "Trust a project registration so that `ahp hook` may run it; list or revoke trusted ones",
  details: [
    "A project's .ahp/registration.json runs only once you trusted its exact text: the SHA-256 is kept in",
    "ahp/trusted-registrations.json under XDG_STATE_HOME or ~/.local/state (mode 0600). A change to the",
    "file untrusts it; until then the hook uses your own ~/.ahp/registration.json and tells you why."
  ],
  exitCodes: [
    [0, "the files were trusted or revoked, or the list printed"],
    [1, "--revoke named a file that was not trusted"],
    [2, `a file that cannot be trusted (not yours alone), a trust file that cannot be written; ${unusable}`],
    interrupted
  ],
  options: {
    list: CommandLine.flag("list", "list the trusted registrations and whether each is unchanged"),
    revoke: CommandLine.flag("revoke", "forget the files instead of trusting them")
  },
  args: {
    usage: "[FILE…]",
    description: "the registrations to trust (or, with --revoke, to forget)",
    decode: (values) => Either.right(values)
  },
  run: (options, files): Run => load(() => import("./TrustRegistrations.js"), (m) => m.run({ ...options, files }))
})

const bridge = CommandLine.make({
  name: "bridge",
  summary: "Keep a registration's backends running and answer Claude Code and Codex hooks fast",
  details: [
    "Holds the backends warm across tool calls. `ahp hook` forwards to it over a local socket it finds",
    "from the registration's path; --http PORT also serves Claude Code's http hook type at",
    "/hooks/claude-code. The registration is looked up as `ahp hook` does and reloaded when it changes."
  ],
  exitCodes: [
    [
      2,
      "a usage error, no registration found, a socket or port that cannot be listened on, or an audit file that cannot be opened"
    ],
    [130, "stopped (Ctrl-C or SIGTERM)"]
  ],
  options: {
    registration: CommandLine.optionalText(
      "registration",
      "FILE",
      "the registration",
      "default: looked up as `ahp hook` does"
    ),
    http: CommandLine.optionalInteger(
      "http",
      "PORT",
      "also serve Claude Code's http hook type on this port (0 picks a free one)",
      { min: 0 }
    ),
    host: CommandLine.optionalText("host", "HOST", "the HTTP interface", "default: 127.0.0.1"),
    socket: CommandLine.optionalText(
      "socket",
      "PATH",
      "the local socket",
      "default: the one `ahp hook` looks for, from the registration's path"
    ),
    noSocket: CommandLine.flag("no-socket", "do not listen on a local socket"),
    verbose: CommandLine.flag("verbose", "log a trace of every call on stderr"),
    ...auditOptions
  },
  run: (options): Run =>
    load(
      () => import("./hook/Bridge.js"),
      (m) => m.run({ ...options, host: Option.getOrElse(options.host, () => "127.0.0.1") })
    )
})

const hook = CommandLine.external({
  name: "hook",
  summary: "Run as a Claude Code or Codex command hook; install or uninstall it in the host's settings",
  help: Args.usage,
  exitCodes: [
    [0, "the hook call was answered (whatever the decision, or no opinion), or the settings were updated"],
    [2, "a usage error, or a settings file that cannot be read as a JSON object or written"]
  ],
  run: (argv): Run =>
    load(() => import("./hook/Command.js"), (m) =>
      Effect.flatMap(
        Effect.promise(() =>
          m.main(argv, [process.execPath, process.argv[1] ?? "ahp", "hook"], () => import("./hook/Cold.js"))
        ),
        Io.exitWith
      ))
})

/**
 * The program: its commands and the exit-code convention they share.
 *
 * @since 0.1.0
 * @category commands
 */
export const program: CommandLine.Program<Run> = {
  name: "ahp",
  version: packageJson.version,
  summary: "Agent Hooks Protocol tools",
  commands: [validate, dispatch, inspect, serve, demo, test, replay, conformance, hook, bridge, auth, trust],
  exitCodes: [
    [0, "the command did its job (a deny decision included)"],
    [1, "it ran and found problems in its subject: invalid documents, failing checks, a failing backend"],
    [2, "it could not do what was asked: usage error, unreadable file, not JSON, invalid registration or event"],
    interrupted
  ]
}
