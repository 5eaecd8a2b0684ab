/**
 * The hook's readable trace, one line each: the host event and the AHP event it became;
 * every intercept route in order (what its backend answered and whether the answer was
 * accepted, or how it failed and what its failure policy did, or that it was not called);
 * every observation; and the decision with the host answer it became. Written to stderr by
 * `ahp hook … --verbose` and to the log of `ahp bridge --verbose`.
 *
 * @since 0.1.0
 */
import type { Hooks, Registry } from "@effect-ahp/harness"
import type { Host } from "@effect-ahp/hosts"
import { Json } from "@effect-ahp/protocol"
import * as Brief from "../Brief.js"
import type * as Budget from "./Budget.js"

/**
 * What one dispatched hook call needs to be traced.
 *
 * @since 0.1.0
 * @category models
 */
export interface Traced {
  readonly host: Host.Host
  readonly mapped: Host.Mapped
  readonly routes: ReturnType<Registry.Registry["routes"]>
  readonly result: Hooks.DispatchResult
  readonly exchanges: ReadonlyArray<Budget.Exchange>
  readonly answer: Host.Answer
}

const answered = (exchange: Budget.Exchange): string => {
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

/**
 * One line describing a host answer.
 *
 * @since 0.1.0
 * @category formatting
 */
export const answerLine = (answer: Host.Answer): string =>
  answer.stdout === "" ? "(empty stdout: no opinion)" : Brief.clip(answer.stdout, 240)

const decisionLine = (result: Hooks.DispatchResult): string => {
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

/**
 * The trace lines of one call.
 *
 * @since 0.1.0
 * @category formatting
 */
export const lines = (traced: Traced): Array<string> => {
  const { mapped, result, routes } = traced
  const out = [
    `${traced.host.name} ${mapped.event.name} → ${mapped.type} ${String(mapped.input.id)}: ${
      Brief.event(mapped.input)
    } (${routes.intercept.length} intercept, ${routes.observe.length} observe)`
  ]
  const requests = traced.exchanges.filter((e) => e.kind === "request")
  const used = new Set<Budget.Exchange>()
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
      : `${failure.phase} failure ${failure.code} (${failure.detail}); ${
        failure.syntheticDenial ? "fail-closed: a synthetic denial" : "fail-open: recorded, the chain goes on"
      }`
    out.push(`  → ${label}: ${what}; ${verdict}`)
  }
  for (const observation of result.observations) {
    out.push(
      `  ◦ ${observation.backend}/${observation.subscription} (observe): ${observation.outcome}${
        observation.detail !== undefined ? ` (${observation.detail})` : ""
      }`
    )
  }
  out.push(`  ⇒ ${decisionLine(result)} → ${answerLine(traced.answer)}`)
  return out
}
