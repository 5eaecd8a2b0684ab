/**
 * `ahp validate FILE… [--kind KIND] [--json]`: validates AHP documents (registrations,
 * wire messages and the event files `ahp dispatch --event` reads, `.json` or `.jsonl`)
 * against the protocol model, reporting every problem with its JSON Pointer (and "did you
 * mean" for a mistyped event selector, value or event type).
 *
 * The kind of each document is inferred unless `--kind` names it: an object with a `type`
 * and no `jsonrpc` is an event file, checked as `ahp dispatch` checks it (a catalogue event
 * type and that event's fields; `id`, `time` and `source` may be absent, dispatch fills them
 * in). Exit 0 when all are valid, 1 when any is invalid, 2 when a file cannot be read or a
 * `.json` file is not JSON (a `.jsonl` line that is not JSON is an invalid message).
 *
 * @since 0.1.0
 */
import { Grant, Registry } from "@effect-ahp/harness"
import { Event, Json, Wire } from "@effect-ahp/protocol"
import { Console, Effect, Either, Option } from "effect"
import * as Io from "./Io.js"
import { didYouMean } from "./Suggest.js"

/**
 * The kinds `--kind` names: the wire kinds, and `event`, the boundary input `ahp dispatch`
 * reads.
 *
 * @since 0.1.0
 * @category models
 */
export const kinds = [...Wire.kinds, "event"] as const

/**
 * A kind of document.
 *
 * @since 0.1.0
 * @category models
 */
export type Kind = typeof kinds[number]

/**
 * The verdict on one file.
 *
 * @since 0.1.0
 * @category models
 */
export interface FileVerdict {
  readonly file: string
  readonly valid: boolean
  readonly kinds: ReadonlyArray<Kind>
  readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }>
  readonly unreadable: boolean
  /** A `.json` file that is not JSON. */
  readonly notJson: boolean
  /** What is valid but not portable: a backend registered with the `in-process` extension. */
  readonly notes: ReadonlyArray<{ readonly path: string; readonly message: string }>
}

type Problem = { readonly path: string; readonly message: string }

/** The envelope members `ahp dispatch` fills in, as stand-ins while an event file is checked. */
const envelope = { id: "evt_validate", time: "1970-01-01T00:00:00.000Z", source: "urn:effect-ahp:harness" }

/** The problems of an event file's document, as `ahp dispatch` finds them. */
const eventIssues = (value: Json.JsonValue): ReadonlyArray<Problem> => {
  if (!Json.isObject(value)) return [{ path: "", message: "an event file holds a JSON object" }]
  const type = value.type
  if (type === undefined) {
    return [{ path: "/type", message: "is missing: name a catalogue event type such as tool.before" }]
  }
  if (typeof type !== "string" || !Event.isEventType(type)) {
    const hint = typeof type === "string" ? didYouMean(type, Event.eventTypes, (t) => JSON.stringify(t)) : ""
    return [{ path: "/type", message: `${Json.stringify(type)} is not a catalogue event type${hint}` }]
  }
  const event = { ...envelope, ...value }
  return Json.exceedsDepth(event, Event.maxDepth)
    ? [{ path: "", message: `nests deeper than ${Event.maxDepth} levels` }]
    : Event.validatorFor(type)(event)
}

/** Whether a document reads as an event file: an object with a `type` and no `jsonrpc`. */
const isEventFile = (value: Json.JsonValue): boolean => Json.isObject(value) && "type" in value && !("jsonrpc" in value)

/**
 * The problems of a registration: the document schema's, then the rules a harness adds
 * (the registry's, for a host offering every event and serving nothing in process), so a
 * document `validate` passes is one `Hooks` accepts.
 */
const registrationIssues = (value: Json.JsonValue, schemaIssues: ReadonlyArray<Problem>): ReadonlyArray<Problem> => {
  const compiled = Registry.compile(value, Grant.full())
  if (Either.isRight(compiled)) return schemaIssues
  const seen = new Set(schemaIssues.map((i) => `${i.path}\n${i.message}`))
  const added = compiled.left.issues.filter((i) => !seen.has(`${i.path}\n${i.message}`))
  return [...schemaIssues, ...added.map((i) => ({ path: i.path, message: i.message }))]
}

/**
 * The registration's backends registered `in-process`: an effect-ahp extension served by
 * the embedding host, which no other harness can reach, so the document is not portable.
 */
const portabilityNotes = (value: Json.JsonValue): ReadonlyArray<Problem> =>
  Json.isObject(value) && Array.isArray(value.hooks)
    ? value.hooks.flatMap((backend, b) =>
      Json.isObject(backend) && Json.isObject(backend.transport) && backend.transport.type === "in-process"
        ? [{
          path: `/hooks/${b}/transport`,
          message: "in-process is an effect-ahp extension served by the embedding host: the document is not portable"
        }]
        : []
    )
    : []

const validateValue = (
  value: Json.JsonValue,
  kind: Kind | undefined
): { kind: Kind; issues: ReadonlyArray<Problem> } => {
  if (kind === "event" || (kind === undefined && isEventFile(value))) {
    return { kind: "event", issues: eventIssues(value) }
  }
  const verdict = Wire.validate(value, kind)
  return verdict.kind === "registration"
    ? { kind: verdict.kind, issues: registrationIssues(value, verdict.issues) }
    : verdict
}

/** JSON lines of event files, framed as `Wire.validateText` frames messages. */
const eventLines = (text: string): { kinds: Array<Kind>; issues: Array<Problem> } => {
  const lines = text.split("\n")
  if (lines.at(-1) === "") lines.pop()
  if (lines.length === 0) return { kinds: [], issues: [{ path: "", message: "framing: no message (empty stream)" }] }
  const kinds: Array<Kind> = []
  const issues: Array<Problem> = []
  lines.forEach((raw, index) => {
    const parsed = Json.parse(raw.endsWith("\r") ? raw.slice(0, -1) : raw)
    if (Either.isLeft(parsed)) {
      issues.push({ path: `/${index}`, message: `framing: line ${index + 1} is not one JSON document` })
      return
    }
    kinds.push("event")
    issues.push(...eventIssues(parsed.right).map((i) => ({ path: `/${index}${i.path}`, message: i.message })))
  })
  return { kinds, issues }
}

/** The document JSON-lines issue paths point into: the array of lines. */
const lineValues = (text: string): Json.JsonValue =>
  text.split("\n").map((line) => Either.getOrElse(Json.parse(line), () => null))

/**
 * Validates one file's text.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateFile = (file: string, text: string, kind: Kind | undefined): FileVerdict => {
  const verdict = (
    valid: boolean,
    kinds: ReadonlyArray<Kind>,
    issues: ReadonlyArray<Problem>,
    notJson = false,
    notes: ReadonlyArray<Problem> = []
  ): FileVerdict => ({ file, valid, kinds, issues, unreadable: false, notJson, notes })
  if (file.endsWith(".jsonl")) {
    const lines = kind === "event" ? eventLines(text) : Wire.validateText(text, { framing: "jsonl", kind })
    const issues = lines.issues.length === 0 ? [] : Io.withHints(lineValues(text), lines.issues)
    return verdict(issues.length === 0, lines.kinds, issues)
  }
  const parsed = Json.parse(text)
  if (Either.isLeft(parsed)) return verdict(false, [], [{ path: "", message: parsed.left.message }], true)
  const one = validateValue(parsed.right, kind)
  const issues = one.issues.length === 0 ? [] : Io.withHints(parsed.right, one.issues)
  const notes = one.kind === "registration" ? portabilityNotes(parsed.right) : []
  return verdict(issues.length === 0, [one.kind], issues, false, notes)
}

const readVerdict = (file: string, kind: Kind | undefined) =>
  Io.readText(file, "document").pipe(
    Effect.map((text) => validateFile(file, text, kind)),
    Effect.catchAll((error) =>
      Effect.succeed<FileVerdict>({
        file,
        valid: false,
        kinds: [],
        issues: [{ path: "", message: error.message }],
        unreadable: true,
        notJson: false,
        notes: []
      })
    )
  )

const render = (v: FileVerdict): string => {
  const kind = v.kinds.length > 0 ? ` (${[...new Set(v.kinds)].join(", ")})` : ""
  const notes = v.notes.map((n) => `  note ${n.path}: ${n.message}`)
  if (v.valid) return [`${v.file}: valid${kind}`, ...notes].join("\n")
  if (v.unreadable) return `${v.file}: unreadable\n  ${v.issues[0]?.message ?? ""}`
  if (v.notJson) return `${v.file}: not JSON\n  ${v.issues[0]?.message ?? ""}`
  return [`${v.file}: invalid${kind}`, ...v.issues.map((i) => `  ${i.path || "/"}: ${i.message}`)].join("\n")
}

/**
 * The options of `validate`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly files: ReadonlyArray<string>
  readonly kind: Option.Option<Kind>
  readonly json: boolean
}

/**
 * Validates every file and prints the verdicts; sets the exit code.
 *
 * @since 0.1.0
 * @category running
 */
export const run = ({ files, json, kind }: Options): Effect.Effect<void, never, Io.ExitCode> =>
  Effect.gen(function*() {
    const verdicts = yield* Effect.forEach(files, (file) => readVerdict(file, Option.getOrUndefined(kind)))
    if (json) {
      const out = verdicts.map((v) => ({
        file: v.file,
        valid: v.valid,
        kind: v.kinds[0] ?? null,
        issues: v.issues,
        ...(v.notes.length > 0 ? { notes: v.notes } : {})
      }))
      yield* Io.printJson({ files: out })
    } else {
      for (const v of verdicts) yield* Console.log(render(v))
    }
    const code = verdicts.some((v) => v.unreadable || v.notJson)
      ? Io.exitCodes.failure
      : verdicts.every((v) => v.valid)
      ? Io.exitCodes.ok
      : Io.exitCodes.problems
    yield* Io.exitWith(code)
  })
