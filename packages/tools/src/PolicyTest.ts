/**
 * `ahp test FILE… [--junit FILE] [--record]`: runs policy test cases against the real
 * backends. A case file (JSON) holds one case:
 *
 * - `registration`: the registration document, inline or as a path relative to the case file;
 * - `event` (`{"type": …, …the event's fields}`) or `host` (`"claude-code"` or `"codex"`) and
 *   `payload` (the host's hook payload, mapped to its event by the host adapter);
 * - `expect`: any of `decision`, `event` (effective event parts, matched as a subset),
 *   `messages` and `failures` (the failed routes' codes, in chain order).
 *
 * Each case runs in a scope of its own: its backends are started for it and stopped after it.
 * The outcome is printed as a pass/fail table, then a diff per failure (the differing paths
 * only, expected vs actual). Exit codes: 0 every case passed, 1 some failed, 2 a case file
 * could not be read or is invalid (the other cases still run). `--record` writes each case's
 * current outcome as its `expect`, keeping the rest of the file.
 *
 * @since 0.1.0
 */
import { Hooks, Transport } from "@effect-ahp/harness"
import * as Recorder from "@effect-ahp/hook/Recorder"
import * as RouteTrace from "@effect-ahp/hook/RouteTrace"
import * as Terminal from "@effect-ahp/hook/Terminal"
import { HostEvents, Hosts } from "@effect-ahp/hosts"
import { NodeTransports } from "@effect-ahp/node"
import { Common, Decoder, Event, Intercept, Issue, Json } from "@effect-ahp/protocol"
import { Clock, Console, Effect, Either, Layer, Option, Schema } from "effect"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Io from "./Io.js"

/**
 * What a case expects; every member is optional, an absent one is not checked.
 *
 * @since 0.1.0
 * @category models
 */
export const Expectation = Schema.Struct({
  decision: Common.optional(Intercept.Permission),
  event: Common.optional(Json.AnyObject),
  messages: Common.optional(Schema.Array(Schema.String)),
  failures: Common.optional(Schema.Array(Schema.String))
})

/**
 * One case file.
 *
 * @since 0.1.0
 * @category models
 */
export const Case = Schema.Struct({
  name: Common.optional(Schema.String),
  description: Common.optional(Schema.String),
  registration: Schema.Union(Schema.String, Json.AnyObject),
  event: Common.optional(Json.AnyObject),
  host: Common.optional(Schema.Literal(...HostEvents.hostNames)),
  payload: Common.optional(Json.AnyObject),
  expect: Common.optional(Expectation)
}).pipe(
  Schema.filter((c) => {
    const host = c.host !== undefined || c.payload !== undefined
    if (c.event !== undefined && host) return "give either event or host and payload, not both"
    if (c.event === undefined && !host) return "give the event, or host and payload"
    if (host && (c.host === undefined || c.payload === undefined)) return "host and payload go together"
    return undefined
  })
)

/**
 * @since 0.1.0
 * @category models
 */
export type Case = typeof Case.Type

const decodeCase = Decoder.lazy(() => Decoder.make(Case, { onExcessProperty: "error" }))

/**
 * What a case came to: the settled decision, the effective event, the messages and the
 * failure codes.
 *
 * @since 0.1.0
 * @category models
 */
export interface Actual {
  readonly decision: Intercept.Permission
  readonly event: Json.JsonObject
  /** The effective event's top-level members that differ from the event as dispatched. */
  readonly changed: Json.JsonObject
  readonly messages: ReadonlyArray<string>
  readonly failures: ReadonlyArray<string>
}

/**
 * One differing path: a JSON Pointer into the expectation, and both values
 * (`undefined` when absent).
 *
 * @since 0.1.0
 * @category models
 */
export interface Difference {
  readonly path: string
  readonly expected: Json.JsonValue | undefined
  readonly actual: Json.JsonValue | undefined
}

/**
 * The result of one case file.
 *
 * @since 0.1.0
 * @category models
 */
export type Result =
  | { readonly _tag: "Passed"; readonly file: string; readonly name: string; readonly actual: Actual }
  | {
    readonly _tag: "Failed"
    readonly file: string
    readonly name: string
    readonly actual: Actual
    readonly differences: ReadonlyArray<Difference>
  }
  | { readonly _tag: "Invalid"; readonly file: string; readonly name: string; readonly error: Io.InputError }

const join = (at: string, key: string | number) => `${at}/${String(key).replace(/~/g, "~0").replace(/\//g, "~1")}`

/**
 * The paths where `actual` does not hold `expected`: objects are matched as subsets (members
 * absent from `expected` are not checked), arrays and scalars exactly (arrays element by
 * element, object elements as subsets).
 *
 * @since 0.1.0
 * @category comparing
 */
export const subsetDiff = (
  expected: Json.JsonValue,
  actual: Json.JsonValue | undefined,
  at = ""
): Array<Difference> => {
  if (Json.isObject(expected)) {
    if (!Json.isObject(actual)) return [{ path: at, expected, actual }]
    return Object.entries(expected).flatMap(([key, value]) =>
      subsetDiff(value, Object.hasOwn(actual, key) ? actual[key] : undefined, join(at, key))
    )
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [{ path: at, expected, actual }]
    const length = Math.max(expected.length, actual.length)
    return Array.from({ length }, (_, i) =>
      i >= expected.length
        ? [{ path: join(at, i), expected: undefined, actual: actual[i] }]
        : subsetDiff(expected[i]!, actual[i], join(at, i))).flat()
  }
  return actual !== undefined && Json.equals(expected, actual) ? [] : [{ path: at, expected, actual }]
}

/**
 * Where the actual outcome differs from the expectation.
 *
 * @since 0.1.0
 * @category comparing
 */
export const compare = (expect: typeof Expectation.Type, actual: Actual): Array<Difference> => [
  ...(expect.decision !== undefined && expect.decision !== actual.decision
    ? [{ path: "/decision", expected: expect.decision, actual: actual.decision }]
    : []),
  ...(expect.event !== undefined ? subsetDiff(expect.event, actual.event, "/event") : []),
  ...(expect.messages !== undefined ? subsetDiff([...expect.messages], [...actual.messages], "/messages") : []),
  ...(expect.failures !== undefined ? subsetDiff([...expect.failures], [...actual.failures], "/failures") : [])
]

/**
 * The expectation that holds the actual outcome: the decision, the messages, the failures,
 * and the effective event's members that the chain changed (when it changed any).
 *
 * @since 0.1.0
 * @category recording
 */
export const expectationOf = (actual: Actual): Json.JsonObject => ({
  decision: actual.decision,
  ...(Object.keys(actual.changed).length > 0 ? { event: actual.changed } : {}),
  messages: [...actual.messages],
  failures: [...actual.failures]
})

/** The envelope members the harness fills in: never recorded as changes. */
const envelope = new Set(["id", "time", "source"])

const changedMembers = (before: Json.JsonObject, after: Json.JsonObject): Json.JsonObject =>
  Object.fromEntries(
    Object.entries(after).filter(([key, value]) =>
      !envelope.has(key) && !(Object.hasOwn(before, key) && Json.equals(before[key], value))
    )
  )

const invalid = (file: string, message: string, issues: ReadonlyArray<Io.InputIssue> = []) =>
  new Io.InputError({ file, message, issues })

/**
 * Reads and decodes a case file.
 *
 * @since 0.1.0
 * @category input
 */
export const readCase = (
  file: string
): Effect.Effect<{ readonly document: Json.JsonObject; readonly value: Case }, Io.InputError> =>
  Effect.flatMap(Io.readObject(file, "case"), (document) =>
    Either.match(decodeCase(document), {
      onLeft: (issues) => Effect.fail(invalid(file, `the case file ${file} is not a valid case`, issues)),
      onRight: (value) => Effect.succeed({ document, value })
    }))

const registrationOf = (file: string, value: Case) =>
  typeof value.registration === "string"
    ? Effect.map(
      Io.readJson(path.resolve(path.dirname(file), value.registration), "registration"),
      (document) => ({ document, file: path.resolve(path.dirname(file), value.registration as string) })
    )
    : Effect.succeed({ document: value.registration as Json.JsonValue, file })

/**
 * Makes the transports of a case whose stdio backends resolve relative paths against `directory`.
 *
 * @since 0.1.0
 * @category models
 */
export type TransportsFor = (directory: string) => Layer.Layer<Transport.Transports>

/**
 * The real Node transports (one-shot stdio, as `ahp dispatch`).
 *
 * @since 0.1.0
 * @category running
 */
export const nodeTransports: TransportsFor = (directory) =>
  NodeTransports.layerNode({ stdio: { directory, oneShot: true } })

const configError = (file: string, issues: ReadonlyArray<Io.InputIssue>) =>
  invalid(file, `the registration in ${file} is not valid`, issues)

/**
 * Runs one decoded case and returns what it came to; an unusable registration, event or
 * payload is an `InputError` naming the case file.
 *
 * @since 0.1.0
 * @category running
 */
export const runCase = (file: string, value: Case, transports: TransportsFor): Effect.Effect<Actual, Io.InputError> =>
  Effect.gen(function*() {
    const registration = yield* registrationOf(file, value)
    const host = value.host === undefined ? undefined : Hosts.of(value.host)
    const hooks = yield* Hooks.makeUnknown(
      registration.document,
      host === undefined ? {} : { grant: host.grant, source: host.source }
    ).pipe(
      Effect.mapError((error) => configError(registration.file, Io.withHints(registration.document, error.issues)))
    )
    const call = yield* prepare(file, value, hooks.registry)
    if (call === undefined) return { decision: "none", event: {}, changed: {}, messages: [], failures: [] } as Actual
    const result = yield* RouteTrace.logged(
      call.input,
      hooks.registry.routes(call.type),
      hooks.dispatchUnknown(call.type, call.input, {
        ...(call.capabilities !== undefined ? { capabilities: call.capabilities } : {}),
        observers: "wait"
      })
    ).pipe(Effect.mapError((error) => invalid(file, error.message, error.issues)))
    return {
      decision: result.decision.permission,
      event: result.event,
      changed: changedMembers(call.input, result.event),
      messages: result.decision.messages,
      failures: result.errors.map((failure) => failure.code)
    }
  }).pipe(
    Effect.scoped,
    Effect.provide(Recorder.layer.pipe(Layer.provide(transports(
      typeof value.registration === "string"
        ? path.dirname(path.resolve(path.dirname(file), value.registration))
        : path.dirname(file)
    ))))
  )

/** The boundary call of a case: its event, or its host payload mapped (`undefined`: the host passes it through). */
const prepare = (file: string, value: Case, registry: Hooks.Hooks["Type"]["registry"]) =>
  Effect.gen(function*() {
    if (value.event !== undefined) {
      const type = value.event.type
      if (typeof type !== "string" || !Event.isEventType(type)) {
        return yield* invalid(file, `the event of ${file} has no catalogue event type`, [{
          path: "/event/type",
          message: "must be a catalogue event type"
        }])
      }
      return { type, input: value.event, capabilities: undefined }
    }
    const host = Hosts.of(value.host!)
    const named = HostEvents.nameOf(value.payload!)
    const hostEvent = named === undefined ? undefined : HostEvents.find(host.name, named)
    const routes = hostEvent?.type === undefined ? { intercept: [], observe: [] } : registry.routes(hostEvent.type)
    const now = yield* Clock.currentTimeMillis
    const mapped = host.map(value.payload!, {
      time: new Date(now).toISOString(),
      includeNative: [...routes.intercept, ...routes.observe].some((route) => route.subscriber.includeNative)
    })
    if (Either.isLeft(mapped)) {
      return yield* invalid(
        file,
        `the payload of ${file}: ${mapped.left.message}`,
        Issue.within(mapped.left.issues, ["payload"])
      )
    }
    if (mapped.right._tag === "PassThrough") return undefined
    const call = mapped.right
    return {
      type: call.type,
      input: call.input,
      capabilities: call.capabilities ?? (routes.intercept.length > 0 ? { effects: [] } : undefined)
    }
  })

const nameOf = (file: string, value: Case | undefined) => value?.name ?? path.basename(file, path.extname(file))

/**
 * Reads, runs and checks one case file; with `record`, rewrites its `expect` with the outcome.
 *
 * @since 0.1.0
 * @category running
 */
export const check = (file: string, transports: TransportsFor, record: boolean): Effect.Effect<Result> =>
  Effect.gen(function*() {
    const { document, value } = yield* readCase(file)
    const actual = yield* runCase(file, value, transports)
    if (record) {
      const expect = expectationOf(actual)
      const rewritten = Object.hasOwn(document, "expect")
        ? Object.fromEntries(Object.entries(document).map(([k, v]) => [k, k === "expect" ? expect : v]))
        : { ...document, expect }
      yield* Effect.try({
        try: () => fs.writeFileSync(file, Json.stringify(rewritten, 2) + "\n"),
        catch: () => invalid(file, `cannot write the case file ${file}`)
      })
      return { _tag: "Passed", file, name: nameOf(file, value), actual } as const
    }
    const differences = compare(value.expect ?? {}, actual)
    return differences.length === 0
      ? { _tag: "Passed", file, name: nameOf(file, value), actual } as const
      : { _tag: "Failed", file, name: nameOf(file, value), actual, differences } as const
  }).pipe(
    Effect.catchAll((error) => Effect.succeed({ _tag: "Invalid", file, name: nameOf(file, undefined), error } as const))
  )

const show = (value: Json.JsonValue | undefined) => value === undefined ? "(absent)" : Json.stringify(value)

/**
 * The diff of one failure, one line per differing path.
 *
 * @since 0.1.0
 * @category output
 */
export const diffLines = (differences: ReadonlyArray<Difference>): Array<string> =>
  differences.flatMap((d) => [`  ${d.path}`, `    - expected ${show(d.expected)}`, `    + actual   ${show(d.actual)}`])

const problemLines = (error: Io.InputError): Array<string> => [
  `  ${error.message}`,
  ...error.issues.map((issue) => `    ${issue.path || "/"}: ${issue.message}`)
]

/**
 * The readable report: a table of cases, then the diff of every failure and the problem of
 * every invalid file.
 *
 * @since 0.1.0
 * @category output
 */
export const report = (results: ReadonlyArray<Result>): string => {
  const label = { Passed: "PASS", Failed: "FAIL", Invalid: "ERROR" } as const
  // a case's name is one line, whatever its file says
  const name = (r: Result) => Terminal.line(r.name)
  const width = Math.max(4, ...results.map((r) => name(r).length))
  const rows = results.map((r) =>
    `${label[r._tag].padEnd(5)}  ${name(r).padEnd(width)}  ${
      (r._tag === "Invalid" ? "-" : r.actual.decision).padEnd(8)
    }  ${r.file}`
  )
  const details = results.flatMap((r) =>
    r._tag === "Failed"
      ? ["", `FAIL ${name(r)} (${r.file})`, ...diffLines(r.differences)]
      : r._tag === "Invalid"
      ? ["", `ERROR ${name(r)} (${r.file})`, ...problemLines(r.error)]
      : []
  )
  const count = (tag: Result["_tag"]) => results.filter((r) => r._tag === tag).length
  return [
    `${"".padEnd(5)}  ${"case".padEnd(width)}  ${"decision".padEnd(8)}  file`,
    ...rows,
    ...details,
    "",
    `${count("Passed")} passed, ${count("Failed")} failed, ${count("Invalid")} invalid`
  ].join("\n")
}

const xml = (text: string) =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;")
    // Characters XML 1.0 cannot hold.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "\ufffd")

/**
 * The results as JUnit XML (one test suite, one test case per case file).
 *
 * @since 0.1.0
 * @category output
 */
export const junit = (results: ReadonlyArray<Result>): string => {
  const count = (tag: Result["_tag"]) => results.filter((r) => r._tag === tag).length
  const cases = results.map((r) => {
    const open = `    <testcase name="${xml(r.name)}" classname="${xml(r.file)}"`
    switch (r._tag) {
      case "Passed":
        return `${open}/>`
      case "Failed":
        return `${open}>\n      <failure message="${xml(`${r.differences.length} differing path(s)`)}">${
          xml(diffLines(r.differences).join("\n"))
        }</failure>\n    </testcase>`
      case "Invalid":
        return `${open}>\n      <error message="${xml(r.error.message)}">${
          xml(problemLines(r.error).join("\n"))
        }</error>\n    </testcase>`
    }
  })
  return [
    `<?xml version="1.0" encoding="UTF-8"?>`,
    `<testsuites name="ahp test" tests="${results.length}" failures="${count("Failed")}" errors="${count("Invalid")}">`,
    `  <testsuite name="ahp test" tests="${results.length}" failures="${count("Failed")}" errors="${
      count("Invalid")
    }">`,
    ...cases,
    `  </testsuite>`,
    `</testsuites>`,
    ``
  ].join("\n")
}

/**
 * The options of `ahp test`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly files: ReadonlyArray<string>
  readonly junit: Option.Option<string>
  readonly record: boolean
  /** The transports (default: the real Node transports). */
  readonly transports?: TransportsFor | undefined
}

/**
 * Runs the case files one after the other, prints the report, writes the JUnit XML when
 * asked, and sets the exit code.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: Options): Effect.Effect<ReadonlyArray<Result>, never, Io.ExitCode> =>
  Effect.gen(function*() {
    const transports = options.transports ?? nodeTransports
    const results = yield* Effect.forEach(options.files, (file) => check(file, transports, options.record))
    yield* Console.log(Terminal.lines(report(results)))
    let junitFailed = false
    if (Option.isSome(options.junit)) {
      const target = options.junit.value
      junitFailed = yield* Effect.try(() => fs.writeFileSync(target, junit(results))).pipe(
        Effect.as(false),
        Effect.catchAll(() => Effect.as(Console.error(`ahp test: cannot write the JUnit report ${target}`), true))
      )
    }
    yield* Io.exitWith(
      junitFailed || results.some((r) => r._tag === "Invalid")
        ? Io.exitCodes.failure
        : results.some((r) => r._tag === "Failed")
        ? Io.exitCodes.problems
        : Io.exitCodes.ok
    )
    return results
  })
