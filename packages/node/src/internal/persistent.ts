/**
 * The `persistent` stdio lifecycle: one child per endpoint, replaced when it ends or
 * misbehaves. Lines go to the child's stdin through one long-lived writer fed by a
 * mailbox; its stdout is consumed chunk by chunk by one reader that splits lines
 * synchronously and completes the pending request directly.
 *
 * @internal
 */
import { Framing } from "@effect-ahp/protocol"
import type { Json } from "@effect-ahp/protocol"
import * as Tracing from "@effect-ahp/harness/Tracing"
import type * as TransportApi from "@effect-ahp/harness/Transport"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Chunk from "effect/Chunk"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Mailbox from "effect/Mailbox"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as child from "./child.js"
import * as stdio from "./stdio.js"

type Answer = Effect.Effect<Json.JsonValue, TransportApi.TransportError>

interface Pending {
  readonly id: Json.JsonValue
  readonly resume: (answer: Answer) => void
}

interface Live extends child.Child {
  readonly scope: Scope.CloseableScope
  /** The lines for stdin; ending it lets the writer flush them and then close stdin. */
  readonly input: Mailbox.Mailbox<Uint8Array>
  readonly gone: Deferred.Deferred<void>
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
  const executor = yield* CommandExecutor.CommandExecutor
  const background = yield* FiberSet.make()
  const lifecycle = yield* Effect.makeSemaphore(1)
  const requests = yield* Effect.makeSemaphore(1)
  const children = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.parallel)
  let current: Live | undefined
  let closed = false

  const retire = (live: Live): Effect.Effect<void> =>
    Effect.uninterruptible(Effect.suspend(() => {
      live.alive = false
      if (live.retiring) return Deferred.await(live.gone)
      live.retiring = true
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
      live.input.unsafeDone(Exit.void)
      return live.process.exitCode.pipe(
        Effect.interruptible,
        Effect.timeoutOption(config.exitGrace),
        Effect.ignore,
        Effect.zipRight(retire(live))
      )
    }))
  )

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

  const onFrames = (live: Live, frames: ReadonlyArray<Framing.Frame>, poisoned = false): boolean =>
    frames.reduce((bad, frame) => onFrame(live, frame) || bad, poisoned)

  const retireLater = (live: Live) => Effect.asVoid(FiberSet.run(background, retire(live)))

  const retireIf = (live: Live, poisoned: boolean) => poisoned ? retireLater(live) : Effect.void

  // stdout reached its end: the child is gone (or closed its output); fail the pending
  // request and reap the child in the background.
  const onEnd = (live: Live) =>
    Effect.suspend(() => {
      live.alive = false
      settle(
        live,
        Effect.flatMap(
          child.describeEnd(live, "200 millis"),
          (how) => Effect.fail(stdio.failure("exited", `the backend process ended before answering (${how})`))
        )
      )
      return retireLater(live)
    })

  const onStop = (live: Live) =>
    Effect.sync(() => {
      live.alive = false
      settle(live, Effect.fail(stdio.closedError))
    })

  const read = (live: Live) =>
    Effect.suspend(() => {
      const splitter = Framing.makeSplitter(config.maxLineBytes)
      return live.process.stdout.pipe(
        Stream.runForEachChunk((chunks) =>
          Effect.suspend(() =>
            retireIf(live, Chunk.reduce(chunks, false, (bad, bytes) => onFrames(live, splitter.push(bytes), bad)))
          )
        ),
        Effect.ignore,
        Effect.zipRight(Effect.suspend(() => retireIf(live, onFrames(live, splitter.end())))),
        Effect.zipRight(onEnd(live)),
        Effect.onInterrupt(() => onStop(live))
      )
    })

  const start = Effect.gen(function*() {
    const scope = yield* Scope.fork(children, ExecutionStrategy.sequential)
    const input = yield* Mailbox.make<Uint8Array>()
    const spawned = yield* child.spawn(config, Mailbox.toStream(input)).pipe(
      Scope.extend(scope),
      Effect.onError(() => Scope.close(scope, Exit.void))
    )
    const live: Live = {
      ...spawned,
      scope,
      input,
      gone: yield* Deferred.make<void>(),
      pending: undefined,
      malformed: 0,
      alive: true,
      retiring: false
    }
    yield* Effect.forkIn(Effect.interruptible(read(live)), scope)
    return live
  }).pipe(Effect.provideService(CommandExecutor.CommandExecutor, executor))

  // A child whose exit has already been observed is replaced, even if the end of its
  // output has not been processed yet: it must not be handed the next message.
  const usable = (live: Live | undefined): Effect.Effect<boolean> =>
    live === undefined || !live.alive ? Effect.succeed(false) : Effect.orElseSucceed(live.process.isRunning, () => false)

  const replace = lifecycle.withPermits(1)(Effect.suspend(() => {
    if (closed) return Effect.fail(stdio.closedError)
    const candidate = current
    return Effect.flatMap(usable(candidate), (ok) => {
      if (ok) return Effect.succeed(candidate!)
      current = undefined
      return (candidate === undefined ? Effect.void : retire(candidate)).pipe(
        Effect.zipRight(start),
        Effect.tap((live) => Effect.sync(() => void (current = live)))
      )
    })
  }))

  const ensure: Effect.Effect<Live, TransportApi.TransportError> = Effect.suspend(() => {
    if (closed) return Effect.fail(stdio.closedError)
    const live = current
    return Effect.flatMap(usable(live), (ok) => ok ? Effect.succeed(live!) : replace)
  })

  const exchange = (live: Live, id: Json.JsonValue, line: Uint8Array) =>
    Effect.async<Json.JsonValue, TransportApi.TransportError>((resume) => {
      if (!live.alive) {
        return resume(Effect.fail(stdio.failure("exited", "the backend process ended before the request was sent")))
      }
      const pending: Pending = { id, resume }
      live.pending = pending
      if (!live.input.unsafeOffer(line)) {
        live.pending = undefined
        return resume(Effect.fail(stdio.closedError))
      }
      return Effect.suspend(() => {
        if (live.pending === pending) live.pending = undefined
        return retire(live)
      })
    })

  const request = (message: Json.JsonObject) =>
    Effect.flatMap(stdio.requestId(message), (id) => {
      const line = Framing.encode(message)
      return requests.withPermits(1)(Effect.flatMap(ensure, (live) => exchange(live, id, line)))
    })

  const notify = (message: Json.JsonObject) =>
    Effect.suspend(() => {
      const line = Framing.encode(message)
      return Effect.flatMap(
        ensure,
        (live) => live.input.unsafeOffer(line) ? Effect.void : Effect.fail(stdio.closedError)
      )
    })

  const traceRequest = Tracing.withSpanWhenTraced("StdioTransport.request")
  const traceNotify = Tracing.withSpanWhenTraced("StdioTransport.notify")
  const endpoint: TransportApi.Endpoint = {
    request: (message) => traceRequest(request(message)),
    notify: (message) => traceNotify(notify(message))
  }
  return endpoint
})
