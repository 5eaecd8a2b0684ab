/**
 * Handler layers shared by the tests and by the stdio fixture process.
 */
import { Backend } from "@effect-ahp/backend"
import type { HookEffect } from "@effect-ahp/protocol"
import { Context, Data, Duration, Effect, Layer, Ref } from "effect"

/** The patterns the guard denies; a service of the guard's own layer. */
export class Policy extends Context.Tag("test/Policy")<Policy, { readonly blocked: ReadonlyArray<string> }>() {
  static layer = (blocked: ReadonlyArray<string>) => Layer.succeed(Policy, { blocked })
}

/** Denies `tool.before` when the command contains a blocked pattern; waits `delayMs` first if given. */
export const guard = Backend.intercept("tool.before", (request) =>
  Effect.gen(function*() {
    const policy = yield* Policy
    const { command, delayMs } = request.event.tool.input
    if (typeof delayMs === "number") yield* Effect.sleep(Duration.millis(delayMs))
    const text = typeof command === "string" ? command : ""
    const hit = policy.blocked.find((pattern) => text.includes(pattern))
    return hit === undefined
      ? []
      : [{ type: "deny", reason: `${request.event.tool.name}: ${hit} is not allowed` } as const]
  }))

/** The events the audit observer saw, in order. */
export class AuditLog extends Context.Tag("test/AuditLog")<AuditLog, Ref.Ref<ReadonlyArray<string>>>() {
  static layer = Layer.effect(AuditLog, Ref.make<ReadonlyArray<string>>([]))
}

/** Records every tool event as `type:id`. */
export const audit = Backend.observe(
  "tool.*",
  (event) => Effect.flatMap(AuditLog, (log) => Ref.update(log, (seen) => [...seen, `${event.type}:${event.id}`]))
)

/** Returns the effects listed in `tool.input.effects` (for grant tests), at `tool.before` and `tool.after`. */
export const echo = Layer.mergeAll(
  Backend.interceptAny(
    "tool.before",
    (request) =>
      Effect.succeed((request.event.tool.input["effects"] ?? []) as unknown as ReadonlyArray<HookEffect.HookEffect>)
  ),
  Backend.interceptAny(
    "tool.after",
    (request) =>
      Effect.succeed((request.event.tool.input["effects"] ?? []) as unknown as ReadonlyArray<HookEffect.HookEffect>)
  )
)

export class SecretError extends Data.TaggedError("SecretError")<{ readonly token: string }> {
  override get message() {
    return `leaked ${this.token}`
  }
}

/** Fails at `tool.before` when `input.fail` is "error", dies when it is "defect". */
export const failing = Backend.intercept("tool.before", (request) => {
  const mode = request.event.tool.input["fail"]
  return mode === "error"
    ? Effect.fail(new SecretError({ token: "sk-secret-123" }))
    : mode === "defect"
    ? Effect.die(new Error("defect sk-secret-456"))
    : Effect.succeed([])
})

/** Adds a message naming itself at `tool.before`. */
export const announce = (name: string) =>
  Backend.intercept("tool.before", () => Effect.succeed([{ type: "message", text: name } as const]))

/** A registry whose lookups die: a defect inside the server's own handling, outside any handler. */
export const brokenRegistry = Layer.succeed(
  Backend.Handlers,
  Backend.Handlers.of({
    register: () => Effect.void,
    intercepts: () => {
      throw new Error("registry defect sk-secret-789")
    },
    observers: () => {
      throw new Error("registry defect sk-secret-789")
    }
  })
)
