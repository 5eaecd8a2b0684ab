/**
 * The `persistent` stdio lifecycle: one child per endpoint, started when the harness is
 * built (or by the first message), replaced when it ends or misbehaves. Lines are written
 * to the child's stdin in place; its stdout is split into lines as chunks arrive, and a
 * response completes the pending request directly.
 *
 * A deadline never waits for the child: the request is abandoned at once. A child that has
 * answered before (or has been up longer than `startupTimeout`) is then retired — killed
 * and reaped in the background, in the endpoint's scope — and the next message starts a
 * fresh one. A child still starting up (no answer yet, younger than `startupTimeout`) is
 * kept, so a backend slower to start than its timeout is not retired and restarted on
 * every call. Its answer to the abandoned request is told apart by its id and dropped
 * (it shows the child is up); the next request is written at once, so a child that was
 * up after all and is merely slow on (or stuck with) that one request answers the next
 * ones. Only a request with the same id as an abandoned one (another subscription of the
 * same backend in the same call) waits for that answer first: it could not be told apart.
 *
 * @internal
 */
import * as Tracing from "@effect-ahp/harness/Tracing"
import type * as TransportApi from "@effect-ahp/harness/Transport"
import { Framing, JsonRpc } from "@effect-ahp/protocol"
import type { Json } from "@effect-ahp/protocol"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Scope from "effect/Scope"
import * as child from "./child.js"
import { Lock } from "./lock.js"
import * as response from "./response.js"
import * as stdio from "./stdio.js"

type Answer = Effect.Effect<Json.JsonValue, TransportApi.TransportError>

/**
 * How long a child that ended is waited for before its end is reported: for its exit status,
 * then for the rest of its stderr (a grandchild may hold either open).
 */
const endReportWait = "200 millis"

interface Pending {
  readonly id: Json.JsonValue
  readonly resume: (answer: Answer) => void
  /** How many notifications the child had been sent before this request. */
  readonly notifiedBefore: number
}

/** A request abandoned at its deadline while its child was starting up; its answer is still due. */
interface Abandoned {
  readonly id: Json.JsonValue
  readonly notifiedBefore: number
  /** Completed when its answer arrives or the child is retired. */
  readonly done: Deferred.Deferred<void>
}

interface Live {
  readonly scope: Scope.CloseableScope
  readonly gone: Deferred.Deferred<void>
  /** When it was started (the clock's milliseconds). */
  readonly startedAt: number
  /** Set once the child has started. */
  process: child.Child | undefined
  pending: Pending | undefined
  /** The requests abandoned while it was starting up whose answers have not arrived. */
  abandoned: Array<Abandoned>
  malformed: number
  /** Whether it has answered a request (it is up). */
  answered: boolean
  /** Notifications written to it so far, and how many of them it has shown it read. */
  notified: number
  read: number
  alive: boolean
  retiring: boolean
  /** Its stdin was ended after a notification (one-shot): it finishes and exits. */
  draining: boolean
}

/** Hands the pending request (if any) its answer. */
const settle = (live: Live, answer: Answer): void => {
  const pending = live.pending
  live.pending = undefined
  pending?.resume(answer)
}

/** The late answer to an abandoned request arrived: it is dropped, and shows the child is up. */
const lateAnswer = (live: Live, id: Json.JsonValue): void => {
  const at = live.abandoned.findIndex((a) => JsonRpc.sameId(a.id, id))
  if (at === -1) return
  const [abandoned] = live.abandoned.splice(at, 1)
  live.answered = true
  live.read = Math.max(live.read, abandoned!.notifiedBefore)
  Deferred.unsafeDone(abandoned!.done, Exit.void)
}

/** Releases every request waiting for an abandoned one's answer (the child is retired). */
const releaseAbandoned = (live: Live): void => {
  for (const abandoned of live.abandoned.splice(0)) Deferred.unsafeDone(abandoned.done, Exit.void)
}

/** @internal */
export const connect = Effect.fnUntraced(function*(config: stdio.Config) {
  // Made first, so closed last: closing the endpoint waits for the background retirements.
  const runBackground = yield* FiberSet.makeRuntime<never>()
  const clock = yield* Effect.clock
  const lifecycle = yield* Effect.makeSemaphore(1)
  const requests = new Lock()
  const children = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.parallel)
  const startupMillis = Duration.toMillis(config.startupTimeout)
  let current: Live | undefined
  /** The most recent child, for diagnostics. */
  let latest: child.Child | undefined
  let closed = false

  const retire = (live: Live): Effect.Effect<void> =>
    Effect.uninterruptible(Effect.suspend(() => {
      live.alive = false
      if (live.retiring) return Deferred.await(live.gone)
      live.retiring = true
      settle(live, Effect.fail(stdio.closedError))
      releaseAbandoned(live)
      return Effect.zipRight(Scope.close(live.scope, Exit.void), Deferred.done(live.gone, Exit.void))
    }))

  /** Takes the child out of service at once and stops it in the background. */
  const retireLater = (live: Live): void => {
    live.alive = false
    runBackground(retire(live))
  }

  const logUnread = (live: Live, grace: Duration.Duration) =>
    Effect.logWarning(
      `${config.backend ?? "stdio backend"}: the backend process did not exit within ${
        Duration.toMillis(grace)
      } ms of the end of its stdin and was stopped; ${
        live.notified - live.read
      } observation(s) written to it since its last answer may be unread`
    )

  // Runs before `children` closes: no child can be started once shutdown has begun, and the
  // current child gets its queued lines, the end of its stdin and `exitGrace` to exit — or
  // the observation grace when it was sent observations it has not shown it read.
  yield* Effect.addFinalizer(() =>
    lifecycle.withPermits(1)(Effect.suspend(() => {
      closed = true
      const live = current
      current = undefined
      if (live === undefined) return Effect.void
      if (live.retiring) return Deferred.await(live.gone)
      settle(live, Effect.fail(stdio.closedError))
      releaseAbandoned(live)
      const process = live.process!
      process.endInput()
      const unread = live.notified > live.read && !config.oneShot
      const grace = unread ? Duration.max(config.exitGrace, config.observationGrace) : config.exitGrace
      return process.statusWithin(grace).pipe(
        Effect.tap((status) => Option.isNone(status) && unread ? logUnread(live, grace) : Effect.void),
        Effect.zipRight(retire(live))
      )
    }))
  )

  /** Applies one frame; true when the child has now sent too many bad lines in a row. */
  const onFrame = (live: Live, frame: Framing.Frame): boolean => {
    const outcome = stdio.judge(frame, live.pending?.id, config.secrets)
    switch (outcome._tag) {
      case "Response":
        live.malformed = 0
        live.answered = true
        live.read = Math.max(live.read, live.pending!.notifiedBefore)
        settle(live, Effect.succeed(outcome.value))
        return false
      case "Unrelated":
        live.malformed = 0
        if (outcome.id !== undefined && live.abandoned.length > 0) lateAnswer(live, outcome.id)
        return false
      default: {
        live.malformed += 1
        settle(live, Effect.fail(stdio.outcomeError(outcome, live.process!)))
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
  // request and stop the child (and its group) in the background.
  const onEnd = (live: Live): void => {
    if (live.retiring) return
    live.alive = false
    const process = live.process
    settle(
      live,
      Effect.flatMap(
        process === undefined ? Effect.succeed("before it started") : process.describeEnd(endReportWait),
        (how) => Effect.fail(stdio.failure("exited", `the backend process ended before answering (${how})`))
      )
    )
    retireLater(live)
  }

  /** Whether the child is still starting up: no answer yet, and younger than `startupTimeout`. */
  const starting = (live: Live): boolean =>
    !live.answered && clock.unsafeCurrentTimeMillis() - live.startedAt < startupMillis

  /**
   * The pending request was abandoned (its deadline expired): a starting child is kept and
   * the request's answer is awaited as a late one; any other child is retired.
   */
  const abandon = (live: Live): void => {
    const pending = live.pending
    if (pending === undefined || !live.alive) return
    if (starting(live)) {
      live.pending = undefined
      live.abandoned.push({
        id: pending.id,
        notifiedBefore: pending.notifiedBefore,
        done: Deferred.unsafeMake<void>(FiberId.none)
      })
    } else retireLater(live)
  }

  const start = Effect.gen(function*() {
    const scope = yield* Scope.fork(children, ExecutionStrategy.sequential)
    const live: Live = {
      scope,
      gone: yield* Deferred.make<void>(),
      startedAt: clock.unsafeCurrentTimeMillis(),
      process: undefined,
      pending: undefined,
      abandoned: [],
      malformed: 0,
      answered: false,
      notified: 0,
      read: 0,
      alive: true,
      retiring: false,
      draining: false
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
    latest = live.process
    return live
  })

  // A child whose exit has already been observed is replaced, even if the end of its
  // output has not been processed yet: it must not be handed the next message.
  const usable = (live: Live): boolean => live.alive && !live.draining && live.process!.isRunning()

  const replace = lifecycle.withPermits(1)(Effect.suspend(() => {
    if (closed) return Effect.fail(stdio.closedError)
    const candidate = current
    if (candidate !== undefined && usable(candidate)) return Effect.succeed(candidate)
    current = undefined
    // A draining child finishes on its own; any other is stopped without waiting for it.
    if (candidate !== undefined && !candidate.draining) retireLater(candidate)
    return Effect.tap(start, (live) => Effect.sync(() => void (current = live)))
  }))

  const ensure: Effect.Effect<Live, TransportApi.TransportError> = Effect.suspend(() => {
    if (closed) return Effect.fail(stdio.closedError)
    const live = current
    return live !== undefined && usable(live) ? Effect.succeed(live) : replace
  })

  const send = (live: Live, id: Json.JsonValue, line: string) =>
    Effect.async<Json.JsonValue, TransportApi.TransportError>((resume) => {
      if (!live.alive) {
        return resume(Effect.fail(stdio.failure("exited", "the backend process ended before the request was sent")))
      }
      live.pending = { id, resume, notifiedBefore: live.notified }
      if (!live.process!.write(line)) {
        live.pending = undefined
        resume(Effect.fail(stdio.closedError))
      }
      // No canceler (it made `Effect.async` wrap every exchange in an `onInterrupt`): an
      // interrupted exchange is abandoned by `abandonPending` as the lock is released.
    })

  /**
   * An exchange holding the lock failed or was interrupted: a request still pending was
   * interrupted (a failure settles it first), so it is abandoned on the current child —
   * the only one a request can be pending on while its sender holds the lock.
   */
  const abandonPending = () => {
    const live = current
    if (live !== undefined) abandon(live)
  }

  /**
   * Sends on a usable child, first waiting (within its start-up) for the answer to an
   * abandoned request with the same id, which could not be told apart from this one's.
   */
  const attemptOn = (live: Live, id: Json.JsonValue, line: string): Answer => {
    const same = live.abandoned.find((a) => JsonRpc.sameId(a.id, id))
    if (same === undefined) return send(live, id, line)
    const left = startupMillis - (clock.unsafeCurrentTimeMillis() - live.startedAt)
    return Deferred.await(same.done).pipe(
      Effect.timeout(Duration.millis(Math.max(0, left))),
      // Still no answer after the start-up window: the child is stuck; start afresh.
      Effect.catchTag("TimeoutException", () => Effect.sync(() => retireLater(live))),
      Effect.zipRight(Effect.suspend(() => attemptNow(id, line)))
    )
  }

  /** `ensure`, then the exchange; a usable child is taken at once (called as the lock is taken). */
  const attemptNow = (id: Json.JsonValue, line: string): Answer => {
    const live = current
    return !closed && live !== undefined && usable(live)
      ? attemptOn(live, id, line)
      : Effect.flatMap(ensure, (started) => attemptOn(started, id, line))
  }

  /** The request (made as it runs, in its span's step when traced). */
  const request = (message: Json.JsonObject): Answer => {
    // Without an id: `requestId`'s defect.
    const id = message.id
    if (id === undefined) return response.requestId(message)
    const line = Framing.encodeText(message)
    return Either.isLeft(line)
      ? Effect.fail(response.unencodable(line.left))
      : requests.withLockOf(() => attemptNow(id, line.right), abandonPending)
  }

  /** Writes a notification; succeeds once the operating system has taken the whole line. */
  const written = (live: Live, line: string) => {
    live.notified += 1
    return Effect.tapError(live.process!.writeFlushed(line), () => Effect.sync(() => void (live.notified -= 1)))
  }

  // One-shot: the child's stdin is ended after the notification, and it is delivered once
  // the child has read everything and exited with status 0.
  const delivered = (live: Live, line: string) =>
    written(live, line).pipe(
      Effect.zipRight(Effect.sync(() => {
        if (live.draining) return
        live.draining = true
        live.process!.endInput()
      })),
      Effect.zipRight(live.process!.status),
      Effect.flatMap((status) => {
        if (status.code === 0) return Effect.sync(() => void (live.read = live.notified))
        const how = child.describeStatus(Option.some(status))
        return Effect.flatMap(
          live.process!.withFinalStderr(
            `the backend process ended with ${how} after the end of its stdin`,
            endReportWait
          ),
          (detail) => Effect.fail(stdio.failure("exited", detail))
        )
      }),
      Effect.ensuring(Effect.sync(() => retireLater(live)))
    )

  const notify = (message: Json.JsonObject) =>
    Effect.flatMap(
      Effect.suspend(() => Either.mapLeft(Framing.encodeText(message), response.unencodable)),
      (line) => Effect.flatMap(ensure, (live) => config.oneShot ? delivered(live, line) : written(live, line))
    )

  const traceNotify = Tracing.withSpanWhenTraced("StdioTransport.notify")
  const endpoint: TransportApi.Endpoint = {
    request: (message) => Tracing.spanWhenTraced("StdioTransport.request", () => request(message)),
    notify: (message) => traceNotify(notify(message)),
    start: Effect.asVoid(ensure),
    diagnostics: Effect.sync(() => latest?.stderr())
  }
  return endpoint
})
