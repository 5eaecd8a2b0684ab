/**
 * `ahp replay AUDIT.jsonl [--registration NEW.json]`: re-dispatches the events recorded in a
 * decision audit file (records written with `--audit-content`) through a registration — by
 * default `$AHP_REGISTRATION_FILE`, else `.ahp/registration.json` — and reports every
 * decision that changed: the event's id and type, the old and the new decision, and where
 * the chain stopped then and now.
 *
 * The audit file is untrusted input: it is read line by line (never whole), each line at most
 * `maxLineBytes`, the file at most `maxFileBytes`; a line that is not an audit record is
 * reported with its number and the reason. A record without content is reported as skipped.
 * Every call uses the full grant (the grant of the original call is not recorded), and the
 * registration's observers receive the replayed events as they would any other.
 *
 * Exit codes: 0 no decision changed, 1 some changed, 2 the input could not be used (an
 * unreadable file or registration, or a line that is not an audit record).
 *
 * @since 0.1.0
 */
import { Audit, Grant, Hooks } from "@effect-ahp/harness"
import * as Recorder from "@effect-ahp/hook/Recorder"
import * as RouteTrace from "@effect-ahp/hook/RouteTrace"
import * as Terminal from "@effect-ahp/hook/Terminal"
import { Decoder, Event, Json } from "@effect-ahp/protocol"
import { Console, Effect, Either, Layer, Option, Ref } from "effect"
import * as path from "node:path"
import * as Io from "./Io.js"
import * as PolicyTest from "./PolicyTest.js"

/**
 * The longest line read: 16 MiB.
 *
 * @since 0.1.0
 * @category input
 */
export const maxLineBytes = Io.maxInputBytes

/**
 * The largest audit file read: 1 GiB.
 *
 * @since 0.1.0
 * @category input
 */
export const maxFileBytes = 1024 * 1024 * 1024

/**
 * What one line came to.
 *
 * @since 0.1.0
 * @category models
 */
export type Outcome =
  | { readonly _tag: "Same"; readonly line: number; readonly record: Audit.Record }
  | { readonly _tag: "Changed"; readonly line: number; readonly before: Audit.Record; readonly after: Audit.Record }
  | { readonly _tag: "Skipped"; readonly line: number; readonly id: string; readonly reason: string }
  | { readonly _tag: "Unreadable"; readonly line: number; readonly reason: string }

const decodeRecord = Decoder.lazy(() => Decoder.make(Audit.Record))

const stop = (record: Audit.Record) =>
  record.settlement.stoppedAt === null
    ? "no interceptor stopped it"
    : `stopped at ${record.settlement.stoppedAt.backend}/${record.settlement.stoppedAt.subscription}`

const decisionOf = (record: Audit.Record) =>
  `${record.settlement.decision}${record.settlement.syntheticDenial ? " (fail-closed)" : ""}${
    record.settlement.flow === "none" ? "" : ` flow ${record.settlement.flow}`
  }`

/**
 * Whether the decision changed: the permission, whether a denial is synthetic, or the flow.
 *
 * @since 0.1.0
 * @category comparing
 */
export const changed = (before: Audit.Record, after: Audit.Record): boolean =>
  before.settlement.decision !== after.settlement.decision ||
  before.settlement.syntheticDenial !== after.settlement.syntheticDenial ||
  before.settlement.flow !== after.settlement.flow

/**
 * The line printed for an outcome other than `Same`.
 *
 * @since 0.1.0
 * @category output
 */
export const describe = (outcome: Outcome): string | undefined => {
  switch (outcome._tag) {
    case "Same":
      return undefined
    case "Changed": {
      const { after, before } = outcome
      return `CHANGED  line ${outcome.line}  ${before.event.id} ${before.event.type}: ${decisionOf(before)} → ${
        decisionOf(after)
      } (was ${stop(before)}; now ${stop(after)})`
    }
    case "Skipped":
      return `SKIPPED  line ${outcome.line}  ${outcome.id}: ${outcome.reason}`
    case "Unreadable":
      return `INVALID  line ${outcome.line}: ${outcome.reason}`
  }
}

/**
 * The options of `ahp replay`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly file: string
  readonly registration: Option.Option<string>
  /** The transports (default: the real Node transports). */
  readonly transports?: PolicyTest.TransportsFor | undefined
}

/**
 * The registration: `--registration`, else `$AHP_REGISTRATION_FILE`, else
 * `.ahp/registration.json` in the current folder.
 */
const registrationFile = (flag: Option.Option<string>): string =>
  Option.getOrElse(flag, () => process.env.AHP_REGISTRATION_FILE || path.join(".ahp", "registration.json"))

/**
 * Re-dispatches one line's recorded event; `dispatch` returns the new record.
 */
const replayLine = (
  line: Io.Line,
  number: number,
  dispatch: (type: Event.EventType, event: Json.JsonObject) => Effect.Effect<Audit.Record | string>
): Effect.Effect<Outcome> => {
  if (Either.isLeft(line)) return Effect.succeed({ _tag: "Unreadable", line: number, reason: line.left })
  const parsed = Json.parse(line.right)
  if (Either.isLeft(parsed)) {
    return Effect.succeed({ _tag: "Unreadable", line: number, reason: `not JSON: ${parsed.left.message}` })
  }
  const decoded = decodeRecord(parsed.right)
  if (Either.isLeft(decoded)) {
    const [first] = decoded.left
    return Effect.succeed({
      _tag: "Unreadable",
      line: number,
      reason: `not an audit record: ${first?.path || "/"}: ${first?.message}`
    })
  }
  const before = decoded.right
  const event = before.content?.event
  if (event === undefined) {
    return Effect.succeed({
      _tag: "Skipped",
      line: number,
      id: before.event.id,
      reason: "recorded without content (use --audit-content)"
    })
  }
  if (!Json.isObject(event) || typeof event.type !== "string" || !Event.isEventType(event.type)) {
    return Effect.succeed({
      _tag: "Unreadable",
      line: number,
      reason: "the recorded event has no catalogue event type"
    })
  }
  return Effect.map(dispatch(event.type, event), (after): Outcome =>
    typeof after === "string"
      ? { _tag: "Skipped", line: number, id: before.event.id, reason: after }
      : changed(before, after)
      ? { _tag: "Changed", line: number, before, after }
      : { _tag: "Same", line: number, record: before })
}

/**
 * Replays an audit file, printing each changed decision, skipped record and unreadable line
 * as it goes and a summary at the end; sets the exit code; returns the outcomes.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: Options): Effect.Effect<ReadonlyArray<Outcome>, never, Io.ExitCode> =>
  Effect.suspend(() => {
    const file = registrationFile(options.registration)
    return replay(options, file).pipe(
      Effect.provide(
        Recorder.layer.pipe(
          Layer.provide((options.transports ?? PolicyTest.nodeTransports)(path.dirname(path.resolve(file))))
        )
      )
    )
  }).pipe(
    Effect.catchTags({
      InputError: (error) => Effect.as(Io.reportFailure(error), [] as ReadonlyArray<Outcome>),
      ConfigError: (error) => Effect.as(Io.reportFailure(error), [] as ReadonlyArray<Outcome>)
    })
  )

const replay = (options: Options, file: string) =>
  Effect.gen(function*() {
    const registration = yield* Io.readJson(file, "registration")
    const last = yield* Ref.make<Audit.Entry | undefined>(undefined)
    const recorder = yield* Recorder.Recorder
    const hooks = yield* Hooks.makeUnknown(registration, { grant: Grant.full() }).pipe(
      Effect.provideService(
        Audit.Audit,
        Audit.Audit.of({ record: (entry) => Ref.set(last, entry), dropped: Effect.succeed(0) })
      ),
      Effect.mapError((error) => new Io.ConfigError({ file, issues: Io.withHints(registration, error.issues) }))
    )
    const dispatch = (type: Event.EventType, event: Json.JsonObject): Effect.Effect<Audit.Record | string> =>
      Effect.zipRight(
        Ref.set(last, undefined),
        RouteTrace.logged(event, hooks.registry.routes(type), hooks.dispatchUnknown(type, event, { observers: "wait" }))
      ).pipe(
        Effect.provideService(Recorder.Recorder, recorder),
        Effect.zipRight(Ref.get(last)),
        Effect.flatMap((entry): Effect.Effect<Audit.Record | string> =>
          entry === undefined ? Effect.succeed("the call was not settled") : Audit.toRecord(entry)
        ),
        Effect.catchAll((error) => Effect.succeed(`the recorded event is not valid now: ${error.message}`))
      )
    const outcomes: Array<Outcome> = []
    yield* Io.forEachLine(options.file, "audit", { maxLineBytes, maxFileBytes }, (line, number) =>
      Effect.flatMap(replayLine(line, number, dispatch), (outcome) => {
        outcomes.push(outcome)
        const text = describe(outcome)
        return text === undefined ? Effect.void : Console.log(Terminal.lines(text))
      }))
    const count = (tag: Outcome["_tag"]) =>
      outcomes.filter((o) =>
        o._tag === tag
      ).length
    yield* Console.log(
      `${count("Same") + count("Changed")} replayed: ${count("Changed")} changed, ${count("Same")} unchanged; ${
        count("Skipped")
      } skipped, ${count("Unreadable")} invalid`
    )
    yield* Io.exitWith(
      count("Unreadable") > 0 ? Io.exitCodes.failure : count("Changed") > 0 ? Io.exitCodes.problems : Io.exitCodes.ok
    )
    return outcomes as ReadonlyArray<Outcome>
  }).pipe(Effect.scoped)
