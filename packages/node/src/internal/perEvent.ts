/**
 * The `per_event` stdio lifecycle: one child per message, given the message and the end
 * of its stdin, and reaped before the call returns.
 *
 * @internal
 */
import { Framing } from "@effect-ahp/protocol"
import type { Json } from "@effect-ahp/protocol"
import * as Tracing from "@effect-ahp/harness/Tracing"
import type * as TransportApi from "@effect-ahp/harness/Transport"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as child from "./child.js"
import * as stdio from "./stdio.js"

/** @internal */
export const connect = Effect.fnUntraced(function*(config: stdio.Config) {
  const executor = yield* CommandExecutor.CommandExecutor
  const children = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.parallel)
  let closed = false
  yield* Effect.addFinalizer(() => Effect.sync(() => void (closed = true)))

  const awaitExit = (spawned: child.Child, grace: Duration.Duration) =>
    Effect.ignore(Effect.timeout(spawned.process.exitCode, grace))

  const run = <A>(
    message: Json.JsonObject,
    use: (spawned: child.Child) => Effect.Effect<A, TransportApi.TransportError, Scope.Scope>
  ): Effect.Effect<A, TransportApi.TransportError> =>
    Effect.suspend(() => closed ? Effect.fail(stdio.closedError) : Effect.void).pipe(
      Effect.zipRight(Effect.acquireUseRelease(
        Scope.fork(children, ExecutionStrategy.sequential),
        (scope) =>
          child.spawn(config, Stream.make(Framing.encode(message))).pipe(
            Effect.flatMap(use),
            Scope.extend(scope),
            Effect.provideService(CommandExecutor.CommandExecutor, executor)
          ),
        (scope, exit) => Scope.close(scope, exit)
      ))
    )

  const answer = (spawned: child.Child, id: Json.JsonValue) =>
    // A read failure counts as the end of the output.
    Framing.frames(Stream.catchAll(spawned.process.stdout, () => Stream.empty), config.maxLineBytes).pipe(
      Stream.map((frame) => stdio.judge(frame, id)),
      Stream.filter(stdio.isDecisive),
      Stream.runHead,
      Effect.flatMap(Option.match({
        onNone: () =>
          child.describeEnd(spawned, config.exitGrace).pipe(
            Effect.flatMap((how) =>
              Effect.fail(
                stdio.failure(closed ? "closed" : "exited", `the backend process ended before answering (${how})`)
              )
            )
          ),
        onSome: (outcome) =>
          outcome._tag === "Response" ? Effect.succeed(outcome.value) : Effect.fail(stdio.outcomeError(outcome))
      }))
    )

  const endpoint: TransportApi.Endpoint = {
    request: Effect.fnUntraced(function*(message) {
      const id = yield* stdio.requestId(message)
      return yield* run(message, (spawned) =>
        Effect.tap(answer(spawned, id), () => awaitExit(spawned, config.exitGrace)))
    }, Tracing.withSpanWhenTraced("StdioTransport.request")),
    notify: Effect.fnUntraced(function*(message) {
      yield* run(message, (spawned) =>
        Effect.zipRight(
          Effect.forkScoped(Effect.interruptible(Effect.ignore(Stream.runDrain(spawned.process.stdout)))),
          awaitExit(spawned, config.notificationGrace)
        ))
    }, Tracing.withSpanWhenTraced("StdioTransport.notify"))
  }
  return endpoint
})
