/**
 * Host-side composition: backends registered `in-process` are reached through the backends
 * the host serves by id (plain functions, or an effect building them in the service's
 * scope), every other backend through the `Transports` service, in one chain; what is
 * served and what is registered in-process must agree. The registration builders write
 * documents the Registration schema accepts.
 */
import { Grant, Hooks, Registry, Transport } from "@effect-ahp/harness"
import { type JsonRpc, Registration } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Either, Exit, Layer, Ref, Schema, Scope } from "effect"
import { answer, backends, type Script, toolBefore } from "./support.js"

const GUARD = "com.example.guard"
const REMOTE = "com.example.remote"

const interceptTool = Registration.intercept(["tool.before"], { timeoutMs: 1000, failurePolicy: "fail-open" })

/** A guard in process, a remote one over HTTP (served here by the transport double). */
const mixed = Registration.make([
  Registration.inProcess(GUARD, [interceptTool]),
  Registration.http(REMOTE, { url: "https://remote.example.com/hooks" }, [interceptTool])
])

/** A backend served in process, answering with `script` and counting its requests. */
const servedBackend = (script: Script) => {
  const state = { requests: 0 }
  const backend: JsonRpc.InProcessBackend<Transport.TransportError> = {
    request: (message) => Effect.suspend(() => script(message, state.requests++)),
    notify: () => Effect.void
  }
  return { state, backend }
}

const codes = (error: unknown) => Registry.isConfigurationError(error) ? error.issues.map((i) => [i.code, i.path]) : []

describe("Hooks: backends served in process beside transports", () => {
  it.effect("routes in-process backends to what the host serves and the others through Transports, in order", () =>
    Effect.gen(function*() {
      const guard = servedBackend(answer({ type: "message", text: "guard" }))
      const transported = backends({ [REMOTE]: answer({ type: "deny", reason: "remote" }) })
      const result = yield* Hooks.dispatch("tool.before", toolBefore()).pipe(
        Effect.provide(
          Hooks.layer(mixed, { backends: { [GUARD]: guard.backend } }).pipe(Layer.provide(transported.layer))
        )
      )
      assert.strictEqual(guard.state.requests, 1)
      assert.deepStrictEqual(transported.log.map((r) => r.backend), [REMOTE])
      assert.strictEqual(result.decision.permission, "deny")
      assert.deepStrictEqual(result.decision.messages, ["guard"])
    }))

  it.effect("layerTest serves a registration written with Registration.inProcess, beside a transported one", () =>
    Effect.gen(function*() {
      const guard = servedBackend(answer({ type: "message", text: "guard" }))
      const remote = servedBackend(answer({ type: "deny", reason: "remote" }))
      const result = yield* Hooks.dispatch("tool.before", toolBefore()).pipe(
        Effect.provide(Hooks.layerTest(mixed, { [GUARD]: guard.backend, [REMOTE]: remote.backend }))
      )
      assert.deepStrictEqual([guard.state.requests, remote.state.requests], [1, 1])
      assert.strictEqual(result.decision.denial?.reason, "remote")
      assert.deepStrictEqual(result.decision.messages, ["guard"])
    }))

  it.effect("an all-in-process registration needs no transports: Transport.layerNone", () =>
    Effect.gen(function*() {
      const guard = servedBackend(answer({ type: "deny", reason: "guarded" }))
      const only = Registration.make([Registration.inProcess(GUARD, [interceptTool])])
      const result = yield* Hooks.dispatch("tool.before", toolBefore()).pipe(
        Effect.provide(
          Hooks.layer(only, { backends: { [GUARD]: guard.backend } }).pipe(Layer.provide(Transport.layerNone))
        )
      )
      assert.strictEqual(result.decision.denial?.reason, "guarded")
      // A transported backend under layerNone is a route failure naming its transport, never a crash.
      const quiet = servedBackend(answer())
      const mixedResult = yield* Hooks.dispatch("tool.before", toolBefore()).pipe(
        Effect.provide(
          Hooks.layer(mixed, { backends: { [GUARD]: quiet.backend } }).pipe(Layer.provide(Transport.layerNone))
        )
      )
      assert.deepStrictEqual(mixedResult.errors.map((e) => e.backend), [REMOTE])
      assert.match(
        mixedResult.errors[0]?.detail ?? "",
        /this host has no transports: com\.example\.remote is registered with http/
      )
    }))

  it.effect("builds a served effect in the service's scope and releases it with the service", () =>
    Effect.gen(function*() {
      const events = yield* Ref.make<ReadonlyArray<string>>([])
      const note = (what: string) => Ref.update(events, (all) => [...all, what])
      const served = servedBackend(answer({ type: "deny", reason: "guarded" }))
      const guard = Effect.acquireRelease(Effect.as(note("built"), served.backend), () => note("released"))
      const scope = yield* Scope.make()
      const context = yield* Layer.buildWithScope(
        Hooks.layer(mixed, { backends: { [GUARD]: guard } }).pipe(Layer.provide(Transport.layerInProcess({}))),
        scope
      )
      assert.deepStrictEqual(yield* Ref.get(events), ["built"])
      const result = yield* Effect.provide(Hooks.dispatch("tool.before", toolBefore()), context)
      assert.strictEqual(result.decision.denial?.reason, "guarded")
      assert.deepStrictEqual(result.errors, [])
      yield* Scope.close(scope, Exit.void)
      assert.deepStrictEqual(yield* Ref.get(events), ["built", "released"])
    }))

  it.effect("a served effect's failure fails the layer", () =>
    Effect.gen(function*() {
      const error = yield* Layer.build(
        Hooks.layer(mixed, { backends: { [GUARD]: Effect.fail("no guard today" as const) } }).pipe(
          Layer.provide(Transport.layerInProcess({}))
        )
      ).pipe(Effect.scoped, Effect.flip)
      assert.strictEqual(error, "no guard today")
    }))

  it.effect("an in-process backend nobody serves, and a served id not registered in-process, are configuration errors", () =>
    Effect.gen(function*() {
      const build = (backendsServed: Record<string, JsonRpc.InProcessBackend<Transport.TransportError>>) =>
        Layer.build(Hooks.layer(mixed, { backends: backendsServed }).pipe(Layer.provide(Transport.layerInProcess({}))))
          .pipe(
            Effect.scoped,
            Effect.flip
          )
      const quiet: JsonRpc.InProcessBackend<Transport.TransportError> = {
        request: () => Effect.never,
        notify: () => Effect.void
      }
      assert.deepStrictEqual(codes(yield* build({})), [["in-process-backend-not-served", "/hooks/0/transport"]])
      assert.deepStrictEqual(codes(yield* build({ [GUARD]: quiet, [REMOTE]: quiet })), [[
        "served-backend-not-registered",
        "/hooks"
      ]])
    }))

  it("a validator that knows no host accepts in-process backends", () => {
    assert.isTrue(Either.isRight(Registry.compile(mixed, Grant.full())))
  })

  it.effect("the node-less transports never connect an in-process backend themselves", () =>
    Effect.gen(function*() {
      const transports = yield* Effect.provide(Transport.Transports, Transport.layerInProcess({}))
      const error = yield* Effect.flip(Effect.scoped(transports.connect(mixed.hooks[0]!)))
      assert.strictEqual(error.reason, "unsupported")
    }))
})

describe("Registration builders", () => {
  it("write documents the Registration schema accepts, with defaults for content", () => {
    const decoded = Schema.decodeUnknownEither(Registration.Registration)(mixed)
    assert.isTrue(Either.isRight(decoded))
    assert.deepStrictEqual(mixed.hooks[0], {
      id: GUARD,
      transport: { type: "in-process" },
      subscriptions: [{
        content: { default: "omit" },
        events: ["tool.before"],
        mode: "intercept",
        timeoutMs: 1000,
        failurePolicy: "fail-open"
      }]
    })
    const stdio = Registration.stdio(
      "com.example.lint",
      { command: "lint", args: ["--hook"], lifecycle: "per_event" },
      [
        Registration.observe(["tool.*", "session.start"], { id: "lint", content: { default: "metadata" } })
      ]
    )
    assert.deepStrictEqual(stdio, {
      id: "com.example.lint",
      transport: { type: "stdio", command: "lint", args: ["--hook"], lifecycle: "per_event" },
      subscriptions: [{
        content: { default: "metadata" },
        id: "lint",
        events: ["tool.*", "session.start"],
        mode: "observe"
      }]
    })
  })

  it("leave value rules to the schema, which reports them with their codes", () => {
    const bad = Registration.make([
      Registration.http("not a reverse dns", { url: "http://example.com/hooks" }, [interceptTool]),
      Registration.inProcess(GUARD, [interceptTool]),
      Registration.inProcess(GUARD, [interceptTool])
    ])
    const compiled = Registry.compile(bad, Grant.full())
    assert.isTrue(Either.isLeft(compiled))
    const found = Either.isLeft(compiled) ? compiled.left.issues.map((i) => i.code) : []
    for (const code of ["invalid-backend-id", "unsafe-endpoint", "duplicate-backend-id"] as const) {
      assert.include(found, code)
    }
  })

  it("reject authentication on an in-process backend", () => {
    const compiled = Registry.compile({
      protocolVersion: "draft",
      hooks: [{
        ...Registration.inProcess(GUARD, [interceptTool]),
        authentication: { type: "bearer", tokenEnv: "TOKEN" }
      }]
    }, Grant.full())
    assert.deepStrictEqual(codes(Either.isLeft(compiled) ? compiled.left : undefined), [[
      "authentication-not-allowed",
      "/hooks/0/authentication"
    ]])
  })

  it("type-check selectors per mode", () => {
    // @ts-expect-error: session.end is observation-only, never intercepted
    Registration.intercept(["session.end"], { timeoutMs: 1000, failurePolicy: "fail-open" })
    // @ts-expect-error: not a catalogue event type
    Registration.observe(["tool.bogus"])
    // @ts-expect-error: an intercept subscription declares its failure policy
    Registration.intercept(["tool.before"], { timeoutMs: 1000 })
    assert.ok(true)
  })
})
