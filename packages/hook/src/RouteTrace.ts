/**
 * The per-route lines of one boundary call's trace, shared by `ahp hook --verbose` (its
 * stderr) and the commands that log them at `debug` (`dispatch`, `inspect`, `test`,
 * `replay` with `--log-level debug`): every intercept route in order (what its backend
 * answered and whether the answer was accepted, or how it failed and what its failure
 * policy did, or that it was not called), every observation, and the settled decision.
 * Without `details`, a failure is named by its phase and code only: its detail can quote
 * a backend's error text, which a log must not carry.
 */
import type { DispatchResult, Registry } from "@effect-ahp/harness"
import { Json } from "@effect-ahp/protocol"
import { Effect, FiberRef, LogLevel } from "effect"
import * as Brief from "./Brief.js"
import * as Recorder from "./Recorder.js"

/** One exchange of the call, as the trace needs it. */
export interface Exchange {
  readonly backend: string
  readonly kind: "request" | "notification"
  readonly outcome: Recorder.Outcome
  readonly durationMs: number
}

/** The routes a registry selects for one event type. */
export type Routes = ReturnType<Registry.Registry["routes"]>

const answered = (exchange: Exchange): string => {
  const took = `${exchange.durationMs} ms`
  switch (exchange.outcome._tag) {
    case "Answered": {
      const response = exchange.outcome.response
      const result = Json.isObject(response) && Json.isObject(response.result) ? response.result : undefined
      const effects = result !== undefined && Array.isArray(result.effects) ? result.effects : undefined
      if (effects === undefined) return `answered in ${took} with something that is not an intercept result`
      return `answered in ${took}: ${effects.length === 0 ? "no effect" : effects.map(Brief.effect).join(", ")}`
    }
    case "Failed":
      return `no answer: ${exchange.outcome.error.reason} after ${took}`
    case "Interrupted":
      return `no answer within its deadline (stopped after ${took})`
    case "Delivered":
      return `delivered in ${took}`
  }
}

/** The settled decision in one line. */
export const decisionLine = (result: DispatchResult.DispatchResult): string => {
  const decision = result.decision
  const parts: Array<string> = [decision.permission]
  const denial = decision.denial
  if (denial !== undefined) {
    const by = denial.provenance === undefined
      ? ""
      : ` (${
        denial.synthetic ? "synthetic, after" : "by"
      } ${denial.provenance.backend}/${denial.provenance.subscription})`
    parts.push(`"${Brief.clip(denial.reason)}"${by}`)
  }
  if (decision.flow !== "none") parts.push(`flow ${decision.flow}`)
  if (decision.injections.length > 0) parts.push(`${decision.injections.length} injection(s)`)
  if (decision.messages.length > 0) parts.push(`${decision.messages.length} message(s)`)
  if (result.interrupted) parts.push("interrupted")
  return parts.join(", ")
}

/** The lines of the intercept routes and the observations, in order, each indented. */
export const routeLines = (
  routes: Routes,
  result: DispatchResult.DispatchResult,
  exchanges: ReadonlyArray<Exchange>,
  options: { readonly details: boolean }
): Array<string> => {
  const out: Array<string> = []
  const requests = exchanges.filter((e) => e.kind === "request")
  const used = new Set<Exchange>()
  for (const route of routes.intercept) {
    const label =
      `${route.backend.id}/${route.label} (intercept, ${route.failurePolicy}, ${route.timeoutMs} ms, ${route.backend.transport.type})`
    const exchange = requests.find((e) => e.backend === route.backend.id && !used.has(e))
    const failure = result.errors.find((e) => e.backend === route.backend.id && e.subscription === route.label)
    if (exchange === undefined && failure === undefined) {
      out.push(`  → ${label}: not called (the decision was already made)`)
      continue
    }
    if (exchange !== undefined) used.add(exchange)
    const what = exchange === undefined ? "nothing sent" : answered(exchange)
    const verdict = failure === undefined
      ? "accepted"
      : `${failure.phase} failure ${failure.code}${options.details ? ` (${failure.detail})` : ""}; ${
        failure.syntheticDenial ? "fail-closed: a synthetic denial" : "fail-open: recorded, the chain goes on"
      }`
    out.push(`  → ${label}: ${what}; ${verdict}`)
  }
  for (const observation of result.observations) {
    const detail = options.details && observation.detail !== undefined ? ` (${observation.detail})` : ""
    out.push(`  ◦ ${observation.backend}/${observation.subscription} (observe): ${observation.outcome}${detail}`)
  }
  return out
}

/**
 * Logs one call's trace at `debug`, one entry per line: the event and how many routes
 * it has, the routes (no failure details), the decision. Nothing is computed unless
 * `debug` is logged.
 */
export const logCall = (
  input: Json.JsonObject,
  routes: Routes,
  result: DispatchResult.DispatchResult,
  exchanges: ReadonlyArray<Exchange>
): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(FiberRef.currentMinimumLogLevel), (minimum) => {
    if (LogLevel.greaterThan(minimum, LogLevel.Debug)) return Effect.void
    const lines = [
      `${String(input.type)}: ${
        Brief.event(input)
      } (${routes.intercept.length} intercept, ${routes.observe.length} observe)`,
      ...routeLines(routes, result, exchanges, { details: false }),
      `  ⇒ ${decisionLine(result)}`
    ]
    return Effect.forEach(lines, (line) => Effect.logDebug(line), { discard: true })
  })

/**
 * Runs `dispatch`, one boundary call of `input` over `routes` through the recorded
 * transports, and logs its trace at `debug` (`logCall`) with the exchanges it made.
 */
export const logged = <E, R>(
  input: Json.JsonObject,
  routes: Routes,
  dispatch: Effect.Effect<DispatchResult.DispatchResult, E, R>
): Effect.Effect<DispatchResult.DispatchResult, E, R | Recorder.Recorder> =>
  Effect.gen(function*() {
    const recorder = yield* Recorder.Recorder
    const before = (yield* recorder.exchanges).length
    const result = yield* dispatch
    const exchanges = (yield* recorder.exchanges).slice(before)
    yield* logCall(input, routes, result, exchanges)
    return result
  })
