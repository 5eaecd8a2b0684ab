/**
 * The stdio binding (AHP-STDIO-001): the backend's `command` is executed directly with its
 * `args` (never through a shell) and a minimal environment; each message is one compact
 * JSON object plus `"\n"` on its stdin, and each stdout line must be one JSON-RPC message
 * in strict UTF-8. stderr is drained and never parsed; only its size is reported.
 *
 * - `persistent`: one child per endpoint, started lazily by the first message (so startup
 *   counts against the caller's deadline). Requests are serialised (at most one
 *   outstanding) and matched by id; stale, duplicate, unrelated and unsolicited frames are
 *   dropped. A malformed or oversized line fails the pending request; `maxMalformedLines`
 *   bad lines in a row get the child killed. A child that exits is replaced on the next
 *   message. Interrupting a pending request (deadline, cancellation) kills and reaps the
 *   child before the interruption completes; the next message starts a fresh one. A
 *   notification succeeds once it is queued for the child's stdin (in order with requests).
 * - `per_event`: one child per message. The message is written and stdin closed; a request
 *   succeeds with the first correlated response line (the exit status does not matter),
 *   then the child gets `exitGrace` to exit before it is killed. A notification waits at
 *   most `notificationGrace` for the exit (the status never matters). Either way the child
 *   is reaped before the call returns.
 *
 * Closing the endpoint's scope kills and reaps every child it started, including children
 * that ignore SIGTERM (SIGKILL after `killGrace`); later calls fail with `closed`.
 *
 * @since 0.1.0
 */
import { Json } from "@effect-ahp/protocol"
import type { Registration } from "@effect-ahp/protocol"
import * as Tracing from "@effect-ahp/harness/Tracing"
import * as TransportApi from "@effect-ahp/harness/Transport"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as ExecutionStrategy from "effect/ExecutionStrategy"
import * as Exit from "effect/Exit"
import * as FiberSet from "effect/FiberSet"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Scope from "effect/Scope"
import * as Stream from "effect/Stream"
import * as child from "./internal/child.js"
import * as lines from "./internal/lines.js"
import * as response from "./internal/response.js"

/**
 * Tuning for the stdio binding. Every field is optional; see `defaults`.
 *
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Longest accepted stdout line, in bytes; a longer line fails with `oversized`. */
  readonly maxLineBytes?: number | undefined
  /** Time between SIGTERM and SIGKILL when a child is stopped. */
  readonly killGrace?: Duration.DurationInput | undefined
  /** How long a `per_event` child may take to exit on its own after it has replied. */
  readonly exitGrace?: Duration.DurationInput | undefined
  /** How long a `per_event` child may run after receiving a notification before it is stopped. */
  readonly notificationGrace?: Duration.DurationInput | undefined
  /** Consecutive malformed or oversized lines after which a persistent child is killed. */
  readonly maxMalformedLines?: number | undefined
  /** Extra environment variables for every child, on top of `PATH` and `HOME`. */
  readonly env?: Readonly<Record<string, string>> | undefined
}

/**
 * The default options: 8 MiB lines, 1 s kill grace, 500 ms exit grace after a reply, 5 s
 * for a notification, 3 malformed lines.
 *
 * @since 0.1.0
 * @category constants
 */
export const defaults = {
  maxLineBytes: 8 * 1024 * 1024,
  killGrace: Duration.seconds(1),
  exitGrace: Duration.millis(500),
  notificationGrace: Duration.seconds(5),
  maxMalformedLines: 3
} as const

/**
 * The environment a child receives: `PATH` and `HOME` from this process (when set), plus
 * `extra`. Nothing else of the harness's environment is passed on.
 *
 * @since 0.1.0
 * @category constructors
 */
export const childEnvironment = (extra: Readonly<Record<string, string>> = {}): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const name of ["PATH", "HOME"]) {
    const value = process.env[name]
    if (value !== undefined) env[name] = value
  }
  return { ...env, ...extra }
}

interface Config extends child.ChildConfig {
  readonly maxLineBytes: number
  readonly exitGrace: Duration.Duration
  readonly notificationGrace: Duration.Duration
  readonly maxMalformedLines: number
}

const failure = (reason: TransportApi.TransportFailure, detail: string) =>
  new TransportApi.TransportError({ reason, detail })

const closedError = failure("closed", "the stdio transport was closed")

const encoder = new TextEncoder()

const encode = (message: Json.JsonObject): Uint8Array => encoder.encode(`${Json.stringify(message)}\n`)

const requestId = (message: Json.JsonObject): Effect.Effect<Json.JsonValue> =>
  message.id === undefined ? Effect.dieMessage("a JSON-RPC request needs an id") : Effect.succeed(message.id)

type Outcome = response.Verdict | { readonly _tag: "Oversized" }

type Decisive = Exclude<Outcome, { readonly _tag: "Unrelated" }>

const isDecisive = (outcome: Outcome): outcome is Decisive => outcome._tag !== "Unrelated"

const judge = (frame: lines.Frame, id: Json.JsonValue | undefined): Outcome =>
  frame._tag === "Oversized" ? frame : response.classifyBytes(frame.bytes, id)

const outcomeError = (outcome: Exclude<Decisive, { readonly _tag: "Response" }>) =>
  outcome._tag === "Oversized"
    ? failure("oversized", "the backend wrote a line longer than the size limit")
    : failure("malformed", outcome.detail)

const frames = (stdout: Stream.Stream<Uint8Array, unknown>, maxLineBytes: number): Stream.Stream<lines.Frame> => {
  const splitter = lines.makeSplitter(maxLineBytes)
  return stdout.pipe(
    Stream.catchAll(() => Stream.empty),
    Stream.mapConcat(splitter.push),
    Stream.concat(Stream.suspend(() => Stream.fromIterable(splitter.end())))
  )
}

interface Pending {
  readonly id: Json.JsonValue
  readonly deferred: Deferred.Deferred<Json.JsonValue, TransportApi.TransportError>
}

interface Live extends child.Child {
  readonly scope: Scope.CloseableScope
  readonly input: Queue.Queue<Uint8Array>
  readonly gone: Deferred.Deferred<void>
  pending: Pending | undefined
  malformed: number
  alive: boolean
  retiring: boolean
}

const persistent = Effect.fnUntraced(function*(config: Config) {
  const executor = yield* CommandExecutor.CommandExecutor
  const background = yield* FiberSet.make()
  const lifecycle = yield* Effect.makeSemaphore(1)
  const requests = yield* Effect.makeSemaphore(1)
  const children = yield* Scope.fork(yield* Effect.scope, ExecutionStrategy.parallel)
  let current: Live | undefined
  let closed = false
  // Runs before `children` closes: no child can be started once shutdown has begun.
  yield* Effect.addFinalizer(() => lifecycle.withPermits(1)(Effect.sync(() => void (closed = true))))

  const retire = (live: Live): Effect.Effect<void> =>
    Effect.uninterruptible(Effect.suspend(() => {
      live.alive = false
      if (live.retiring) return Deferred.await(live.gone)
      live.retiring = true
      return Effect.zipRight(Scope.close(live.scope, Exit.void), Deferred.done(live.gone, Exit.void))
    }))

  const settle = (live: Live, outcome: Effect.Effect<Json.JsonValue, TransportApi.TransportError>) =>
    Effect.suspend(() => {
      const pending = live.pending
      live.pending = undefined
      return pending === undefined ? Effect.void : Deferred.complete(pending.deferred, outcome)
    })

  const onFrame = (live: Live, frame: lines.Frame) =>
    Effect.suspend(() => {
      const outcome = judge(frame, live.pending?.id)
      switch (outcome._tag) {
        case "Response":
          live.malformed = 0
          return settle(live, Effect.succeed(outcome.value))
        case "Unrelated":
          live.malformed = 0
          return Effect.void
        default: {
          live.malformed += 1
          const poisoned = live.malformed >= config.maxMalformedLines && live.alive
          if (poisoned) live.alive = false
          return Effect.zipRight(
            settle(live, Effect.fail(outcomeError(outcome))),
            poisoned ? FiberSet.run(background, retire(live)) : Effect.void
          )
        }
      }
    })

  // stdout reached its end: the child is gone (or closed its output); fail the pending
  // request and reap the child in the background.
  const onEnd = (live: Live) =>
    Effect.suspend(() => {
      live.alive = false
      const exited = child.describeEnd(live, "200 millis").pipe(
        Effect.flatMap((how) => Effect.fail(failure("exited", `the backend process ended before answering (${how})`)))
      )
      return Effect.zipRight(settle(live, exited), FiberSet.run(background, retire(live)))
    })

  const onStop = (live: Live) =>
    Effect.suspend(() => {
      live.alive = false
      return settle(live, Effect.fail(closedError))
    })

  const start = Effect.gen(function*() {
    const scope = yield* Scope.fork(children, ExecutionStrategy.sequential)
    const input = yield* Queue.unbounded<Uint8Array>()
    const spawned = yield* child.spawn(config, Stream.fromQueue(input)).pipe(
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
    yield* frames(live.process.stdout, config.maxLineBytes).pipe(
      Stream.runForEach((frame) => onFrame(live, frame)),
      Effect.zipRight(onEnd(live)),
      Effect.onInterrupt(() => onStop(live)),
      Effect.interruptible,
      Effect.forkIn(scope)
    )
    return live
  }).pipe(Effect.provideService(CommandExecutor.CommandExecutor, executor))

  // A child whose exit has already been observed is replaced, even if the end of its
  // output has not been processed yet: it must not be handed the next message.
  const running = (live: Live | undefined): Effect.Effect<boolean> =>
    live === undefined || !live.alive ? Effect.succeed(false) : Effect.orElseSucceed(live.process.isRunning, () => false)

  const ensure = lifecycle.withPermits(1)(Effect.suspend(() => {
    if (closed) return Effect.fail(closedError)
    const candidate = current
    return Effect.flatMap(running(candidate), (usable) => {
      if (usable) return Effect.succeed(candidate!)
      current = undefined
      return (candidate === undefined ? Effect.void : retire(candidate)).pipe(
        Effect.zipRight(start),
        Effect.tap((live) => Effect.sync(() => void (current = live)))
      )
    })
  }))

  const exchange = (live: Live, id: Json.JsonValue, bytes: Uint8Array) =>
    Effect.flatMap(Deferred.make<Json.JsonValue, TransportApi.TransportError>(), (deferred) =>
      Effect.suspend(() => {
        if (!live.alive) return Effect.fail(failure("exited", "the backend process ended before the request was sent"))
        live.pending = { id, deferred }
        return Effect.zipRight(Queue.offer(live.input, bytes), Deferred.await(deferred))
      }).pipe(
        Effect.onInterrupt(() => retire(live)),
        Effect.ensuring(Effect.sync(() => {
          if (live.pending?.deferred === deferred) live.pending = undefined
        }))
      ))

  const endpoint: TransportApi.Endpoint = {
    request: Effect.fnUntraced(function*(message) {
      const id = yield* requestId(message)
      const bytes = encode(message)
      return yield* requests.withPermits(1)(Effect.flatMap(ensure, (live) => exchange(live, id, bytes)))
    }, Tracing.withSpanWhenTraced("StdioTransport.request")),
    notify: Effect.fnUntraced(function*(message) {
      const live = yield* ensure
      yield* Queue.offer(live.input, encode(message))
    }, Tracing.withSpanWhenTraced("StdioTransport.notify"))
  }
  return endpoint
})

const perEvent = Effect.fnUntraced(function*(config: Config) {
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
    Effect.suspend(() => closed ? Effect.fail(closedError) : Effect.void).pipe(
      Effect.zipRight(Effect.acquireUseRelease(
        Scope.fork(children, ExecutionStrategy.sequential),
        (scope) =>
          child.spawn(config, Stream.make(encode(message))).pipe(
            Effect.flatMap(use),
            Scope.extend(scope),
            Effect.provideService(CommandExecutor.CommandExecutor, executor)
          ),
        (scope, exit) => Scope.close(scope, exit)
      ))
    )

  const answer = (spawned: child.Child, id: Json.JsonValue) =>
    frames(spawned.process.stdout, config.maxLineBytes).pipe(
      Stream.map((frame) => judge(frame, id)),
      Stream.filter(isDecisive),
      Stream.runHead,
      Effect.flatMap(Option.match({
        onNone: () =>
          child.describeEnd(spawned, config.exitGrace).pipe(
            Effect.flatMap((how) =>
              Effect.fail(failure(closed ? "closed" : "exited", `the backend process ended before answering (${how})`))
            )
          ),
        onSome: (outcome) =>
          outcome._tag === "Response" ? Effect.succeed(outcome.value) : Effect.fail(outcomeError(outcome))
      }))
    )

  const endpoint: TransportApi.Endpoint = {
    request: Effect.fnUntraced(function*(message) {
      const id = yield* requestId(message)
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

/**
 * Connects a stdio backend for the lifetime of the current scope. Connecting starts
 * nothing: children are started by the messages that need them.
 *
 * @since 0.1.0
 * @category constructors
 */
export const connect = (
  transport: Registration.StdioTransport,
  options: Options = {}
): Effect.Effect<TransportApi.Endpoint, never, Scope.Scope | CommandExecutor.CommandExecutor> => {
  const config: Config = {
    transport,
    env: childEnvironment(options.env),
    killGrace: Duration.decode(options.killGrace ?? defaults.killGrace),
    exitGrace: Duration.decode(options.exitGrace ?? defaults.exitGrace),
    notificationGrace: Duration.decode(options.notificationGrace ?? defaults.notificationGrace),
    maxLineBytes: options.maxLineBytes ?? defaults.maxLineBytes,
    maxMalformedLines: options.maxMalformedLines ?? defaults.maxMalformedLines
  }
  return transport.lifecycle === "persistent" ? persistent(config) : perEvent(config)
}
