import { Hooks, Transport } from "@effect-ahp/harness"
import type { HookEffect, Json, JsonRpc } from "@effect-ahp/protocol"
import { Data, Deferred, Duration, Effect, Layer, Scope } from "effect"

/** A message a backend received: method, subscription-visible event and capabilities. */
export interface Received {
  readonly backend: string
  readonly method: string
  readonly event: any
  readonly capabilities: any
}

/** What a scripted in-process backend does with one intercept request. */
export type Script = (request: any, n: number) => Effect.Effect<Json.JsonValue, Transport.TransportError>

/** Answers with these effects. */
export const answer = (...effects: ReadonlyArray<HookEffect.HookEffect | Json.JsonValue>): Script => (request) =>
  Effect.succeed({
    jsonrpc: "2.0",
    id: request.id,
    result: { protocolVersion: "draft", effects: effects as Json.JsonValue }
  })

/** Answers with an arbitrary raw response built from the request. */
export const raw = (build: (request: any) => Json.JsonValue): Script => (request) => Effect.succeed(build(request))

/** A recording backend set: scripts per backend id, every received message logged in order. */
export const backends = (scripts: Record<string, Script>) => {
  const log: Array<Received> = []
  const counts = new Map<string, number>()
  const table: Record<string, JsonRpc.InProcessBackend<Transport.TransportError>> = {}
  for (const [id, script] of Object.entries(scripts)) {
    table[id] = {
      request: (message) =>
        Effect.suspend(() => {
          const params = message.params as any
          log.push({
            backend: id,
            method: String(message.method),
            event: params.event,
            capabilities: params.capabilities
          })
          const n = counts.get(id) ?? 0
          counts.set(id, n + 1)
          return script(message, n)
        }),
      notify: (message) =>
        Effect.sync(() => {
          const params = message.params as any
          log.push({ backend: id, method: String(message.method), event: params.event, capabilities: undefined })
        })
    }
  }
  return { log, layer: Transport.layerInProcess(table) }
}

/** An intercept subscription. */
export const intercept = (events: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => ({
  events,
  mode: "intercept",
  timeoutMs: 1000,
  failurePolicy: "fail-open",
  content: { default: "body" },
  ...extra
})

/** An observe subscription. */
export const observe = (events: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => ({
  events,
  mode: "observe",
  content: { default: "body" },
  ...extra
})

/** A registration with one http backend per entry (transport type is irrelevant in-process). */
export const registration = (
  hooks: ReadonlyArray<{ readonly id: string; readonly subscriptions: ReadonlyArray<unknown> }>
) => ({
  protocolVersion: "draft",
  hooks: hooks.map((h) => ({
    id: h.id,
    transport: { type: "http", url: `https://${h.id}.invalid/hooks` },
    subscriptions: h.subscriptions
  }))
})

/** A tool.before input. */
export const toolBefore = (input: Json.JsonObject = { command: "ls" }) => ({
  id: "evt_1",
  session: { id: "sess_1" },
  tool: { name: "Bash", kind: "shell", input, origin: "native" as const },
  call: { id: "call_1" },
  path: "native"
})

/** Runs an effect needing Hooks against a registration and scripted backends. */
export const withHooks = <A, E>(
  reg: unknown,
  layer: Layer.Layer<Transport.Transports>,
  effect: Effect.Effect<A, E, Hooks.Hooks>,
  options?: Hooks.Options
) => Effect.provide(effect, Hooks.layerUnknown(reg, options).pipe(Layer.provide(layer)))

/** The failure of `within`. */
export class Held extends Data.TaggedError("Held")<{ readonly what: string }> {}

/** Fails with `Held` when `effect` takes longer than `millis` (real time). */
export const within = <A, E, R>(millis: number, what: string, effect: Effect.Effect<A, E, R>) =>
  Effect.timeoutFail(effect, { duration: Duration.millis(millis), onTimeout: () => new Held({ what }) })

/**
 * Builds the Hooks service in a scope the test closes itself (to observe what closing
 * waits for); `dispatch` runs a `tool.before` call through it.
 */
export const openHooks = (reg: unknown, layer: Layer.Layer<Transport.Transports>, options?: Hooks.Options) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const hooks = yield* Layer.buildWithScope(Hooks.layerUnknown(reg, options).pipe(Layer.provide(layer)), scope)
    const dispatch = (dispatchOptions?: Hooks.DispatchOptions) =>
      Effect.provide(Hooks.dispatch("tool.before", toolBefore(), dispatchOptions), hooks)
    return { scope, dispatch }
  })

/**
 * An exchange that signals `started`, never completes, and whose interruption is held
 * until `gate` (if any) opens; `state.retired` counts the interruptions that ended.
 */
export const heldExchange = (started: Deferred.Deferred<void>, gate?: Deferred.Deferred<void>) => {
  const state = { retired: 0 }
  const run = Deferred.succeed(started, undefined).pipe(
    Effect.zipRight(Effect.never),
    Effect.onInterrupt(() =>
      Effect.zipRight(gate === undefined ? Effect.void : Deferred.await(gate), Effect.sync(() => state.retired++))
    )
  )
  return { state, run }
}
