/**
 * `ahp conformance [--fixtures DIR] [--json]`: runs the official AHP fixtures through this
 * implementation and prints a summary table. DIR holds `fixtures/draft/manifest.json` (the
 * official data folder; by default `../shared/ahp` from the working directory or from the
 * repository, or `$AHP_SHARED`). For every manifest case:
 *
 * - `schema`: the fixture, validated as the manifest's schema kind, is valid exactly when
 *   `expectedValid` says so;
 * - `aggregate`: validated as a generic wire message, as `aggregateExpectedValid` says;
 * - `boundary`: a response with an `editContext` is staged by the harness against that
 *   boundary, accepted exactly when `contextualExpectedValid` says so;
 * - `registry`: a registration compiles against a host granting everything exactly when it
 *   is expected valid.
 *
 * Cases listed but absent from the folder are counted as missing. Exit code 0 when every
 * check passes, 1 when one fails, 2 when no fixtures are found.
 *
 * @since 0.1.0
 */
import { Boundary, Grant, Registry, Staging } from "@effect-ahp/harness"
import { type Event, Json, Wire } from "@effect-ahp/protocol"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Path from "@effect/platform/Path"
import { Console, Effect, Either, Option } from "effect"
import { fileURLToPath } from "node:url"
import * as Io from "./Io.js"

interface Case {
  readonly id: string
  readonly path: string
  readonly binding: string
  readonly schema: string
  readonly expectedValid: boolean
  readonly aggregateExpectedValid?: boolean
  readonly contextualExpectedValid?: boolean
  readonly editContext?: EditContext
  readonly requirements?: ReadonlyArray<string>
}

interface EditContext {
  readonly event: Event.EventType
  readonly current: { readonly content?: Json.JsonValue; readonly output?: Json.JsonValue }
  readonly mode?: string
  readonly action?: string
}

/**
 * One failed check.
 *
 * @since 0.1.0
 * @category models
 */
export interface Failure {
  readonly id: string
  readonly check: "schema" | "aggregate" | "boundary" | "registry"
  readonly message: string
}

/**
 * Counts for one row of the summary.
 *
 * @since 0.1.0
 * @category models
 */
export interface Row {
  readonly name: string
  readonly cases: number
  readonly checks: number
  readonly passed: number
  readonly failed: number
  readonly missing: number
}

/**
 * The whole run.
 *
 * @since 0.1.0
 * @category models
 */
export interface Summary {
  readonly root: string
  readonly groups: ReadonlyArray<Row>
  readonly profiles: ReadonlyArray<Row & { readonly requirements: number }>
  readonly total: Row
  readonly failures: ReadonlyArray<Failure>
}

const kindOf = (schema: string): Wire.Kind | undefined => {
  const name = schema.replace(/^schema\/draft\//, "").replace(/\.schema\.json$/, "").replace(/\.json$/, "")
  const kind = name === "schema" ? "message" : name
  return Wire.isKind(kind) ? kind : undefined
}

const editEvent = (edit: EditContext): Json.JsonObject => {
  const base = { id: "edit-1", source: "urn:ahp:conformance", time: "2026-01-01T00:00:00Z", type: edit.event }
  switch (edit.event) {
    case "user.elicitation.result": {
      const result = edit.mode === "form" && edit.action === "accept"
        ? { action: edit.action, content: edit.current.content ?? {} }
        : { action: edit.action ?? "" }
      return {
        ...base,
        elicitation: {
          server: { id: "server" },
          mode: edit.mode ?? "form",
          action: edit.action ?? "accept",
          result: {
            id: "result",
            kind: "text",
            mediaType: "text/plain",
            selection: "body",
            text: Json.stringify(result)
          }
        }
      }
    }
    case "user.message.outbound":
      return { ...base, message: { channel: "chat", messages: edit.current.content ?? [] } }
    default:
      return { ...base, items: edit.current.output ?? [] }
  }
}

const stage = (response: Json.JsonValue, edit: EditContext) => {
  const boundary = Boundary.of(edit.event)
  return Staging.stage(response, {
    requestId: "edit-1",
    boundary,
    capabilities: Grant.boundaryCapabilities(boundary, 3),
    view: { hiddenTextTargets: new Set(), unreadableTargets: new Set() },
    selection: { default: "body" },
    event: editEvent(edit)
  })
}

const verdictText = (valid: boolean) => valid ? "valid" : "invalid"

/** Runs every check of one case; returns the failures and the number of checks. */
const checkCase = (c: Case, text: string): { readonly checks: number; readonly failures: Array<Failure> } => {
  const failures: Array<Failure> = []
  let checks = 0
  const expect = (check: Failure["check"], expected: boolean, actual: boolean, detail: string) => {
    checks += 1
    if (expected !== actual) {
      const message = `expected ${verdictText(expected)}, found ${verdictText(actual)}${detail}`
      failures.push({ id: c.id, check, message })
    }
  }
  const framing: Wire.Framing = c.binding === "stdio-jsonl" ? "jsonl" : "json"
  const kind = kindOf(c.schema)
  if (kind === undefined) {
    failures.push({ id: c.id, check: "schema", message: `no validator for ${c.schema}` })
    return { checks: 1, failures }
  }
  const issuesText = (issues: ReadonlyArray<{ readonly path: string; readonly message: string }>) =>
    issues.length === 0 ? "" : ` (${issues[0]!.path || "/"}: ${issues[0]!.message})`
  const schema = Wire.validateText(text, { framing, kind })
  expect("schema", c.expectedValid, schema.issues.length === 0, issuesText(schema.issues))
  if (c.aggregateExpectedValid !== undefined) {
    const aggregate = Wire.validateText(text, { framing, kind: "message" })
    expect("aggregate", c.aggregateExpectedValid, aggregate.issues.length === 0, issuesText(aggregate.issues))
  }
  const parsed = Json.parse(text)
  if (c.editContext !== undefined && c.contextualExpectedValid !== undefined && Either.isRight(parsed)) {
    const staged = stage(parsed.right, c.editContext)
    const detail = Either.isLeft(staged) ? ` (${staged.left.detail})` : ""
    expect("boundary", c.contextualExpectedValid, Either.isRight(staged), detail)
  }
  if (kind === "registration" && Either.isRight(parsed)) {
    const compiled = Registry.compile(parsed.right, Grant.full())
    const detail = Either.isLeft(compiled) ? issuesText(compiled.left.issues) : ""
    expect("registry", c.expectedValid, Either.isRight(compiled), detail)
  }
  return { checks, failures }
}

const emptyRow = (name: string): Row => ({ name, cases: 0, checks: 0, passed: 0, failed: 0, missing: 0 })

const add = (row: Row, outcome: { readonly checks: number; readonly failed: number } | "missing"): Row =>
  outcome === "missing"
    ? { ...row, cases: row.cases + 1, missing: row.missing + 1 }
    : {
      ...row,
      cases: row.cases + 1,
      checks: row.checks + outcome.checks,
      passed: row.passed + outcome.checks - outcome.failed,
      failed: row.failed + outcome.failed
    }

/**
 * The candidate data folders, in order: `--fixtures`, `$AHP_SHARED`, `../shared/ahp` from
 * the working directory, then from the repository holding this bundle.
 *
 * @since 0.1.0
 * @category input
 */
export const candidates = (path: Path.Path, fixtures: Option.Option<string>): ReadonlyArray<string> =>
  Option.match(fixtures, {
    onSome: (dir) => [path.resolve(dir)],
    onNone: () => [
      ...(process.env.AHP_SHARED !== undefined ? [path.resolve(process.env.AHP_SHARED)] : []),
      path.resolve("..", "shared", "ahp"),
      path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..", "shared", "ahp")
    ]
  })

const manifestPath = (path: Path.Path, root: string) => path.join(root, "fixtures", "draft", "manifest.json")

/**
 * Runs every case under a data folder.
 *
 * @since 0.1.0
 * @category running
 */
export const runAll = (root: string) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const manifest = yield* Io.readObject(manifestPath(path, root), "fixtures manifest")
    const profilesFile = path.join(root, "conformance", "draft", "manifest.json")
    const profileDoc = (yield* fs.exists(profilesFile))
      ? yield* Io.readObject(profilesFile, "conformance manifest")
      : {}
    const cases = (Array.isArray(manifest.cases) ? manifest.cases : []) as unknown as ReadonlyArray<Case>
    const profiles = (Array.isArray(profileDoc.profiles) ? profileDoc.profiles : []).filter(Json.isObject).map((p) => ({
      name: String(p.id),
      requirements: (Array.isArray(p.requirements) ? p.requirements : []).map(String)
    }))
    const groups = new Map<string, Row>()
    const profileRows = new Map(profiles.map((p) => [p.name, emptyRow(p.name)]))
    let total = emptyRow("total")
    const failures: Array<Failure> = []
    for (const c of cases) {
      const file = path.join(root, c.path)
      const group = c.path.split("/")[2] ?? c.binding
      const outcome = (yield* fs.exists(file))
        ? yield* Effect.map(fs.readFileString(file), (text) => checkCase(c, text))
        : "missing" as const
      if (outcome !== "missing") failures.push(...outcome.failures)
      const counted = outcome === "missing" ? outcome : { checks: outcome.checks, failed: outcome.failures.length }
      groups.set(group, add(groups.get(group) ?? emptyRow(group), counted))
      total = add(total, counted)
      for (const profile of profiles) {
        if ((c.requirements ?? []).some((r) => profile.requirements.includes(r))) {
          profileRows.set(profile.name, add(profileRows.get(profile.name)!, counted))
        }
      }
    }
    return {
      root,
      groups: [...groups.values()].sort((a, b) => a.name.localeCompare(b.name)),
      profiles: profiles.map((p) => ({ ...profileRows.get(p.name)!, requirements: p.requirements.length })),
      total,
      failures
    } satisfies Summary
  })

/**
 * The summary as text tables.
 *
 * @since 0.1.0
 * @category output
 */
export const render = (summary: Summary): string => {
  const table = (title: string, rows: ReadonlyArray<Row>, extra?: (row: Row) => string) => {
    const header = `  ${title.padEnd(22)}${extra === undefined ? "" : "reqs".padStart(6)}${
      ["cases", "checks", "passed", "failed", "missing"].map((h) => h.padStart(8)).join("")
    }`
    const body = rows.map((row) =>
      `  ${row.name.padEnd(22)}${extra === undefined ? "" : extra(row).padStart(6)}${
        [row.cases, row.checks, row.passed, row.failed, row.missing].map((n) => String(n).padStart(8)).join("")
      }`
    )
    return [header, ...body].join("\n")
  }
  const reqs = new Map(summary.profiles.map((p) => [p.name, p.requirements]))
  const lines = [
    `AHP conformance — official fixtures at ${summary.root}`,
    "",
    table("fixture group", [...summary.groups, summary.total]),
    "",
    table("profile", summary.profiles, (row) => String(reqs.get(row.name) ?? "")),
    "",
    summary.failures.length === 0
      ? `All ${summary.total.checks} checks passed (${summary.total.cases} cases, ${summary.total.missing} missing).`
      : [
        `${summary.failures.length} check(s) failed:`,
        ...summary.failures.map((f) => `  ${f.id} [${f.check}]: ${f.message}`)
      ].join("\n")
  ]
  return lines.join("\n")
}

/**
 * The options of `conformance`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly fixtures: Option.Option<string>
  readonly json: boolean
}

/**
 * Finds the fixtures, runs them and prints the summary; sets the exit code (0 every check
 * passes, 1 one fails, 2 no fixtures or unreadable ones).
 *
 * @since 0.1.0
 * @category running
 */
export const run = ({ fixtures, json }: Options) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const tried = candidates(path, fixtures)
    const found = yield* Effect.findFirst(
      tried,
      (root) => Effect.orElseSucceed(fs.exists(manifestPath(path, root)), () => false)
    )
    if (Option.isNone(found)) {
      yield* Console.error(
        `ahp conformance: no official fixtures found (looked for fixtures/draft/manifest.json in ${tried.join(", ")})`
      )
      return yield* Io.exitWith(Io.exitCodes.failure)
    }
    const summary = yield* runAll(found.value)
    yield* json ? Io.printJson(summary) : Console.log(render(summary))
    yield* Io.exitWith(summary.failures.length === 0 ? Io.exitCodes.ok : Io.exitCodes.problems)
  }).pipe(
    Effect.catchTag("InputError", (error) => Io.reportFailure(error)),
    Effect.catchTags({
      SystemError: (error) =>
        Effect.zipRight(Console.error(`ahp conformance: ${error.message}`), Io.exitWith(Io.exitCodes.failure)),
      BadArgument: (error) =>
        Effect.zipRight(Console.error(`ahp conformance: ${error.message}`), Io.exitWith(Io.exitCodes.failure))
    })
  )
