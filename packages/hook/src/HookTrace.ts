/**
 * The hook's readable trace, one line each: the host event and the AHP event it became;
 * every intercept route in order (what its backend answered and whether the answer was
 * accepted, or how it failed and what its failure policy did, or that it was not called);
 * every observation; and the decision with the host answer it became. Written to stderr by
 * `ahp hook … --verbose` and to the log of `ahp bridge --verbose`.
 *
 * @since 0.1.0
 */
import type { DispatchResult, Registry } from "@effect-ahp/harness"
import type { Host } from "@effect-ahp/hosts"
import * as Brief from "./Brief.js"
import type * as Budget from "./Budget.js"
import * as RouteTrace from "./RouteTrace.js"

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
  readonly result: DispatchResult.DispatchResult
  readonly exchanges: ReadonlyArray<Budget.Exchange>
  readonly answer: Host.Answer
}

/**
 * One line describing a host answer.
 *
 * @since 0.1.0
 * @category formatting
 */
export const answerLine = (answer: Host.Answer): string =>
  answer.stdout === "" ? "(empty stdout: no opinion)" : Brief.clip(answer.stdout, 240)

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
  out.push(...RouteTrace.routeLines(routes, traced.result, traced.exchanges, { details: true }))
  out.push(`  ⇒ ${RouteTrace.decisionLine(result)} → ${answerLine(traced.answer)}`)
  return out
}
