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
import * as Deferred from "effect/Deferred"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import * as child from "./child.js"
import * as response from "./response.js"
import * as stdio from "./stdio.js"

/** @internal */
export const connect = Effect.fnUntraced(function*(config: stdio.Config) {
  const children = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.parallel)
  let closed = false
  yield* Effect.addFinalizer(() => Effect.sync(() => void (closed = true)))

  const awaitExit = (spawned: child.Child, grace: Duration.Duration) =>
    Effect.ignore(Effect.timeout(spawned.exited, grace))

  /** Starts a child for `message` (its stdout handed to `output`), then runs `use`. */
  const run = <A>(
    message: Json.JsonObject,
    output: child.Output,
    use: (spawned: child.Child) => Effect.Effect<A, TransportApi.TransportError>
  ): Effect.Effect<A, TransportApi.TransportError> =>
    Effect.suspend(() =>
      closed ? Effect.fail(stdio.closedError) : Either.mapLeft(Framing.encodeText(message), response.unencodable)
    ).pipe(
      Effect.flatMap((line) => Effect.acquireUseRelease(
        Scope.fork(children, ExecutionStrategy.sequential),
        (scope) =>
          child.spawn(config, output).pipe(
            Scope.extend(scope),
            Effect.tap((spawned) => {
              spawned.write(line)
              spawned.endInput()
            }),
            Effect.flatMap(use)
          ),
        (scope, exit) => Scope.close(scope, exit)
      ))
    )

  /** The first decisive outcome on stdout, or undefined when stdout ended without one. */
  const answer = (id: Json.JsonValue) =>
    Effect.map(Deferred.make<stdio.Decisive | undefined>(), (verdict) => {
      const splitter = Framing.makeSplitter(config.maxLineBytes)
      const judge = (frames: ReadonlyArray<Framing.Frame>) => {
        for (const frame of frames) {
          const outcome = stdio.judge(frame, id)
          if (stdio.isDecisive(outcome)) return void Deferred.unsafeDone(verdict, Exit.succeed(outcome))
        }
      }
      const output: child.Output = {
        onData: (bytes) => judge(splitter.push(bytes)),
        onEnd: () => {
          judge(splitter.end())
          Deferred.unsafeDone(verdict, Exit.succeed(undefined))
        }
      }
      return { output, verdict: Deferred.await(verdict) }
    })

  const discard: child.Output = { onData: () => {}, onEnd: () => {} }

  const endpoint: TransportApi.Endpoint = {
    request: Effect.fnUntraced(function*(message) {
      const id = yield* response.requestId(message)
      const { output, verdict } = yield* answer(id)
      return yield* run(message, output, (spawned) =>
        verdict.pipe(
          Effect.flatMap((outcome) => {
            if (outcome === undefined) {
              return spawned.describeEnd(config.exitGrace).pipe(
                Effect.flatMap((how) =>
                  Effect.fail(
                    stdio.failure(closed ? "closed" : "exited", `the backend process ended before answering (${how})`)
                  )
                )
              )
            }
            return outcome._tag === "Response" ? Effect.succeed(outcome.value) : Effect.fail(stdio.outcomeError(outcome))
          }),
          Effect.tap(() => awaitExit(spawned, config.exitGrace))
        ))
    }, Tracing.withSpanWhenTraced("StdioTransport.request")),
    notify: Effect.fnUntraced(function*(message) {
      yield* run(message, discard, (spawned) => awaitExit(spawned, config.notificationGrace))
    }, Tracing.withSpanWhenTraced("StdioTransport.notify"))
  }
  return endpoint
})
