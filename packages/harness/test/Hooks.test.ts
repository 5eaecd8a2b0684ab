import { Grant, Hooks, Transport } from "@effect-ahp/harness"
import type { JsonRpc } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Config, ConfigError, ConfigProvider, Deferred, Effect, Exit, Fiber, Layer, Scope, TestClock } from "effect"
import { answer, backends, intercept, observe, raw, registration, toolBefore, withHooks } from "./support.js"

const A = "com.example.a"
const B = "com.example.b"
const C = "com.example.c"

describe("AHP-COMP-001 interceptor order", () => {
  it.effect("matching interceptors run serially in registration order (hooks order, then subscription order)", () => {
    const { layer, log } = backends({ [A]: answer(), [B]: answer() })
    const reg = registration([
      { id: B, subscriptions: [intercept(["tool.before"]), intercept(["tool.*"])] },
      { id: A, subscriptions: [intercept(["*"])] }
    ])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.deepStrictEqual(log.map((r) => r.backend), [B, B, A])
      assert.strictEqual(result.decision.permission, "none")
      assert.deepStrictEqual(result.errors, [])
    }))
  })

  it.effect("a result with no effects proceeds to the next interceptor and is not permission", () => {
    const { layer, log } = backends({ [A]: answer(), [B]: answer() })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }, {
      id: B,
      subscriptions: [intercept(["tool.before"])]
    }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.strictEqual(log.length, 2)
      assert.strictEqual(result.decision.permission, "none")
      assert.isUndefined(result.decision.candidate)
    }))
  })

  it.effect("an accepted deny refuses the operation and stops decision-making", () => {
    const { layer, log } = backends({ [A]: answer({ type: "deny", reason: "destructive" }), [B]: answer() })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }, {
      id: B,
      subscriptions: [intercept(["tool.before"])]
    }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.strictEqual(result.decision.permission, "deny")
      assert.strictEqual(result.decision.denial?.reason, "destructive")
      assert.isFalse(result.decision.denial?.synthetic)
      assert.deepStrictEqual(log.map((r) => [r.backend, r.method]), [[A, "hooks/intercept"], [B, "hooks/observe"]])
    }))
  })

  it.effect("an accepted flow stop ends decision-making", () => {
    const { layer, log } = backends({
      [A]: answer({ type: "flow", operation: "stop", reason: "enough" }),
      [B]: answer()
    })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }, {
      id: B,
      subscriptions: [intercept(["tool.before"])]
    }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.strictEqual(result.decision.flow, "stop")
      assert.strictEqual(result.decision.stopReason, "enough")
      assert.deepStrictEqual(log.filter((r) => r.method === "hooks/intercept").map((r) => r.backend), [A])
    }))
  })

  it.effect("fail-open records the failure and goes on with the state unchanged", () => {
    const { layer, log } = backends({
      [A]: () => Effect.fail(new Transport.TransportError({ reason: "exited", detail: "backend exited" })),
      [B]: answer({ type: "ask" })
    })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }, {
      id: B,
      subscriptions: [intercept(["tool.before"])]
    }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.strictEqual(log.length, 2)
      assert.strictEqual(result.decision.permission, "ask")
      assert.strictEqual(result.errors.length, 1)
      const [error] = result.errors
      assert.deepStrictEqual([error!.backend, error!.subscription, error!.phase, error!.code, error!.syntheticDenial], [
        A,
        "0",
        "transport",
        "exited",
        false
      ])
    }))
  })

  it.effect("fail-closed stops the chain with a synthetic denial marked as such", () => {
    const { layer, log } = backends({ [A]: raw(() => "garbage"), [B]: answer() })
    const reg = registration([
      { id: A, subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-closed", id: "guard" })] },
      { id: B, subscriptions: [intercept(["tool.before"])] }
    ])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.strictEqual(result.decision.permission, "deny")
      assert.isTrue(result.decision.denial?.synthetic)
      assert.strictEqual(result.errors[0]?.subscription, "guard")
      assert.strictEqual(result.errors[0]?.code, "malformed-response")
      assert.isTrue(result.errors[0]?.syntheticDenial)
      assert.deepStrictEqual(log.map((r) => [r.backend, r.method]), [[A, "hooks/intercept"], [B, "hooks/observe"]])
    }))
  })

  it.effect("an explicit deny denies under fail-open too", () => {
    const { layer } = backends({ [A]: answer({ type: "deny", reason: "no" }) })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-open" })] }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.strictEqual(result.decision.permission, "deny")
      assert.isFalse(result.decision.denial?.synthetic)
    }))
  })
})

describe("AHP-EDIT-001 atomic acceptance and chaining", () => {
  it.effect("a valid deny inside an invalid list is not salvaged; earlier accepted responses survive", () => {
    const { layer } = backends({
      [A]: answer({ type: "message", text: "from a" }),
      [B]: answer({ type: "deny", reason: "no" }, {
        type: "modify",
        target: "input",
        operation: "merge",
        value: { x: 1 },
        extra: true
      }),
      [C]: answer()
    })
    const reg = registration([
      { id: A, subscriptions: [intercept(["tool.before"])] },
      { id: B, subscriptions: [intercept(["tool.before"])] },
      { id: C, subscriptions: [intercept(["tool.before"])] }
    ])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.strictEqual(result.decision.permission, "none")
      assert.deepStrictEqual(result.decision.messages, ["from a"])
      assert.deepStrictEqual(result.event.tool, toolBefore().tool)
      assert.strictEqual(result.errors[0]?.code, "unknown-effect-field")
      assert.strictEqual(result.errors[0]?.path, "/result/effects/1/extra")
    }))
  })

  it.effect("each interceptor receives the accepted effective content of its predecessors", () => {
    const { layer, log } = backends({
      [A]: answer({ type: "modify", target: "input", operation: "merge", value: { command: "ls -la", added: null } }),
      [B]: answer({ type: "modify", target: "input", operation: "replace", value: { command: "pwd" }, bogus: 1 }),
      [C]: answer()
    })
    const reg = registration([
      { id: A, subscriptions: [intercept(["tool.before"])] },
      { id: B, subscriptions: [intercept(["tool.before"])] },
      { id: C, subscriptions: [intercept(["tool.before"])] }
    ])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore({ command: "ls", keep: 1 }))).pipe(
      Effect.map((result) => {
        assert.deepStrictEqual(log[1]!.event.tool.input, { command: "ls -la", keep: 1, added: null })
        assert.deepStrictEqual(log[2]!.event.tool.input, { command: "ls -la", keep: 1, added: null })
        assert.deepStrictEqual(result.event.tool, {
          ...toolBefore().tool,
          input: { command: "ls -la", keep: 1, added: null }
        })
      })
    )
  })

  it.effect("within one response modifications apply before its return is bound, whatever the order", () => {
    const { layer } = backends({
      [A]: answer({ type: "allow" }, { type: "return", value: "cached" }),
      [B]: answer({ type: "return", value: "fresh" }, {
        type: "modify",
        target: "input",
        operation: "merge",
        value: { command: "ls -1" }
      })
    })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }, {
      id: B,
      subscriptions: [intercept(["tool.before"])]
    }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.strictEqual(result.decision.candidate?.value, "fresh")
      assert.strictEqual(result.decision.permission, "none")
      assert.deepStrictEqual(result.decision.effects.map((a) => a.effect.type), ["return", "modify"])
    }))
  })

  it.effect("a deeply equal modification keeps an earlier allow and candidate", () => {
    const { layer } = backends({
      [A]: answer({ type: "allow" }, { type: "return", value: 1 }),
      [B]: answer({ type: "modify", target: "input", operation: "replace", value: { command: "ls" } })
    })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }, {
      id: B,
      subscriptions: [intercept(["tool.before"])]
    }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.strictEqual(result.decision.permission, "allow")
      assert.strictEqual(result.decision.candidate?.value, 1)
    }))
  })

  it.effect("an edit that nets out to no change keeps an earlier allow and candidate (authorization binds to the effective input)", () => {
    const { layer } = backends({
      [A]: answer({ type: "allow" }, { type: "return", value: 1 }),
      [B]: answer(
        { type: "modify", target: "input", operation: "merge", value: { x: 2 } },
        { type: "modify", target: "input", operation: "merge", value: { x: 1 } }
      ),
      [C]: answer({ type: "modify", target: "input", operation: "merge", value: { x: 3 } }, {
        type: "message",
        text: "changed"
      })
    })
    const twoSteps = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }, {
      id: B,
      subscriptions: [intercept(["tool.before"])]
    }])
    const kept = withHooks(twoSteps, layer, Hooks.dispatch("tool.before", toolBefore({ x: 1 }))).pipe(
      Effect.map((result) => {
        assert.deepStrictEqual((result.event.tool as any).input, { x: 1 })
        assert.strictEqual(result.decision.permission, "allow")
        assert.strictEqual(result.decision.candidate?.value, 1)
        assert.deepStrictEqual(result.decision.effects.map((a) => a.effect.type), [
          "allow",
          "return",
          "modify",
          "modify"
        ])
      })
    )
    const threeSteps = registration([
      { id: A, subscriptions: [intercept(["tool.before"])] },
      { id: B, subscriptions: [intercept(["tool.before"])] },
      { id: C, subscriptions: [intercept(["tool.before"])] }
    ])
    const dropped = withHooks(threeSteps, layer, Hooks.dispatch("tool.before", toolBefore({ x: 1 }))).pipe(
      Effect.map((result) => {
        assert.deepStrictEqual((result.event.tool as any).input, { x: 3 })
        assert.strictEqual(result.decision.permission, "none")
        assert.isUndefined(result.decision.candidate)
      })
    )
    return Effect.zipRight(kept, dropped)
  })

  it.effect("deny > ask > allow and ask survives a later allow", () => {
    const { layer } = backends({ [A]: answer({ type: "ask" }), [B]: answer({ type: "allow" }) })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }, {
      id: B,
      subscriptions: [intercept(["tool.before"])]
    }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.strictEqual(result.decision.permission, "ask")
    }))
  })

  it.effect("list merge appends, list replace substitutes (tool.after output)", () => {
    const part = (id: string, text: string) => ({ id, kind: "text", mediaType: "text/plain", selection: "body", text })
    const msg = (id: string, text: string) => ({ id, role: "tool", parts: [part(`${id}p`, text)] })
    const { layer } = backends({
      [A]: answer({
        type: "modify",
        target: "output",
        operation: "merge",
        value: [msg("m2", "appended"), msg("m2", "appended")]
      }),
      [B]: answer({ type: "modify", target: "output", operation: "replace", value: [msg("m3", "[redacted]")] })
    })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.after"])] }, {
      id: B,
      subscriptions: [intercept(["tool.after"])]
    }])
    const input = { ...toolBefore(), outcome: "ok", execution: { status: "executed" }, items: [msg("m1", "secret")] }
    return withHooks(reg, layer, Hooks.dispatchUnknown("tool.after", input as any)).pipe(Effect.map((result) => {
      assert.deepStrictEqual(result.errors, [])
      assert.deepStrictEqual(result.event.items, [msg("m3", "[redacted]")])
    }))
  })

  it.effect("a whole-list replace over hidden text is not advertised and is rejected; merge still works", () => {
    const hidden = {
      id: "m1",
      role: "tool",
      parts: [{ id: "p", kind: "text", mediaType: "text/plain", selection: "body", text: "secret" }]
    }
    const { layer, log } = backends({
      [A]: answer({ type: "modify", target: "output", operation: "replace", value: [] }),
      [B]: answer({
        type: "modify",
        target: "output",
        operation: "merge",
        value: [{ id: "m2", role: "tool", parts: [] }]
      })
    })
    const reg = registration([
      { id: A, subscriptions: [intercept(["tool.after"], { content: { default: "metadata" } })] },
      { id: B, subscriptions: [intercept(["tool.after"], { content: { default: "metadata" } })] }
    ])
    const input = { ...toolBefore(), outcome: "ok", execution: { status: "executed" }, items: [hidden] }
    return withHooks(reg, layer, Hooks.dispatch("tool.after", input as any)).pipe(Effect.map((result) => {
      assert.deepStrictEqual(log[0]!.capabilities.modify.output, { replace: false, merge: true })
      assert.deepStrictEqual(log[0]!.event.items[0].parts[0], {
        id: "p",
        kind: "text",
        mediaType: "text/plain",
        selection: "metadata"
      })
      assert.strictEqual(result.errors[0]?.code, "ungranted-operation")
      assert.deepStrictEqual((result.event.items as any).map((m: any) => m.id), ["m1", "m2"])
      assert.strictEqual((result.event.items as any)[0].parts[0].text, "secret")
    }))
  })

  it.effect("a value of the wrong kind for the boundary rejects the whole response", () => {
    const { layer } = backends({
      [A]: answer({ type: "message", text: "hi" }, {
        type: "modify",
        target: "content",
        operation: "replace",
        value: { not: "messages" }
      })
    })
    const reg = registration([{ id: A, subscriptions: [intercept(["user.message.outbound"])] }])
    const input = { message: { channel: "chat", messages: [{ id: "m", role: "assistant", parts: [] }] } }
    return withHooks(reg, layer, Hooks.dispatchUnknown("user.message.outbound", input)).pipe(Effect.map((result) => {
      assert.strictEqual(result.errors[0]?.code, "invalid-value")
      assert.deepStrictEqual(result.decision.messages, [])
    }))
  })

  it.effect("an ungranted effect is a failure, never a silent no-op", () => {
    const { layer } = backends({ [A]: answer({ type: "allow" }) })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-closed" })] }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore(), { capabilities: { effects: ["deny"] } }))
      .pipe(Effect.map((result) => {
        assert.strictEqual(result.errors[0]?.code, "ungranted-effect")
        assert.strictEqual(result.decision.permission, "deny")
        assert.isTrue(result.decision.denial?.synthetic)
      }))
  })

  it.effect("a per-call narrowing can never widen the grant (nothing is sent)", () => {
    const { layer, log } = backends({ [A]: answer() })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }])
    return withHooks(
      reg,
      layer,
      Effect.exit(
        Hooks.dispatch("tool.before", toolBefore(), {
          capabilities: { effects: ["deny", "return", "modify"], modify: { output: { replace: true, merge: true } } }
        })
      )
    ).pipe(
      Effect.map((exit) => {
        assert.isTrue(Exit.isFailure(exit))
        assert.strictEqual(log.length, 0)
      })
    )
  })
})

describe("flow and continuation", () => {
  const finish = { turn: { id: "t1" }, outcome: "completed", continuationCount: 1, items: [] }
  it.effect("continue consumes one allowance; requests advertise the remaining allowance", () => {
    const { layer, log } = backends({
      [A]: answer({ type: "flow", operation: "continue", instruction: "one more" }),
      [B]: answer({ type: "flow", operation: "continue", instruction: "and this" }),
      [C]: answer({ type: "flow", operation: "continue" })
    })
    const reg = registration([
      { id: A, subscriptions: [intercept(["turn.finish.before"])] },
      { id: B, subscriptions: [intercept(["turn.finish.before"])] },
      { id: C, subscriptions: [intercept(["turn.finish.before"])] }
    ])
    return withHooks(
      reg,
      layer,
      Hooks.dispatchUnknown("turn.finish.before", finish, { continuation: { remaining: 2 } })
    ).pipe(Effect.map((result) => {
      assert.deepStrictEqual(log.map((r) => r.capabilities.flow.remainingContinuations), [2, 1, 1])
      assert.deepStrictEqual(log.map((r) => r.capabilities.flow.continuationCount), [1, 1, 1])
      assert.strictEqual(result.decision.flow, "continue")
      assert.deepStrictEqual(result.decision.instructions, ["one more", "and this"])
      assert.strictEqual(result.decision.continuationsConsumed, 1)
    }))
  })

  it.effect("an exhausted continuation allowance rejects the whole response", () => {
    const { layer } = backends({ [A]: answer({ type: "message", text: "x" }, { type: "flow", operation: "continue" }) })
    const reg = registration([{ id: A, subscriptions: [intercept(["turn.finish.before"])] }])
    return withHooks(
      reg,
      layer,
      Hooks.dispatchUnknown("turn.finish.before", finish, { continuation: { remaining: 0 } })
    ).pipe(Effect.map((result) => {
      assert.strictEqual(result.errors[0]?.code, "allowance-exhausted")
      assert.deepStrictEqual(result.decision.messages, [])
      assert.strictEqual(result.decision.flow, "none")
    }))
  })

  it.effect("inject values accumulate with their delivery point; messages accumulate", () => {
    const ctx = [{
      id: "c1",
      role: "developer",
      parts: [{ id: "cp", kind: "text", mediaType: "text/plain", selection: "body", text: "note" }]
    }]
    const { layer } = backends({
      [A]: answer({ type: "inject", target: "context", operation: "append", deliverAt: "now", value: ctx }, {
        type: "message",
        text: "a"
      }),
      [B]: answer({ type: "inject", target: "context", operation: "append", deliverAt: "next_turn", value: ctx }, {
        type: "message",
        text: "b"
      })
    })
    const reg = registration([{ id: A, subscriptions: [intercept(["turn.start"])] }, {
      id: B,
      subscriptions: [intercept(["turn.start"])]
    }])
    return withHooks(reg, layer, Hooks.dispatch("turn.start", { turn: { id: "t" }, trigger: "user", items: [] })).pipe(
      Effect.map((result) => {
        assert.deepStrictEqual(result.decision.injections, [{ deliverAt: "now", messages: ctx }, {
          deliverAt: "next_turn",
          messages: ctx
        }])
        assert.deepStrictEqual(result.decision.messages, ["a", "b"])
      })
    )
  })
})

describe("deadlines and interruption", () => {
  it.effect("the subscription deadline covers the whole exchange; fail-open goes on", () => {
    const { layer, log } = backends({ [A]: () => Effect.never, [B]: answer({ type: "ask" }) })
    const reg = registration([
      { id: A, subscriptions: [intercept(["tool.before"], { timeoutMs: 50 })] },
      { id: B, subscriptions: [intercept(["tool.before"])] }
    ])
    return Effect.gen(function*() {
      const fiber = yield* Effect.fork(withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())))
      yield* TestClock.adjust(60)
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.errors[0]?.code, "timeout")
      assert.strictEqual(result.decision.permission, "ask")
      assert.strictEqual(log.length, 2)
    })
  })

  it.effect("deadlines expire even when the host dispatches from an uninterruptible region", () => {
    const { layer } = backends({ [A]: () => Effect.never, [B]: answer({ type: "ask" }) })
    const reg = registration([
      { id: A, subscriptions: [intercept(["tool.before"], { timeoutMs: 50 })] },
      { id: B, subscriptions: [intercept(["tool.before"])] }
    ])
    return Effect.gen(function*() {
      const fiber = yield* Effect.fork(
        Effect.uninterruptible(withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())))
      )
      yield* TestClock.adjust(60)
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.errors[0]?.code, "timeout")
      assert.strictEqual(result.decision.permission, "ask")
    })
  })

  it.effect("interruption returns interrupted, starts no observation, adds no denial and never grants", () => {
    return Effect.gen(function*() {
      const stop = yield* Deferred.make<void>()
      const { layer, log } = backends({
        [A]: answer({ type: "allow" }, { type: "return", value: 1 }),
        [B]: () => Effect.zipRight(Deferred.succeed(stop, undefined), Effect.never)
      })
      const reg = registration([
        { id: A, subscriptions: [intercept(["tool.before"])] },
        { id: B, subscriptions: [intercept(["tool.before"], { failurePolicy: "fail-closed" })] },
        { id: C, subscriptions: [observe(["tool.before"])] }
      ])
      const result = yield* withHooks(
        reg,
        layer,
        Hooks.dispatch("tool.before", toolBefore(), { interrupt: Deferred.await(stop) })
      )
      assert.isTrue(result.interrupted)
      assert.strictEqual(result.decision.permission, "none")
      assert.isUndefined(result.decision.candidate)
      assert.isUndefined(result.decision.denial)
      assert.deepStrictEqual(result.observations, [])
      assert.isFalse(log.some((r) => r.method === "hooks/observe"))
    })
  })
})

describe("observation", () => {
  it.effect("explicit observers always receive the accepted effective event; overlapping subscriptions stay independent", () => {
    const { layer, log } = backends({
      [A]: answer({ type: "modify", target: "input", operation: "merge", value: { command: "ls -1" } }, {
        type: "allow"
      })
    })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"]), observe(["tool.*"])] }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.deepStrictEqual(log.map((r) => r.method), ["hooks/intercept", "hooks/observe"])
      assert.deepStrictEqual(log[1]!.event.tool.input, { command: "ls -1" })
      assert.deepStrictEqual(result.observations, [{
        backend: A,
        subscription: "1",
        mode: "observe",
        outcome: "delivered"
      }])
    }))
  })

  it.effect("observers never see a rejected candidate", () => {
    const { layer, log } = backends({
      [A]: answer({ type: "modify", target: "input", operation: "replace", value: { command: "rm -rf /" } }, {
        type: "nope"
      }),
      [B]: answer()
    })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }, {
      id: B,
      subscriptions: [observe(["tool.before"])]
    }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map(() => {
      const seen = log.find((r) => r.method === "hooks/observe")
      assert.deepStrictEqual(seen?.event.tool.input, { command: "ls" })
    }))
  })

  it.effect("slow observers are bounded and leave nothing running", () => {
    let running = 0
    const slow: JsonRpc.InProcessBackend<Transport.TransportError> = {
      request: () => Effect.never,
      notify: () =>
        Effect.acquireUseRelease(Effect.sync(() => running++), () => Effect.never, () => Effect.sync(() => running--))
    }
    const reg = registration([{ id: A, subscriptions: [observe(["tool.before"])] }])
    return Effect.gen(function*() {
      const fiber = yield* Effect.fork(
        withHooks(reg, Transport.layerInProcess({ [A]: slow }), Hooks.dispatch("tool.before", toolBefore()), {
          observationTimeoutMs: 100
        })
      )
      yield* TestClock.adjust(150)
      const result = yield* Fiber.join(fiber)
      assert.strictEqual(result.observations[0]?.outcome, "timeout")
      assert.strictEqual(running, 0)
    })
  })

  it.effect("with a host scope the decision returns at once and the scope owns the deliveries", () =>
    Effect.gen(function*() {
      const gate = yield* Deferred.make<void>()
      let delivered = 0
      const gated: JsonRpc.InProcessBackend<Transport.TransportError> = {
        request: () => Effect.never,
        notify: () => Effect.zipRight(Deferred.await(gate), Effect.sync(() => delivered++))
      }
      const reg = registration([{ id: A, subscriptions: [observe(["tool.before"])] }])
      const scope = yield* Scope.make()
      const result = yield* withHooks(
        reg,
        Transport.layerInProcess({ [A]: gated }),
        Hooks.dispatch("tool.before", toolBefore(), { observers: { scope } })
      )
      assert.deepStrictEqual(result.observations.map((o) => o.outcome), ["pending"])
      assert.strictEqual(delivered, 0)
      yield* Deferred.succeed(gate, undefined)
      const done = yield* result.observationsDone
      assert.deepStrictEqual(done.map((o) => o.outcome), ["delivered"])
      assert.strictEqual(delivered, 1)
      yield* Scope.close(scope, Exit.void)
    }))
})

describe("no decision step without a subscription", () => {
  it.effect("an event with no matching intercept subscription sends nothing", () => {
    const { layer, log } = backends({ [A]: answer({ type: "deny", reason: "x" }) })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.after"])] }])
    return withHooks(reg, layer, Hooks.dispatch("tool.before", toolBefore())).pipe(Effect.map((result) => {
      assert.strictEqual(log.length, 0)
      assert.strictEqual(result.decision.permission, "none")
    }))
  })
})

describe("boundary input", () => {
  it.effect("absent envelope members are filled in; present ones are validated, never replaced", () => {
    const { layer, log } = backends({ [A]: answer() })
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }])
    const { id: _id, ...withoutId } = toolBefore()
    return withHooks(
      reg,
      layer,
      Effect.gen(function*() {
        const filled = yield* Hooks.dispatch("tool.before", withoutId, undefined)
        assert.match(String(filled.event.id), /^evt_/)
        assert.strictEqual(filled.event.source, "urn:effect-ahp:harness")
        assert.strictEqual(log[0]!.event.id, filled.event.id)
        const bad = yield* Effect.flip(
          Hooks.dispatchUnknown("tool.before", { ...toolBefore(), id: 5, time: "yesterday" })
        )
        assert.strictEqual(bad._tag, "InvalidEvent")
        assert.deepStrictEqual(bad._tag === "InvalidEvent" ? bad.issues.map((i) => i.path).sort() : [], [
          "/id",
          "/time"
        ])
        assert.strictEqual(log.length, 1)
      })
    )
  })
})

describe("in-process isolation", () => {
  it.effect("a backend that mutates its request, or its answer afterwards, changes nothing in the harness", () => {
    let kept: any
    const meddler: JsonRpc.InProcessBackend<Transport.TransportError> = {
      request: (message: any) =>
        Effect.sync(() => {
          message.params.event.tool.input.command = "rm -rf /"
          message.params.capabilities.effects.length = 0
          kept = {
            jsonrpc: "2.0",
            id: message.id,
            result: { protocolVersion: "draft", effects: [{ type: "message", text: "seen" }] }
          }
          return kept
        }),
      notify: () => Effect.void
    }
    const reg = registration([{ id: A, subscriptions: [intercept(["tool.before"])] }, {
      id: B,
      subscriptions: [intercept(["tool.before"])]
    }])
    const input = toolBefore()
    const before = JSON.stringify(input)
    const seen: Array<unknown> = []
    const second: JsonRpc.InProcessBackend<Transport.TransportError> = {
      request: (message: any) =>
        Effect.sync(() => {
          kept.result.effects[0].text = "rewritten later"
          seen.push(message.params.event.tool.input.command, message.params.capabilities.effects.length > 0)
          return { jsonrpc: "2.0", id: message.id, result: { protocolVersion: "draft", effects: [] } }
        }),
      notify: () => Effect.void
    }
    return withHooks(reg, Transport.layerInProcess({ [A]: meddler, [B]: second }), Hooks.dispatch("tool.before", input))
      .pipe(
        Effect.map((result) => {
          assert.strictEqual(JSON.stringify(input), before)
          assert.deepStrictEqual(seen, [(input as any).tool.input.command, true])
          assert.deepStrictEqual(result.decision.messages, ["seen"])
          assert.deepStrictEqual(result.errors, [])
        })
      )
  })
})

describe("layers", () => {
  /** Builds `layer` under a configuration provider holding `entries`. */
  const fromMap = <A, E>(layer: Layer.Layer<A, E>, entries: ReadonlyArray<readonly [string, string]>) =>
    layer.pipe(Layer.provide(Layer.setConfigProvider(ConfigProvider.fromMap(new Map(entries)))))

  it.effect("layerConfig reads the registration from AHP_REGISTRATION by default", () => {
    const { layer, log } = backends({ [A]: answer({ type: "deny", reason: "configured" }) })
    const text = JSON.stringify(registration([{ id: A, subscriptions: [intercept(["tool.before"])] }]))
    return Hooks.dispatch("tool.before", toolBefore()).pipe(
      Effect.provide(fromMap(Hooks.layerConfig().pipe(Layer.provide(layer)), [["AHP_REGISTRATION", text]])),
      Effect.map((result) => {
        assert.strictEqual(result.decision.denial?.reason, "configured")
        assert.strictEqual(log.length, 1)
      })
    )
  })

  it.effect("layerConfig reads every option through its Config", () => {
    const { layer, log } = backends({ [A]: answer() })
    const text = JSON.stringify(registration([{ id: A, subscriptions: [intercept(["tool.before"])] }]))
    const configured = Hooks.layerConfig({
      registration: Config.string("REGISTRATION"),
      source: Config.string("SOURCE"),
      grant: Config.map(Config.integer("CONTINUATIONS"), (n) => Grant.full({ maxContinuations: n })),
      observationTimeoutMs: Config.integer("OBSERVATION_TIMEOUT_MS"),
      maxAttachmentBytes: Config.integer("MAX_ATTACHMENT_BYTES"),
      attachmentTimeoutMs: Config.integer("ATTACHMENT_TIMEOUT_MS"),
      uploadConcurrency: Config.integer("UPLOAD_CONCURRENCY")
    }).pipe(Layer.provide(layer))
    return Effect.gen(function*() {
      const hooks = yield* Hooks.Hooks
      yield* hooks.dispatch("tool.before", toolBefore())
      assert.strictEqual(hooks.grant.maxContinuations, 3)
      assert.strictEqual(log[0]!.event.source, "urn:example:configured")
    }).pipe(Effect.provide(fromMap(configured, [
      ["REGISTRATION", text],
      ["SOURCE", "urn:example:configured"],
      ["CONTINUATIONS", "3"],
      ["OBSERVATION_TIMEOUT_MS", "100"],
      ["MAX_ATTACHMENT_BYTES", "1024"],
      ["ATTACHMENT_TIMEOUT_MS", "100"],
      ["UPLOAD_CONCURRENCY", "1"]
    ])))
  })

  it.effect("layerConfig fails with a ConfigError for a missing or unreadable value", () =>
    Effect.gen(function*() {
      const text = JSON.stringify(registration([{ id: A, subscriptions: [intercept(["tool.before"])] }]))
      const build = (entries: ReadonlyArray<readonly [string, string]>) =>
        Layer.build(fromMap(
          Hooks.layerConfig({ ...Hooks.defaultConfig, observationTimeoutMs: Config.integer("TIMEOUT") }).pipe(
            Layer.provide(Transport.layerInProcess({}))
          ),
          entries
        )).pipe(Effect.scoped, Effect.flip)
      const missing = yield* build([["TIMEOUT", "5"]])
      assert.isTrue(ConfigError.isConfigError(missing) && ConfigError.isMissingData(missing), String(missing))
      const invalid = yield* build([["AHP_REGISTRATION", text], ["TIMEOUT", "soon"]])
      assert.isTrue(ConfigError.isConfigError(invalid) && ConfigError.isInvalidData(invalid), String(invalid))
    }))

  it.effect("layerConfig serves in-process backends beside the configured registration", () => {
    const text = JSON.stringify({
      protocolVersion: "draft",
      hooks: [{ id: A, transport: { type: "in-process" }, subscriptions: [intercept(["tool.before"])] }]
    })
    const served: JsonRpc.InProcessBackend<Transport.TransportError> = {
      request: (message) => answer({ type: "deny", reason: "in process" })(message, 0),
      notify: () => Effect.void
    }
    return Hooks.dispatch("tool.before", toolBefore()).pipe(
      Effect.provide(fromMap(
        Hooks.layerConfig(Hooks.defaultConfig, { backends: { [A]: served } }).pipe(
          Layer.provide(Transport.layerInProcess({}))
        ),
        [["AHP_REGISTRATION", text]]
      )),
      Effect.map((result) => assert.strictEqual(result.decision.denial?.reason, "in process"))
    )
  })

  it.effect("layerConfig reports text that is not JSON as a configuration error", () =>
    Effect.flip(Layer.build(fromMap(
      Hooks.layerConfig().pipe(Layer.provide(Transport.layerInProcess({}))),
      [["AHP_REGISTRATION", "{ nope"]]
    ))).pipe(
      Effect.scoped,
      Effect.map((error) => {
        assert.strictEqual(error._tag, "ConfigurationError")
        assert.deepStrictEqual(error._tag === "ConfigurationError" ? error.issues.map((i) => i.code) : [], [
          "invalid-document"
        ])
      })
    ))
})
