/**
 * The readable trace of one boundary call, as `ahp demo` prints it: for every intercept
 * route in order, what its backend was offered and answered, and whether the answer was
 * accepted or rejected (and what the failure policy did); the observations; and the
 * settled decision. Colour is used only when asked for (the demo asks when stdout is a
 * terminal and `NO_COLOR` is not set).
 *
 * @since 0.1.0
 */
import type { DispatchResult, Registry } from "@effect-ahp/harness"
import { Hooks } from "@effect-ahp/harness"
import * as Brief from "@effect-ahp/hook/Brief"
import * as Recorder from "@effect-ahp/hook/Recorder"
import * as Terminal from "@effect-ahp/hook/Terminal"
import type { Event } from "@effect-ahp/protocol"
import { Json } from "@effect-ahp/protocol"
import { Effect } from "effect"
import type { Style } from "./Style.js"

/**
 * What one boundary call needs to be traced.
 *
 * @since 0.1.0
 * @category models
 */
export interface Call {
  readonly input: Json.JsonObject
  readonly routes: ReturnType<Registry.Registry["routes"]>
  readonly result: DispatchResult.DispatchResult
  /** The exchanges of this call only, in the order they ended. */
  readonly exchanges: ReadonlyArray<Recorder.Exchange>
}

const responseEffects = (response: Json.JsonValue): ReadonlyArray<Json.JsonValue> | undefined =>
  Json.isObject(response) && Json.isObject(response.result) && Array.isArray(response.result.effects)
    ? response.result.effects
    : undefined

const answerText = (exchange: Recorder.Exchange | undefined, route: Registry.Route): string => {
  if (exchange === undefined) return "nothing was sent"
  const starting = exchange.sequence === 1 && route.backend.transport.type === "stdio"
  const took = `${exchange.durationMs} ms${starting ? " (starting the process)" : ""}`
  switch (exchange.outcome._tag) {
    case "Answered": {
      const effects = responseEffects(exchange.outcome.response)
      if (effects === undefined) {
        const error = Json.isObject(exchange.outcome.response) ? exchange.outcome.response.error : undefined
        return Json.isObject(error)
          ? `answered in ${took} with JSON-RPC error ${String(error.code)}`
          : `answered in ${took} with something that is not an intercept result`
      }
      return `answered in ${took}: ${effects.length === 0 ? "no effect" : effects.map(Brief.effect).join(", ")}`
    }
    case "Failed":
      return `no answer: ${Terminal.line(exchange.outcome.error.reason)} after ${took}`
    case "Interrupted":
      return `no answer within ${route.timeoutMs} ms (stopped after ${took})`
    case "Delivered":
      return `delivered in ${took}`
  }
}

const observationText = (call: Call, backend: string, subscription: string, s: Style): string | undefined => {
  const observation = call.result.observations.find((o) => o.backend === backend && o.subscription === subscription)
  if (observation === undefined) return undefined
  const outcome = observation.outcome === "delivered" ? s.green("delivered") : s.yellow(observation.outcome)
  return `observation ${outcome}${
    observation.detail !== undefined ? s.dim(` (${Terminal.line(observation.detail)})`) : ""
  }`
}

const routeLabel = (route: Registry.Route) => Terminal.line(`${route.backend.id}/${route.label}`)

const decisionText = (call: Call, s: Style): string => {
  const decision = call.result.decision
  const extras: Array<string> = []
  if (decision.injections.length > 0) extras.push(`${decision.injections.length} context injection(s)`)
  if (!Json.equals(stripEnvelope(call.input), stripEnvelope(call.result.event))) {
    extras.push(`edited: ${Brief.event(call.result.event)}`)
  }
  for (const message of decision.messages) extras.push(`message to the user: "${Brief.clip(message, 80)}"`)
  const tail = extras.map((e) => `\n      ${s.dim("·")} ${e}`).join("")
  switch (decision.permission) {
    case "deny": {
      const denial = decision.denial
      const by = denial?.provenance === undefined
        ? ""
        : ` (${denial.synthetic ? "synthetic, after " : "by "}${
          Terminal.line(`${denial.provenance.backend}/${denial.provenance.subscription}`)
        })`
      return `${s.red(s.bold("deny"))} — "${
        Terminal.line(denial?.reason ?? "")
      }"${by}; the operation does not run${tail}`
    }
    case "ask":
      return `${s.yellow(s.bold("ask"))} — the host asks the user before running it${tail}`
    case "allow":
      return `${s.green(s.bold("allow"))} — policy allows it; the host's own sandbox and checks still apply${tail}`
    case "none":
      return `${s.bold("none")} — no permission effect; the host's own permission flow decides${tail}`
  }
}

const stripEnvelope = (event: Json.JsonObject): Json.JsonObject => {
  const { id: _id, source: _source, time: _time, type: _type, ...rest } = event
  return rest
}

/**
 * The trace lines of one call (without its heading).
 *
 * @since 0.1.0
 * @category formatting
 */
export const render = (call: Call, s: Style): Array<string> => {
  const lines: Array<string> = []
  const requests = call.exchanges.filter((e) => e.kind === "request")
  const used = new Set<Recorder.Exchange>()
  const width = Math.max(0, ...[...call.routes.intercept, ...call.routes.observe].map((r) => routeLabel(r).length))
  for (const route of call.routes.intercept) {
    const exchange = requests.find((e) => e.backend === route.backend.id && !used.has(e))
    const error = call.result.errors.find((e) => e.backend === route.backend.id && e.subscription === route.label)
    const head = `${s.cyan(routeLabel(route).padEnd(width))}  ${
      s.dim(`intercept · ${route.failurePolicy} · ${route.timeoutMs} ms · ${route.backend.transport.type}`)
    }`
    if (exchange === undefined && error === undefined) {
      lines.push(`    ${s.dim("·")} ${head}`)
      lines.push(`        ${s.dim("not called: the decision was already made")}`)
      const observed = observationText(call, route.backend.id, route.label, s)
      if (observed !== undefined) lines.push(`        ${observed}`)
      continue
    }
    if (exchange !== undefined) used.add(exchange)
    lines.push(`    ${s.bold("→")} ${head}`)
    if (exchange !== undefined && Json.isObject(exchange.message.params)) {
      lines.push(`        ${s.dim(`offered: ${Brief.capabilities(exchange.message.params.capabilities)}`)}`)
    }
    lines.push(`        ${answerText(exchange, route)}`)
    if (error === undefined) {
      lines.push(
        `        ${s.green("✓ accepted")} ${s.dim("(the whole response: valid, and within what was offered)")}`
      )
    } else {
      const policy = error.syntheticDenial
        ? "fail-closed: a synthetic denial, the chain stops"
        : "fail-open: recorded, the chain goes on"
      lines.push(
        `        ${s.red(`✗ ${error.phase} failure: ${error.code}`)} ${s.dim(`(${Terminal.line(error.detail)})`)}`
      )
      lines.push(`        ${error.syntheticDenial ? s.red(policy) : s.yellow(policy)}`)
    }
  }
  for (const route of call.routes.observe) {
    const observed = observationText(call, route.backend.id, route.label, s)
    const label = s.cyan(routeLabel(route).padEnd(width))
    lines.push(`    ${s.bold("◦")} ${label}  ${s.dim("observe")}  ${observed ?? s.dim("not sent")}`)
  }
  lines.push(`    ${s.bold("⇒")} ${decisionText(call, s)}`)
  return lines
}

/**
 * Dispatches one call through `hooks` and renders it as `ahp demo` prints it: a heading
 * line, then the trace. Everything a backend or the registration wrote is shown escaped
 * (see `render`); colour comes only from `s`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const dispatched = Effect.fn("Trace.dispatched")(function*(
  hooks: Hooks.Hooks["Type"],
  step: { readonly n: number; readonly type: Event.EventType; readonly input: Json.JsonObject; readonly title: string },
  s: Style
) {
  const recorder = yield* Recorder.Recorder
  const before = (yield* recorder.exchanges).length
  const result = yield* Effect.orDie(hooks.dispatchUnknown(step.type, step.input))
  const exchanges = (yield* recorder.exchanges).slice(before)
  const seen = Brief.event({ ...step.input, type: step.type })
  const heading = `${s.bold(`[${step.n}] ${step.type}`)}  ${seen}  ${s.dim(`— ${Terminal.line(step.title)}`)}`
  const routes = hooks.registry.routes(step.type)
  return { result, text: [heading, ...render({ input: step.input, routes, result, exchanges }, s)].join("\n") }
})
