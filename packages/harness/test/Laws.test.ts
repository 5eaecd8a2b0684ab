/**
 * The settlement laws the README states, each checked as a property with the public
 * arbitraries, against both the harness chain and the plain-Effect reference chain
 * (`ReferenceChain.ts`), under the test clock and the live clock; the two chains must
 * also agree exactly.
 */
import { Boundary, Chain, Grant, Registry, Settlement, Staging, Transport, Uploads } from "@effect-ahp/harness"
import { Arbitraries, Capabilities, Decoder, Event, HookEffect, Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, FastCheck as fc, Fiber, Ref, Supervisor, TestClock } from "effect"
import { scaled } from "../../../test/support/load.js"
import { makeOwner } from "../src/internal/retire.js"
import * as ReferenceChain from "./ReferenceChain.js"
import { intercept, registration, toolBefore } from "./support.js"

const granted = Grant.full().events["tool.before"]!.intercept!
const boundary = Boundary.of("tool.before")
const input: Json.JsonObject = { command: "ls" }
const event: Json.JsonObject = {
  ...toolBefore(input),
  type: "tool.before",
  source: "urn:test:laws",
  time: "2026-01-01T00:00:00Z"
} as unknown as Json.JsonObject

type Policy = "fail-open" | "fail-closed"
type Step =
  | { readonly kind: "respond"; readonly effects: ReadonlyArray<HookEffect.HookEffect>; readonly policy: Policy }
  | { readonly kind: "reject"; readonly response: Json.JsonValue; readonly policy: Policy }
  | { readonly kind: "fail"; readonly policy: Policy }
  | { readonly kind: "hang"; readonly policy: Policy }

const policy = fc.constantFrom<Policy>("fail-open", "fail-closed")
const validEffects = Arbitraries.effects("tool.before", granted, { maxLength: 3 })
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant("respond" as const), effects: validEffects, policy }) },
  {
    weight: 2,
    arbitrary: fc.record({
      kind: fc.constant("reject" as const),
      response: Arbitraries.invalidResponse(event.id!, { valid: validEffects, granted }),
      policy
    })
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("fail" as const), policy }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant("hang" as const), policy }) }
)
const stepsArb = fc.array(stepArb, { minLength: 1, maxLength: 5 })

const ids = (n: number) => Array.from({ length: n }, (_, i) => `com.example.b${i}`)

/** A hanging backend's deadline; every other backend answers at once, well within 10 s. */
const hangMillis = 30

interface Outcome {
  readonly calls: ReadonlyArray<string>
  readonly maxInFlight: number
  readonly progress: Chain.Progress
  readonly decision: Settlement.Decision
  readonly liveFibers: number
}

type Run = (input: Chain.Input, progress: Ref.Ref<Chain.Progress>) => Effect.Effect<void>

/** Runs one chain over scripted in-process backends; counts the fibers still alive once it is over. */
const runChain = (run: Run, steps: ReadonlyArray<Step>, clock: "test" | "live") =>
  Effect.gen(function*() {
    const backendIds = ids(steps.length)
    const reg = registration(backendIds.map((id, i) => ({
      id,
      subscriptions: [
        intercept(["tool.before"], {
          timeoutMs: steps[i]!.kind === "hang" ? hangMillis : 10_000,
          failurePolicy: steps[i]!.policy
        })
      ]
    })))
    const registry = Either.getOrThrow(Registry.compile(reg, Grant.full()))
    const calls: Array<string> = []
    let inFlight = 0
    let maxInFlight = 0
    const endpoint = (route: Registry.Route): Effect.Effect<Transport.Endpoint, Transport.TransportError> => {
      const step = steps[backendIds.indexOf(route.backend.id)]!
      return Effect.succeed({
        notify: () => Effect.void,
        request: (message) =>
          Effect.gen(function*() {
            inFlight++
            maxInFlight = Math.max(maxInFlight, inFlight)
            calls.push(route.backend.id)
            yield* Effect.yieldNow()
            switch (step.kind) {
              case "respond":
                return Arbitraries.response(message.id!, step.effects)
              case "reject":
                return step.response
              case "fail":
                return yield* Effect.fail(new Transport.TransportError({ reason: "io", detail: "broken" }))
              case "hang":
                return yield* Effect.never
            }
          }).pipe(Effect.ensuring(Effect.sync(() => inFlight--)))
      })
    }
    const supervisor = yield* Supervisor.track
    const progress = yield* Ref.make(Chain.start(event, Settlement.initial()))
    const chain = Effect.scoped(Effect.flatMap(makeOwner, (retiring) =>
      run({
        boundary,
        routes: registry.routes("tool.before").intercept,
        endpoint,
        capabilities: granted,
        allowance: { remaining: 3, count: 0 },
        prepare: () =>
          Effect.fail(new Uploads.UploadError({ reason: "upload-unconfigured", detail: "no uploads here" })),
        retiring
      }, progress)))
    if (clock === "live") yield* Effect.supervised(chain, supervisor)
    else {
      const fiber = yield* Effect.fork(Effect.supervised(chain, supervisor))
      while (fiber.unsafePoll() === null) yield* TestClock.adjust(hangMillis)
      yield* Fiber.join(fiber)
    }
    const final = yield* Ref.get(progress)
    const live = yield* supervisor.value
    return {
      calls,
      maxInFlight,
      progress: final,
      decision: Settlement.settle(final.state),
      liveFibers: live.length
    } satisfies Outcome
  })

const isDeny = (e: HookEffect.HookEffect) => e.type === "deny"
const isStop = (e: HookEffect.HookEffect) => e.type === "flow" && e.operation === "stop"
const shortCircuits = (s: Step) =>
  s.kind === "respond" ? s.effects.some((e) => isDeny(e) || isStop(e)) : s.policy === "fail-closed"

/** The tool input after one response's modifications, in order. */
const edited = (before: Json.JsonObject, effects: ReadonlyArray<HookEffect.HookEffect>): Json.JsonObject =>
  effects.reduce<Json.JsonObject>(
    (current, e) =>
      e.type === "modify"
        ? (e.operation === "merge" ? { ...current, ...(e.value as Json.JsonObject) } : (e.value as Json.JsonObject))
        : current,
    before
  )

/** Checks every settlement law on one run. */
const checkLaws = (steps: ReadonlyArray<Step>, outcome: Outcome) => {
  const { decision } = outcome
  // Serial order and short-circuit: exactly the routes up to the first deny, flow stop or
  // fail-closed failure are called, in registration order, one at a time.
  const stop = steps.findIndex(shortCircuits)
  const reached = stop === -1 ? steps : steps.slice(0, stop + 1)
  assert.deepStrictEqual(outcome.calls, ids(reached.length))
  assert.strictEqual(outcome.maxInFlight, 1)
  // No fiber outlives the chain.
  assert.strictEqual(outcome.liveFibers, 0)
  // Atomicity: a rejected response, a failure or a timeout contributes no effect (not even
  // the valid deny hidden in a rejected list); each is one recorded failure.
  const responses = reached.flatMap((s) => (s.kind === "respond" ? [s.effects] : []))
  assert.strictEqual(outcome.progress.failures.length, reached.filter((s) => s.kind !== "respond").length)
  const effects = responses.flat()
  // Deny: exactly when a reached response denied or a reached failure was fail-closed.
  const denied = reached.some((s) => s.kind === "respond" ? s.effects.some(isDeny) : s.policy === "fail-closed")
  assert.strictEqual(decision.permission === "deny", denied)
  if (denied) {
    const last = reached[reached.length - 1]!
    // Fail-closed: a synthetic denial with the generic reason, never backend text.
    assert.strictEqual(decision.denial?.synthetic, last.kind !== "respond")
    const first = last.kind === "respond" ? last.effects.find(isDeny) : undefined
    assert.strictEqual(
      decision.denial?.reason,
      first?.type === "deny" ? first.reason : Settlement.syntheticDenialReason
    )
  }
  // Flow: stop when any reached response stopped.
  const stopped = effects.some(isStop)
  assert.strictEqual(decision.flow, stopped ? "stop" : "none")
  // The effective operation and authorization binding.
  let current = input
  const changedAt: Array<boolean> = []
  for (const r of responses) {
    const next = edited(current, r)
    changedAt.push(!Json.equals(current, next))
    current = next
  }
  assert.deepStrictEqual((outcome.progress.event.tool as Json.JsonObject).input, current)
  const unchangedAfter = (j: number) => !changedAt.slice(j + 1).some((c) => c)
  if (!denied) {
    // Ask beats allow and persists; an allow survives only if no later response changed the operation.
    const asked = effects.some((e) => e.type === "ask")
    const allowed = responses.some((r, j) => r.some((e) => e.type === "allow") && unchangedAfter(j))
    assert.strictEqual(decision.permission, asked ? "ask" : allowed ? "allow" : "none")
  }
  // Supplied results: the last return, if no later response changed the operation, and
  // only when neither denied nor stopped.
  const lastReturn = responses.reduce<{ readonly j: number; readonly value: Json.JsonValue } | undefined>(
    (found, r, j) => {
      const returns = r.filter((e) => e.type === "return")
      const last = returns[returns.length - 1]
      return last?.type === "return" ? { j, value: last.value } : found
    },
    undefined
  )
  const candidate = !denied && !stopped && lastReturn !== undefined && unchangedAfter(lastReturn.j)
    ? lastReturn.value
    : undefined
  assert.deepStrictEqual(decision.candidate?.value, candidate)
  // No effect is not permission: nothing accepted, nothing decided.
  if (effects.length === 0 && !denied) {
    assert.strictEqual(decision.permission, "none")
    assert.strictEqual(decision.candidate, undefined)
  }
  // Messages accumulate in acceptance order.
  assert.deepStrictEqual(decision.messages, effects.flatMap((e) => (e.type === "message" ? [e.text] : [])))
}

/** What two runs must agree on. */
const summary = (o: Outcome) => ({
  calls: o.calls,
  event: o.progress.event,
  called: [...o.progress.called].sort(),
  failures: o.progress.failures.map((f) => [f.backend, f.phase, f.code, f.path ?? ""]),
  continued: o.progress.continued,
  decision: o.decision
})

const chains: ReadonlyArray<readonly [string, Run]> = [["harness chain", Chain.run], [
  "reference chain",
  ReferenceChain.run
]]

describe("settlement laws", () => {
  for (const [name, run] of chains) {
    it.effect.prop(
      `${name}, test clock`,
      [stepsArb],
      ([steps]) => Effect.map(runChain(run, steps, "test"), (o) => checkLaws(steps, o)),
      {
        fastCheck: { numRuns: 40 },
        timeout: scaled(120_000)
      }
    )
    it.live.prop(
      `${name}, live clock`,
      [stepsArb],
      ([steps]) => Effect.map(runChain(run, steps, "live"), (o) => checkLaws(steps, o)),
      {
        fastCheck: { numRuns: 25 },
        timeout: scaled(120_000)
      }
    )
  }

  it.effect.prop("the harness chain and the reference agree exactly", [stepsArb], ([steps]) =>
    Effect.gen(function*() {
      const fast = yield* runChain(Chain.run, steps, "test")
      const reference = yield* runChain(ReferenceChain.run, steps, "test")
      assert.deepStrictEqual(summary(fast), summary(reference))
    }), { fastCheck: { numRuns: 40 }, timeout: scaled(120_000) })

  it("the test event is a valid tool.before event", () => {
    assert.isTrue(Either.isRight(Decoder.make(Event.ToolBefore)(event)))
  })
})

describe("settlement laws over accepted responses (pure)", () => {
  const provenance = { backend: "com.example.b", subscription: "0", requestId: "evt_1" }
  const interceptable = ["tool.before", "tool.after", "turn.finish.before", "model.request.before"] as const
  const scenario = fc.constantFrom(...interceptable).chain((type) => {
    const caps = Grant.boundaryCapabilities(Boundary.of(type), 3)
    return fc.tuple(
      fc.constant(type),
      fc.array(Arbitraries.effects(type, caps, { maxLength: 4 }), { maxLength: 4 }),
      fc.boolean()
    )
  })

  it.prop(
    "permission, flow, supplied results and accumulation follow the laws; interruption never grants",
    [scenario],
    ([[, responses, interrupted]]) => {
      const state = responses.reduce(
        (current, effects) => Settlement.accept(current, { effects, operationChanged: false }, provenance),
        Settlement.initial()
      )
      const decision = Settlement.settle(state, { interrupted })
      const all = responses.flat()
      const has = (p: (e: HookEffect.HookEffect) => boolean) => all.some(p)
      const denied = has(isDeny)
      const stopped = has(isStop)
      const continued = has((e) => e.type === "flow" && e.operation === "continue")
      // deny > ask > allow > none; ask persists despite a later allow; interruption drops an allow.
      const permission = denied
        ? "deny"
        : has((e) => e.type === "ask")
        ? "ask"
        : has((e) => e.type === "allow")
        ? "allow"
        : "none"
      assert.strictEqual(decision.permission, interrupted && permission === "allow" ? "none" : permission)
      // Stop beats continue in either order; one continuation step consumes one allowance unit.
      const flow = stopped ? "stop" : continued && !interrupted ? "continue" : "none"
      assert.strictEqual(decision.flow, flow)
      assert.strictEqual(decision.continuationsConsumed, flow === "continue" ? 1 : 0)
      assert.deepStrictEqual(
        decision.instructions,
        all.flatMap((
          e
        ) => (e.type === "flow" && e.operation === "continue" && e.instruction !== undefined ? [e.instruction] : []))
      )
      // The last return is the candidate, unless denied, stopped or interrupted.
      const returns = all.filter((e) => e.type === "return")
      const last = returns[returns.length - 1]
      assert.deepStrictEqual(
        decision.candidate?.value,
        denied || stopped || interrupted || last?.type !== "return" ? undefined : last.value
      )
      // Messages and injections accumulate in acceptance order.
      assert.deepStrictEqual(decision.messages, all.flatMap((e) => (e.type === "message" ? [e.text] : [])))
      assert.deepStrictEqual(decision.injections.length, all.filter((e) => e.type === "inject").length)
    },
    { fastCheck: { numRuns: 400 } }
  )
})

describe("laws at the protocol level", () => {
  it.prop("every invalid response is rejected whole, whatever valid deny it carries", [
    Arbitraries.invalidResponse("evt_1", { valid: validEffects, granted })
  ], ([response]) => {
    const staged = Staging.stage(response, {
      requestId: "evt_1",
      boundary,
      capabilities: granted,
      view: { hiddenTextTargets: new Set(), unreadableTargets: new Set() },
      selection: { default: "body" },
      event
    })
    assert.isTrue(Either.isLeft(staged))
  }, { fastCheck: { numRuns: 200 }, timeout: scaled(60_000) })

  const types = [
    "tool.before",
    "tool.after",
    "turn.finish.before",
    "model.request.before",
    "user.message.outbound"
  ] as const
  const decodeEffect = Decoder.make(HookEffect.HookEffect, { onExcessProperty: "error" })
  it.prop(
    "generated effects are well formed and granted by the capabilities they were drawn for; ungranted ones are not",
    [
      fc.constantFrom(...types).chain((type) =>
        Arbitraries.capabilities(type).filter((c) => c.effects.length > 0).chain((caps) =>
          fc.tuple(fc.constant(caps), Arbitraries.effects(type, caps), Arbitraries.ungrantedEffect(caps))
        )
      )
    ],
    ([[caps, good, bad]]) => {
      for (const e of good) {
        assert.isTrue(Either.isRight(decodeEffect(e)), JSON.stringify(e))
        assert.isUndefined(Capabilities.grantProblem(caps, e))
      }
      assert.isDefined(Capabilities.grantProblem(caps, bad))
    },
    { fastCheck: { numRuns: 100 }, timeout: scaled(60_000) }
  )
})
