/**
 * The `persistent` stdio lifecycle: one child per endpoint, replaced when it ends or
 * misbehaves. Lines are written to the child's stdin in place; its stdout is split into
 * lines as chunks arrive, and a response completes the pending request directly.
 *
 * @internal
 */
import { Framing } from "@effect-ahp/protocol"
import type { Json } from "@effect-ahp/protocol"
import * as Tracing from "@effect-ahp/harness/Tracing"
import type * as TransportApi from "@effect-ahp/harness/Transport"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Scope from "effect/Scope"
import * as child from "./child.js"
import { Lock } from "./lock.js"
import * as response from "./response.js"
import * as stdio from "./stdio.js"

type Answer = Effect.Effect<Json.JsonValue, TransportApi.TransportError>

interface Pending {
  readonly id: Json.JsonValue
  readonly resume: (answer: Answer) => void
}

interface Live {
  readonly scope: Scope.CloseableScope
  readonly gone: Deferred.Deferred<void>
  /** Set once the child has started. */
  process: child.Child | undefined
  pending: Pending | undefined
  malformed: number
  alive: boolean
  retiring: boolean
}

/** Hands the pending request (if any) its answer. */
const settle = (live: Live, answer: Answer): void => {
  const pending = live.pending
  live.pending = undefined
  pending?.resume(answer)
}

/** @internal */
export const connect = Effect.fnUntraced(function*(config: stdio.Config) {
  const runBackground = yield* FiberSet.makeRuntime<never>()
  const lifecycle = yield* Effect.makeSemaphore(1)
  const requests = new Lock()
  const children = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.parallel)
  let current: Live | undefined
  let closed = false

  const retire = (live: Live): Effect.Effect<void> =>
    Effect.uninterruptible(Effect.suspend(() => {
      live.alive = false
      if (live.retiring) return Deferred.await(live.gone)
      live.retiring = true
      settle(live, Effect.fail(stdio.closedError))
      return Effect.zipRight(Scope.close(live.scope, Exit.void), Deferred.done(live.gone, Exit.void))
    }))

  // Runs before `children` closes: no child can be started once shutdown has begun, and the
  // current child gets its queued lines, the end of its stdin and `exitGrace` to exit.
  yield* Effect.addFinalizer(() =>
    lifecycle.withPermits(1)(Effect.suspend(() => {
      closed = true
      const live = current
      current = undefined
      if (live === undefined) return Effect.void
      settle(live, Effect.fail(stdio.closedError))
      const process = live.process!
      process.endInput()
      return process.exited.pipe(
        Effect.interruptible,
        Effect.timeoutOption(config.exitGrace),
        Effect.zipRight(retire(live))
      )
    }))
  )

  const retireLater = (live: Live): void => void runBackground(retire(live))

  /** Applies one frame; true when the child has now sent too many bad lines in a row. */
  const onFrame = (live: Live, frame: Framing.Frame): boolean => {
    const outcome = stdio.judge(frame, live.pending?.id)
    switch (outcome._tag) {
      case "Response":
        live.malformed = 0
        settle(live, Effect.succeed(outcome.value))
        return false
      case "Unrelated":
        live.malformed = 0
        return false
      default: {
        live.malformed += 1
        settle(live, Effect.fail(stdio.outcomeError(outcome)))
        const poisoned = live.malformed >= config.maxMalformedLines && live.alive
        if (poisoned) live.alive = false
        return poisoned
      }
    }
  }

  const onFrames = (live: Live, frames: ReadonlyArray<Framing.Frame>): void => {
    if (live.retiring) return
    let poisoned = false
    for (const frame of frames) poisoned = onFrame(live, frame) || poisoned
    if (poisoned) retireLater(live)
  }

  // stdout reached its end: the child is gone (or closed its output); fail the pending
  // request and reap the child in the background.
  const onEnd = (live: Live): void => {
    if (live.retiring) return
    live.alive = false
    const process = live.process
    settle(
      live,
      Effect.flatMap(
        process === undefined ? Effect.succeed("before it started") : process.describeEnd("200 millis"),
        (how) => Effect.fail(stdio.failure("exited", `the backend process ended before answering (${how})`))
      )
    )
    retireLater(live)
  }

  const start = Effect.gen(function*() {
    const scope = yield* Scope.fork(children, ExecutionStrategy.sequential)
    const live: Live = {
      scope,
      gone: yield* Deferred.make<void>(),
      process: undefined,
      pending: undefined,
      malformed: 0,
      alive: true,
      retiring: false
    }
    const splitter = Framing.makeSplitter(config.maxLineBytes)
    live.process = yield* child.spawn(config, {
      onData: (bytes) => onFrames(live, splitter.push(bytes)),
      onEnd: () => {
        onFrames(live, splitter.end())
        onEnd(live)
      }
    }).pipe(
      Scope.extend(scope),
      Effect.onError(() => Scope.close(scope, Exit.void))
    )
    return live
  })

  // A child whose exit has already been observed is replaced, even if the end of its
  // output has not been processed yet: it must not be handed the next message.
  const usable = (live: Live | undefined): live is Live =>
    live !== undefined && live.alive && live.process!.isRunning()

  const replace = lifecycle.withPermits(1)(Effect.suspend(() => {
    if (closed) return Effect.fail(stdio.closedError)
    const candidate = current
    if (usable(candidate)) return Effect.succeed(candidate)
    current = undefined
    return (candidate === undefined ? Effect.void : retire(candidate)).pipe(
      Effect.zipRight(start),
      Effect.tap((live) => Effect.sync(() => void (current = live)))
    )
  }))

  const ensure: Effect.Effect<Live, TransportApi.TransportError> = Effect.suspend(() => {
    if (closed) return Effect.fail(stdio.closedError)
    const live = current
    return usable(live) ? Effect.succeed(live) : replace
  })

  const exchange = (live: Live, id: Json.JsonValue, line: string) =>
    Effect.async<Json.JsonValue, TransportApi.TransportError>((resume) => {
      if (!live.alive) {
        return resume(Effect.fail(stdio.failure("exited", "the backend process ended before the request was sent")))
      }
      live.pending = { id, resume }
      if (!live.process!.write(line)) {
        live.pending = undefined
        return resume(Effect.fail(stdio.closedError))
      }
      // Interrupted: the child is retired, which also drops this (only) pending request.
      // The canceler captures nothing of the exchange: a canceler holding `resume` kept
      // every request's continuation alive long enough to be promoted to the old
      // generation (≈ 1 MB per young collection, 3–4 ms pauses).
      return retire(live)
    })

  const request = (message: Json.JsonObject) =>
    Effect.flatMap(response.requestId(message), (id) =>
      Effect.flatMap(
        Either.mapLeft(Framing.encodeText(message), response.unencodable),
        (line) => requests.withLock(Effect.flatMap(ensure, (live) => exchange(live, id, line)))
      ))

  const notify = (message: Json.JsonObject) =>
    Effect.flatMap(
      Effect.suspend(() => Either.mapLeft(Framing.encodeText(message), response.unencodable)),
      (line) => Effect.flatMap(ensure, (live) => live.process!.write(line) ? Effect.void : Effect.fail(stdio.closedError))
    )

  const traceRequest = Tracing.withSpanWhenTraced("StdioTransport.request")
  const traceNotify = Tracing.withSpanWhenTraced("StdioTransport.notify")
  const endpoint: TransportApi.Endpoint = {
    request: (message) => traceRequest(request(message)),
    notify: (message) => traceNotify(notify(message))
  }
  return endpoint
})
