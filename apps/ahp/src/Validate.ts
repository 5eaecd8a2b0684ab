/**
 * `ahp validate FILE… [--kind KIND] [--json]`: validates AHP documents (registrations and
 * wire messages, `.json` or `.jsonl`) against the protocol model, reporting every problem
 * with its JSON Pointer (and "did you mean" for a mistyped event selector or value). Exit 0
 * when all are valid, 1 when any is invalid, 2 when a file cannot be read.
 *
 * @since 0.1.0
 */
import { Json, Wire } from "@effect-ahp/protocol"
import { Console, Effect, Either, Option } from "effect"
import * as Io from "./Io.js"

/**
 * The verdict on one file.
 *
 * @since 0.1.0
 * @category models
 */
export interface FileVerdict {
  readonly file: string
  readonly valid: boolean
  readonly kinds: ReadonlyArray<Wire.Kind>
  readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }>
  readonly unreadable: boolean
}

/**
 * Validates one file's text.
 *
 * @since 0.1.0
 * @category validation
 */
export const validateFile = (file: string, text: string, kind: Wire.Kind | undefined): FileVerdict => {
  const jsonl = file.endsWith(".jsonl")
  const verdict = Wire.validateText(text, { framing: jsonl ? "jsonl" : "json", kind })
  const issues = verdict.issues.length === 0 ? verdict.issues : Io.withHints(parsed(text, jsonl), verdict.issues)
  return { file, valid: issues.length === 0, kinds: verdict.kinds, issues, unreadable: false }
}

/** The document the issue paths point into: the value, or for JSON lines the array of lines. */
const parsed = (text: string, jsonl: boolean): Json.JsonValue | undefined => {
  if (!jsonl) return Either.getOrUndefined(Json.parse(text))
  return text.split("\n").map((line) => Either.getOrElse(Json.parse(line), () => null))
}

const readVerdict = (file: string, kind: Wire.Kind | undefined) =>
  Io.readText(file, "document").pipe(
    Effect.map((text) => validateFile(file, text, kind)),
    Effect.catchAll((error) =>
      Effect.succeed<FileVerdict>({
        file,
        valid: false,
        kinds: [],
        issues: [{ path: "", message: error.message }],
        unreadable: true
      })
    )
  )

const render = (v: FileVerdict): string => {
  const kind = v.kinds.length > 0 ? ` (${[...new Set(v.kinds)].join(", ")})` : ""
  if (v.valid) return `${v.file}: valid${kind}`
  if (v.unreadable) return `${v.file}: unreadable\n  ${v.issues[0]?.message ?? ""}`
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
  readonly kind: Option.Option<Wire.Kind>
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
      const out = verdicts.map((v) => ({ file: v.file, valid: v.valid, kind: v.kinds[0] ?? null, issues: v.issues }))
      yield* Io.printJson({ files: out })
    } else {
      for (const v of verdicts) yield* Console.log(render(v))
    }
    const code = verdicts.some((v) => v.unreadable)
      ? Io.exitCodes.failure
      : verdicts.every((v) => v.valid)
      ? Io.exitCodes.ok
      : Io.exitCodes.problems
    yield* Io.exitWith(code)
  })
