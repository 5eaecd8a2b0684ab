/**
 * The `per_event` stdio lifecycle: one child per message, given the message and the end
 * of its stdin. A request succeeds with the correlated response once the child has also
 * exited with status 0; a notification is delivered once the child has exited with status
 * 0. After every exchange — answered, failed or abandoned at a deadline — the child's
 * process group is terminated in the background, in the endpoint's scope.
 *
 * @internal
 */
import * as Tracing from "@effect-ahp/harness/Tracing"
import type * as TransportApi from "@effect-ahp/harness/Transport"
import { Framing } from "@effect-ahp/protocol"
import type { Json } from "@effect-ahp/protocol"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as child from "./child.js"
import * as response from "./response.js"
import * as stdio from "./stdio.js"

/**
 * The child's configuration with `TRACEPARENT` / `TRACESTATE` set from the trace context
 * the message's event carries (each per-event process serves one event).
 */
const withTraceContext = (config: stdio.Config, message: Json.JsonObject): stdio.Config => {
  const context = Tracing.traceContextOfMessage(message)
  if (context === undefined) return config
  const env: Record<string, string> = { ...config.env, TRACEPARENT: context.traceparent }
  if (context.tracestate !== undefined) env.TRACESTATE = context.tracestate
  else delete env.TRACESTATE
  return { ...config, env }
}

/** @internal */
export const connect = Effect.fnUntraced(function*(config: stdio.Config) {
  // Made first, so closed last: closing the endpoint waits for the background cleanups.
  const runBackground = yield* FiberSet.makeRuntime<never>()
  const children = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.parallel)
  let closed = false
  /** The most recent child, for diagnostics. */
  let latest: child.Child | undefined
  yield* Effect.addFinalizer(() => Effect.sync(() => void (closed = true)))

  /**
   * Starts a child for `message` (its stdout handed to `output`), then runs `use`. However
   * `use` ends, the child's process group is terminated in the background.
   */
  const run = <A>(
    message: Json.JsonObject,
    output: child.Output,
    use: (spawned: child.Child) => Effect.Effect<A, TransportApi.TransportError>
  ): Effect.Effect<A, TransportApi.TransportError> =>
    Effect.suspend(() =>
      closed ? Effect.fail(stdio.closedError) : Either.mapLeft(Framing.encodeText(message), response.unencodable)
    ).pipe(
      Effect.flatMap((line) =>
        Effect.acquireUseRelease(
          Scope.fork(children, ExecutionStrategy.sequential),
          (scope) =>
            child.spawn(withTraceContext(config, message), output).pipe(
              Scope.extend(scope),
              Effect.tap((spawned) => {
                latest = spawned
                spawned.write(line)
                spawned.endInput()
              }),
              Effect.flatMap(use)
            ),
          (scope, exit) => Effect.sync(() => void runBackground(Effect.uninterruptible(Scope.close(scope, exit))))
        )
      )
    )

  /** The first decisive outcome on stdout, or undefined when stdout ended without one. */
  const answer = (id: Json.JsonValue) =>
    Effect.map(Deferred.make<stdio.Decisive | undefined>(), (verdict) => {
      const splitter = Framing.makeSplitter(config.maxLineBytes)
      const judge = (frames: ReadonlyArray<Framing.Frame>) => {
        for (const frame of frames) {
          const outcome = stdio.judge(frame, id, config.secrets)
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

  /** Succeeds when the child exits with status 0 within `grace`; `what` tells what it had done. */
  const exitedCleanly = (spawned: child.Child, grace: Duration.Duration, what: string) =>
    Effect.flatMap(spawned.statusWithin(grace), (status) => {
      if (closed) return Effect.fail(stdio.closedError)
      if (Option.isSome(status) && status.value.code === 0) return Effect.void
      const how = Option.isNone(status)
        ? `did not exit within ${Duration.toMillis(grace)} ms`
        : `ended with ${child.describeStatus(status)}`
      return Effect.flatMap(
        spawned.withFinalStderr(`the backend process ${what}, but ${how}`, grace),
        (detail) => Effect.fail(stdio.failure("exited", detail))
      )
    })

  const endpoint: TransportApi.Endpoint = {
    request: Effect.fnUntraced(function*(message) {
      const id = yield* response.requestId(message)
      const { output, verdict } = yield* answer(id)
      return yield* run(message, output, (spawned) =>
        Effect.flatMap(verdict, (outcome) => {
          if (outcome === undefined) {
            return Effect.flatMap(spawned.describeEnd(config.exitGrace), (how) =>
              Effect.fail(
                closed
                  ? stdio.closedError
                  : stdio.failure("exited", `the backend process ended before answering (${how})`)
              ))
          }
          if (outcome._tag !== "Response") return Effect.fail(stdio.outcomeError(outcome, spawned))
          return Effect.as(exitedCleanly(spawned, config.exitGrace, "answered"), outcome.value)
        }))
    }, Tracing.withSpanWhenTraced("StdioTransport.request")),
    notify: Effect.fnUntraced(function*(message) {
      yield* run(
        message,
        discard,
        (spawned) =>
          exitedCleanly(spawned, config.notificationGrace, "received the observation and the end of its stdin")
      )
    }, Tracing.withSpanWhenTraced("StdioTransport.notify")),
    diagnostics: Effect.sync(() => latest?.stderr())
  }
  return endpoint
})
