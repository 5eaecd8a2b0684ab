/**
 * `ahp validate FILE… [--kind KIND] [--json]`: validates AHP documents (registrations and
 * wire messages, `.json` or `.jsonl`) against the protocol model, reporting every problem
 * with its JSON Pointer. Exit 0 when all are valid, 1 when any is invalid, 2 when a file
 * cannot be read.
 *
 * @since 0.1.0
 */
import { Args, Command, Options } from "@effect/cli"
import { FileSystem } from "@effect/platform"
import { Wire } from "@effect-ahp/protocol"
import { Console, Effect, Option } from "effect"
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
  const verdict = Wire.validateText(text, { framing: file.endsWith(".jsonl") ? "jsonl" : "json", kind })
  return { file, valid: verdict.issues.length === 0, kinds: verdict.kinds, issues: verdict.issues, unreadable: false }
}

const readVerdict = (file: string, kind: Wire.Kind | undefined) =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)).pipe(
    Effect.map((text) => validateFile(file, text, kind)),
    Effect.catchAll((error) =>
      Effect.succeed<FileVerdict>({
        file,
        valid: false,
        kinds: [],
        issues: [{ path: "", message: `cannot read file: ${error._tag === "SystemError" ? error.reason : error.message}` }],
        unreadable: true
      })
    )
  )

const render = (v: FileVerdict): string => {
  const kind = v.kinds.length > 0 ? ` (${[...new Set(v.kinds)].join(", ")})` : ""
  if (v.valid) return `${v.file}: valid${kind}`
  return [`${v.file}: invalid${kind}`, ...v.issues.map((i) => `  ${i.path || "/"}: ${i.message}`)].join("\n")
}

/**
 * The `validate` command.
 *
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "validate",
  {
    files: Args.file({ name: "FILE" }).pipe(Args.atLeast(1)),
    kind: Options.choice("kind", Wire.kinds).pipe(
      Options.withDescription("validate as this kind instead of inferring it"),
      Options.optional
    ),
    json: Options.boolean("json").pipe(Options.withDescription("print one JSON object with every verdict"))
  },
  ({ files, json, kind }) =>
    Effect.gen(function*() {
      const verdicts = yield* Effect.forEach(files, (file) => readVerdict(file, Option.getOrUndefined(kind)))
      if (json) {
        const out = verdicts.map((v) => ({ file: v.file, valid: v.valid, kind: v.kinds[0] ?? null, issues: v.issues }))
        yield* Io.printJson({ files: out })
      } else {
        for (const v of verdicts) yield* Console.log(render(v))
      }
      const code = verdicts.some((v) => v.unreadable) ? 2 : verdicts.every((v) => v.valid) ? 0 : 1
      yield* Io.exitWith(code)
    })
).pipe(Command.withDescription("Validate AHP registrations and wire messages (.json, .jsonl)"))
