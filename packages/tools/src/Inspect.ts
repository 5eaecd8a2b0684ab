/**
 * `ahp inspect --backend BACKEND.json --event EVENT.json [--mode intercept|observe]
 * [--timeout MS] [--json]`: sends one message to one backend through the real harness and
 * transports, and classifies what came back:
 *
 * | result | meaning |
 * | --- | --- |
 * | `no-effect` | a valid response with no effects (never permission) |
 * | `deny` | a valid response with an explicit deny |
 * | `effects` | a valid response with other effects (listed) |
 * | `failure` | an operational failure: phase, code and cause (timeout, transport, protocol, staging) |
 * | `delivered` / `not-delivered` | observe mode: the notification's delivery |
 *
 * BACKEND.json is one backend of a registration (`id`, `transport`, optional
 * `authentication` and `subscriptions`) or a registration with one backend (`--id` picks
 * one of several). The message is sent through a single subscription for the event's type:
 * the backend's own subscription for it when it has one (its content selection and
 * deadline), else `content: {"default": "body"}`; `--timeout` overrides the deadline
 * (default 5000 ms). Timings are measured around the exchange and the whole call.
 * Credentials are never shown: secret-like members are masked and the values of the
 * environment variables the backend's authentication names are scrubbed from every text.
 * For a stdio backend the report carries the end of its stderr (`stderr`, redacted; shown
 * in the text form after a failure), and relative paths in BACKEND.json resolve against
 * that file's directory.
 *
 * Exit codes: 0 when the backend answered validly (or the notification was delivered); 1
 * for an operational failure or an undelivered notification (a problem with the backend);
 * 2 when the message could not be sent: unreadable input or an invalid backend.
 *
 * @since 0.1.0
 */
import { DispatchResult, Grant, Hooks } from "@effect-ahp/harness"
import * as Brief from "@effect-ahp/hook/Brief"
import * as Recorder from "@effect-ahp/hook/Recorder"
import * as RouteTrace from "@effect-ahp/hook/RouteTrace"
import * as Terminal from "@effect-ahp/hook/Terminal"
import { NodeTransports, StdioTransport } from "@effect-ahp/node"
import { Json, Registration } from "@effect-ahp/protocol"
import { Console, Duration, Effect, Layer, Option } from "effect"
import * as Dispatch from "./Dispatch.js"
import * as Io from "./Io.js"
import { didYouMean } from "./Suggest.js"

/**
 * How the backend's answer is classified.
 *
 * @since 0.1.0
 * @category models
 */
export type Classification = "no-effect" | "deny" | "effects" | "failure" | "delivered" | "not-delivered"

const secretKey =
  /^(?:authorization|cookie|set-cookie|token|access_token|refresh_token|id_token|client_secret|password|secret|api[-_]?key)$/i

const secretFlag = /^(--?(?:token|password|secret|api[-_]?key|client[-_]?secret)(?:=|$))(.*)$/i

/**
 * Masks secret-like members, secret-like command-line flags (`--token X`,
 * `--password=X`), credentials in URLs, and every occurrence of the given secret values.
 *
 * @since 0.1.0
 * @category redaction
 */
export const redact = (value: Json.JsonValue, secrets: ReadonlyArray<string>): Json.JsonValue => {
  const scrub = (text: string) =>
    secrets.reduce(
      (out, secret) => out.split(secret).join("[redacted]"),
      text.replace(/\/\/[^/@\s]+@/g, "//[redacted]@")
    )
  if (typeof value === "string") return scrub(value)
  if (Array.isArray(value)) {
    return value.map((item, i) => {
      const flag = typeof item === "string" ? secretFlag.exec(item) : null
      if (flag !== null && flag[2] !== "") return `${flag[1]}[redacted]`
      const previous = value[i - 1]
      return typeof previous === "string" && secretFlag.exec(previous)?.[2] === ""
        ? "[redacted]"
        : redact(item, secrets)
    })
  }
  if (!Json.isObject(value)) return value
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => [key, secretKey.test(key) ? "[redacted]" : redact(item, secrets)])
  )
}

const secretsOf = (backend: Json.JsonObject): ReadonlyArray<string> => {
  const auth = backend.authentication
  if (!Json.isObject(auth) || typeof auth.tokenEnv !== "string") return []
  const value = process.env[auth.tokenEnv]
  return value === undefined || value === "" ? [] : [value]
}

const pickBackend = (document: Json.JsonObject, id: Option.Option<string>, file: string) => {
  const fail = (message: string) => Effect.fail(new Io.InputError({ file, message, issues: [] }))
  if (!Array.isArray(document.hooks)) {
    return Option.isSome(id) && document.id !== id.value
      ? fail(`the backend in ${file} is not ${id.value}`)
      : Effect.succeed(document)
  }
  const backends = document.hooks.filter(Json.isObject)
  const chosen = Option.match(id, {
    onNone: () => backends.length === 1 ? backends[0] : undefined,
    onSome: (wanted) => backends.find((b) => b.id === wanted)
  })
  if (chosen !== undefined) return Effect.succeed(chosen)
  const ids = backends.flatMap((b) => typeof b.id === "string" ? [b.id] : [])
  if (ids.length === 0) return fail(`the registration ${file} lists no backend`)
  return fail(
    Option.isSome(id)
      ? `the registration ${file} has no backend ${id.value}${didYouMean(id.value, ids)}; its backends: ${
        ids.join(", ")
      }`
      : `the registration ${file} lists ${backends.length} backends: pick one with --id (${ids.join(", ")})`
  )
}

const subscriptionFor = (
  backend: Json.JsonObject,
  type: string,
  mode: "intercept" | "observe",
  timeout: Option.Option<number>
) => {
  const own = Array.isArray(backend.subscriptions)
    ? backend.subscriptions.filter(Json.isObject).find((s) =>
      s.mode === mode && Array.isArray(s.events) &&
      s.events.some((e) => typeof e === "string" && Registration.selectorMatches(e, type))
    )
    : undefined
  const timeoutMs = Option.getOrElse(timeout, () => typeof own?.timeoutMs === "number" ? own.timeoutMs : 5000)
  const base: Json.JsonObject = {
    id: "inspect",
    mode,
    events: [type],
    content: own?.content ?? { default: "body" },
    ...(own?.includeNative !== undefined ? { includeNative: own.includeNative } : {})
  }
  return { subscription: mode === "intercept" ? { ...base, timeoutMs, failurePolicy: "fail-open" } : base, timeoutMs }
}

/**
 * The options of one inspection.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly backend: string
  readonly event: string
  readonly id: Option.Option<string>
  readonly mode: "intercept" | "observe"
  readonly timeout: Option.Option<number>
  readonly json: boolean
}

/**
 * The report of one inspection.
 *
 * @since 0.1.0
 * @category models
 */
export interface Report {
  readonly backend: string
  readonly transport: Json.JsonValue
  readonly mode: "intercept" | "observe"
  readonly event: { readonly type: string; readonly id: string }
  readonly classification: Classification
  readonly summary: string
  readonly effects: ReadonlyArray<Json.JsonValue>
  readonly failure: Json.JsonObject | null
  readonly response: Json.JsonValue
  /** The end of a stdio backend's stderr (its most recent process), redacted; null when it wrote nothing there. */
  readonly stderr: string | null
  readonly timings: { readonly exchangeMs: number | null; readonly totalMs: number }
}

const classify = (result: DispatchResult.DispatchResult, mode: "intercept" | "observe") => {
  if (mode === "observe") {
    const observation = result.observations[0]
    if (observation?.outcome === "delivered") {
      return { classification: "delivered" as const, summary: "notification delivered", failure: null }
    }
    const detail = observation?.detail !== undefined ? ` (${observation.detail})` : ""
    return {
      classification: "not-delivered" as const,
      summary: `notification not delivered: ${observation?.outcome ?? "not sent"}${detail}`,
      failure: observation === undefined ? null : Dispatch.observationJson(observation)
    }
  }
  const error = result.errors[0]
  if (error !== undefined) {
    return {
      classification: "failure" as const,
      summary: `operational failure in the ${error.phase} phase: ${error.code} (${error.detail})`,
      failure: Dispatch.errorJson(error)
    }
  }
  const effects = result.decision.effects.map((a) => a.effect as unknown as Json.JsonValue)
  if (effects.length === 0) {
    return { classification: "no-effect" as const, summary: "no effect: the host's own flow decides", failure: null }
  }
  const deny = effects.find((e) => Json.isObject(e) && e.type === "deny")
  if (deny !== undefined) {
    return { classification: "deny" as const, summary: `explicit ${Brief.effect(deny)}`, failure: null }
  }
  const summary = `${effects.length} effect${effects.length === 1 ? "" : "s"}`
  return { classification: "effects" as const, summary, failure: null }
}

/**
 * Sends the message and builds the report.
 *
 * @since 0.1.0
 * @category running
 */
export const inspect = (options: Options) =>
  Effect.gen(function*() {
    const document = yield* Io.readObject(options.backend, "backend")
    const backend = yield* pickBackend(document, options.id, options.backend)
    const event = yield* Io.readEvent(options.event)
    const { subscription, timeoutMs } = subscriptionFor(backend, event.type, options.mode, options.timeout)
    const registration = { protocolVersion: "draft", hooks: [{ ...backend, subscriptions: [subscription] }] }
    const hooks = yield* Hooks.makeUnknown(registration, { grant: Grant.full(), observationTimeoutMs: timeoutMs }).pipe(
      Effect.mapError((error) =>
        new Io.ConfigError({ file: options.backend, issues: Io.withHints(registration, error.issues) })
      )
    )
    const [elapsed, result] = yield* Effect.timed(
      RouteTrace.logged(event.input, hooks.registry.routes(event.type), hooks.dispatchUnknown(event.type, event.input))
        .pipe(
          Effect.mapError((error) =>
            new Io.InputError({ file: options.event, message: error.message, issues: error.issues })
          )
        )
    )
    const recorder = yield* Recorder.Recorder
    const exchange = (yield* recorder.exchanges)[0]
    const stderr = yield* recorder.diagnostics(String(backend.id))
    const secrets = secretsOf(backend)
    const verdict = classify(result, options.mode)
    const report: Report = {
      backend: String(backend.id),
      transport: redact(backend.transport ?? null, secrets),
      mode: options.mode,
      event: { type: event.type, id: String(result.event.id) },
      classification: verdict.classification,
      summary: String(redact(verdict.summary, secrets)),
      effects: result.decision.effects.map((a) => redact(a.effect as unknown as Json.JsonValue, secrets)),
      failure: verdict.failure === null ? null : redact(verdict.failure, secrets) as Json.JsonObject,
      response: exchange?.outcome._tag === "Answered" ? redact(exchange.outcome.response, secrets) : null,
      stderr: stderr === undefined ? null : String(redact(stderr, secrets)),
      timings: { exchangeMs: exchange?.durationMs ?? null, totalMs: Math.round(Duration.toMillis(elapsed)) }
    }
    return report
  }).pipe(
    Effect.scoped,
    Effect.provide(Recorder.layer.pipe(Layer.provide(NodeTransports.layerNode({
      stdio: { directory: StdioTransport.directoryOf(options.backend), oneShot: true }
    }))))
  )

const transportText = (transport: Json.JsonValue): string => {
  if (!Json.isObject(transport)) return "unknown transport"
  if (transport.type === "http") return `http ${String(transport.url)}`
  if (transport.type === "in-process") return "in-process"
  const args = Array.isArray(transport.args) ? transport.args.map(String).join(" ") : ""
  return `stdio ${String(transport.command)} ${args} (${String(transport.lifecycle)})`
}

/**
 * The report for people.
 *
 * @since 0.1.0
 * @category output
 */
export const render = (report: Report): string => {
  const exchange = report.timings.exchangeMs === null ? "no exchange" : `exchange ${report.timings.exchangeMs} ms`
  const rows: Array<[string, string]> = [
    ["backend", `${report.backend} — ${transportText(report.transport)}`],
    ["sent", `hooks/${report.mode} ${report.event.type} (${report.event.id})`],
    ["result", report.summary],
    ...report.effects.map((e, i): [string, string] => [i === 0 ? "effects" : "", Brief.effect(e)]),
    ...(report.stderr !== null && (report.classification === "failure" || report.classification === "not-delivered")
      ? [["", report.stderr] as [string, string]]
      : []),
    ["timing", `${exchange}, total ${report.timings.totalMs} ms`]
  ]
  return rows.map(([label, text]) => `${label.padEnd(8)} ${text}`).join("\n")
}

/**
 * Runs one inspection and prints the report; sets the exit code.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: Options): Effect.Effect<void, never, Io.ExitCode> =>
  inspect(options).pipe(
    Effect.flatMap((report) =>
      Effect.zipRight(
        options.json ? Io.printJson(report) : Console.log(Terminal.lines(render(report))),
        Io.exitWith(
          report.classification === "failure" || report.classification === "not-delivered"
            ? Io.exitCodes.problems
            : Io.exitCodes.ok
        )
      )
    ),
    Effect.catchTags({
      InputError: (error) => Io.reportFailure(error),
      ConfigError: (error) => Io.reportFailure(error)
    })
  )
