/**
 * In-process chain throughput. Ours: `Hooks.dispatch` over in-process backends (the real
 * service: event validation, projection, per-step capabilities, staging, settlement).
 * Baseline: a minimal hand-written loop over the same handlers doing only what any
 * correct implementation must — JSON-encode each request, decode each response, check the
 * envelope and that the effects are an array of valid effects, apply the merge.
 *
 * Ours hands an in-process backend a structural copy of its request rather than one read
 * back from JSON text, so the targeted rows compare against a loop that copies more. The
 * extra rows (no target) give the same loop with structural request copies too: the
 * harness's own overhead, with nothing saved on copying.
 */
import { Hooks } from "@effect-ahp/harness"
import { Json } from "@effect-ahp/protocol"
import * as fixtures from "./fixtures.js"
import { type Batch, compare, type Pace, timeEffect, timeSync } from "./measure.js"
import { type Row, throughputRow } from "./report.js"

const effectKinds = new Set(["deny", "allow", "ask", "modify", "message", "return", "inject", "flow"])

const isObject = (u: unknown): u is Record<string, any> => typeof u === "object" && u !== null && !Array.isArray(u)

class Invalid extends Error {}

/** Validates one effect (shape and target) and returns the input merge it carries, if any. */
const checkEffect = (effect: unknown): Record<string, unknown> | undefined => {
  if (!isObject(effect) || !effectKinds.has(effect.type)) throw new Invalid("invalid effect")
  if (effect.type !== "modify") return undefined
  if (
    effect.target !== "input" || (effect.operation !== "merge" && effect.operation !== "replace") ||
    !isObject(effect.value)
  ) {
    throw new Invalid("invalid modify")
  }
  return effect.value
}

/** How the baseline copies a request for its handler. */
type RequestCopy = (request: Json.JsonObject) => Json.JsonObject

/** Through JSON text, as the baseline does. */
const throughText: RequestCopy = (request) => JSON.parse(JSON.stringify(request))

/** A plain recursive copy of a JSON value (written here, independent of `Json.clone`). */
const structural = (value: unknown): any => {
  if (typeof value !== "object" || value === null) return value
  if (Array.isArray(value)) return value.map(structural)
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value)) out[key] = structural((value as Record<string, unknown>)[key])
  return out
}

/**
 * The baseline: one boundary through `handlers`, returning the effective event.
 */
export const minimalChain = (
  handlers: ReadonlyArray<fixtures.Handler>,
  event: Json.JsonObject,
  copy: RequestCopy = throughText
): Json.JsonObject => {
  let current: Record<string, any> = event
  for (const handler of handlers) {
    const id = current.id
    const request = copy({
      jsonrpc: "2.0",
      id,
      method: "hooks/intercept",
      params: { protocolVersion: "draft", event: current, capabilities: fixtures.toolBeforeCapabilities }
    })
    const response = JSON.parse(JSON.stringify(handler(request)))
    if (!isObject(response) || response.jsonrpc !== "2.0" || response.id !== id || !isObject(response.result)) {
      throw new Invalid("invalid envelope")
    }
    const effects = response.result.effects
    if (!Array.isArray(effects)) throw new Invalid("effects must be an array")
    const merges = effects.map(checkEffect)
    for (const merge of merges) {
      if (merge !== undefined) {
        current = { ...current, tool: { ...current.tool, input: { ...current.tool.input, ...merge } } }
      }
    }
  }
  return current
}

/** Ours and the baseline over `count` interceptors built by `handler`. */
export interface ChainPair {
  readonly ours: Batch
  readonly baseline: Batch
  /** The baseline with structural request copies. */
  readonly structuralBaseline: Batch
  readonly close: () => Promise<void>
}

/** Builds the pair for `count` interceptors and an event of about `bytes`. */
export const chainPair = async (
  count: number,
  handler: (index: number) => fixtures.Handler,
  bytes: number
): Promise<ChainPair> => {
  const handlers = Array.from({ length: count }, (_, i) => handler(i))
  const backends = Object.fromEntries(handlers.map((h, i) => [fixtures.backendId(i), fixtures.inProcess(h)]))
  const registration = fixtures.registration(handlers.map((_, i) => fixtures.inProcessTransport(i)))
  const runtime = fixtures.inProcessHooks(registration, backends)
  const hooks = await runtime.runPromise(Hooks.Hooks)
  const event = fixtures.toolBefore(bytes)

  const once = hooks.dispatchUnknown("tool.before", event)
  const ours = timeEffect(runtime, once)
  const baseline: Batch = async (ops) => timeSync(ops, () => minimalChain(handlers, event))
  const structuralBaseline: Batch = async (ops) => timeSync(ops, () => minimalChain(handlers, event, structural))

  const result = await runtime.runPromise(once)
  if (
    !Json.equals(result.event, minimalChain(handlers, event)) ||
    !Json.equals(result.event, minimalChain(handlers, event, structural)) ||
    result.errors.length > 0
  ) {
    throw new Error(`ours and the baseline disagree for ${count} interceptors`)
  }
  return { ours, baseline, structuralBaseline, close: () => runtime.dispose() }
}

/**
 * The family: 1, 3 and 10 interceptors, answering no effect and a modify merge, against
 * the baseline (targeted) and against the structural-copy baseline (no target).
 */
export const run = async (pace: Pace): Promise<Array<Row>> => {
  const rows: Array<Row> = []
  const reference: Array<Row> = []
  for (const [label, handler] of [["no effect", fixtures.noEffect], ["modify merge", fixtures.modifyMerge]] as const) {
    for (const count of [1, 3, 10]) {
      const pair = await chainPair(count, handler, fixtures.KiB)
      const name = `in-process ${count} interceptor(s), ${label}, 1 KiB`
      const paced = { ...pace, ops: Math.max(20, Math.round(pace.ops / count)) }
      try {
        rows.push(throughputRow(name, await compare(pair.ours, pair.baseline, paced), 3))
        reference.push(
          throughputRow(`${name}, structural-copy baseline`, await compare(pair.ours, pair.structuralBaseline, paced))
        )
      } finally {
        await pair.close()
      }
    }
  }
  return [...rows, ...reference]
}
