/**
 * A reference stdio transport on `@effect/platform`'s
 * `CommandExecutor` with a `Semaphore`: the contract's yardstick for `StdioTransport`, which
 * drives `node:child_process` directly with its own lock. Persistent: one child at a time,
 * started on first use, one request outstanding, one JSON-RPC message per line (per event:
 * a child per message, its stdin ended after it, stopped before the call returns); frames with another id
 * are skipped. An exchange that leaves the child in an unknown state (interruption, an exit,
 * three bad lines in a row) retires the child; the next call starts a new one. The child's group gets SIGTERM, then SIGKILL after a grace, when it is retired.
 */
import * as TransportApi from "@effect-ahp/harness/Transport"
import { Json } from "@effect-ahp/protocol"
import type { Registration } from "@effect-ahp/protocol"
import * as Command from "@effect/platform/Command"
import * as CommandExecutor from "@effect/platform/CommandExecutor"
import { Context, Duration, Effect, Either, ExecutionStrategy, Exit, Option, Queue, Ref, Scope, Stream } from "effect"
import * as response from "../../src/internal/response.js"

/** What the reference is told besides the transport. */
export interface Options {
  readonly maxLineBytes: number
  readonly killGrace: Duration.DurationInput
  /** The child's whole environment (nothing of this process's is added); its values beyond `PATH` and `HOME` are masked in JSON-RPC error answers. */
  readonly env: Readonly<Record<string, string>>
}

const failure = (reason: TransportApi.TransportFailure, detail: string) =>
  new TransportApi.TransportError({ reason, detail })

/** A running child: its scope, its stdin queue, and what it wrote, line by line (`None` once stdout ended). */
interface Child {
  readonly scope: Scope.CloseableScope
  readonly stdin: Queue.Queue<Uint8Array>
  readonly lines: Queue.Queue<Option.Option<Buffer>>
}

const encoder = new TextEncoder()

/** Bad lines in a row (not JSON, too long) after which the child is retired, as `StdioTransport` does by default. */
const maxBadLines = 3

/** How long a notified per-event child may take to read its message and exit, as `StdioTransport`'s default. */
const notificationGrace = Duration.seconds(5)

/** Connects the backend for the lifetime of the current scope, through the `CommandExecutor` in context. */
export const connect = (
  transport: Registration.StdioTransport,
  options: Options
): Effect.Effect<TransportApi.Endpoint, never, CommandExecutor.CommandExecutor | Scope.Scope> =>
  Effect.gen(function*() {
    const outer = yield* Effect.scope
    const secrets = Object.entries(options.env).filter(([name]) => name !== "PATH" && name !== "HOME").map((
      [, value]
    ) => value)
    const semaphore = yield* Effect.makeSemaphore(1)
    const current = yield* Ref.make(Option.none<Child>())
    const closed = yield* Ref.make(false)
    const badLines = yield* Ref.make(0)
    // only the executor: the caller's scope must not become the children's
    const context = Context.pick(CommandExecutor.CommandExecutor)(
      yield* Effect.context<CommandExecutor.CommandExecutor>()
    )

    const spawn: Effect.Effect<Child, TransportApi.TransportError> = Effect.gen(function*() {
      const scope = yield* Scope.fork(outer, ExecutionStrategy.sequential)
      const stdin = yield* Queue.unbounded<Uint8Array>()
      const lines = yield* Queue.unbounded<Option.Option<Buffer>>()
      // runs last: a reader still waiting learns the child is gone
      yield* Scope.addFinalizer(scope, Queue.offer(lines, Option.none()))
      const command = Command.make(transport.command, ...(transport.args ?? [])).pipe(
        // an empty chunk ends stdin (shutting the queue down would drop what it still holds)
        Command.env(options.env, { extendEnv: false }),
        Command.stdin(Stream.takeWhile(Stream.fromQueue(stdin), (bytes) => bytes.length > 0)),
        transport.cwd === undefined ? (c) => c : Command.workingDirectory(transport.cwd)
      )
      const started = yield* Command.start(command).pipe(
        Effect.provide(context),
        Scope.extend(scope),
        Effect.mapError(() => failure("spawn", "the command could not be started"))
      )
      yield* Scope.addFinalizer(
        scope,
        Effect.zipRight(Queue.shutdown(stdin), started.kill("SIGTERM")).pipe(
          Effect.interruptible,
          Effect.timeout(options.killGrace),
          Effect.catchAll(() => started.kill("SIGKILL")),
          Effect.ignore
        )
      )
      let pending = Buffer.alloc(0)
      yield* started.stdout.pipe(
        Stream.runForEach((bytes) => {
          pending = Buffer.concat([pending, bytes])
          const complete: Array<Option.Option<Buffer>> = []
          for (let end = pending.indexOf(10); end >= 0; end = pending.indexOf(10)) {
            complete.push(Option.some(pending.subarray(0, end)))
            pending = pending.subarray(end + 1)
          }
          return Queue.offerAll(lines, complete)
        }),
        Effect.ignore,
        // a last line without its newline counts
        Effect.zipRight(
          Effect.suspend(() => pending.length > 0 ? Queue.offer(lines, Option.some(pending)) : Effect.void)
        ),
        Effect.zipRight(Queue.offer(lines, Option.none())),
        // a child whose stdout ended is gone: the next call starts a new one
        Effect.zipRight(Ref.update(current, (c) => Option.filter(c, (running) => running.lines !== lines))),
        Effect.forkIn(scope)
      )
      yield* Stream.runDrain(started.stderr).pipe(Effect.ignore, Effect.forkIn(scope))
      return { scope, stdin, lines }
    })

    const retire = Effect.flatMap(Ref.getAndSet(current, Option.none()), (child) =>
      Option.match(child, {
        onNone: () => Effect.void,
        onSome: ({ scope }) => Scope.close(scope, Exit.void)
      }))

    const child = Effect.flatMap(Ref.get(current), (found) =>
      Option.match(found, {
        onSome: Effect.succeed,
        onNone: () => Effect.tap(spawn, (c) => Ref.set(current, Option.some(c)))
      }))

    const send = (running: Child, message: Json.JsonObject) =>
      Effect.flatMap(
        Either.match(Json.encode(message), {
          onLeft: () => Effect.fail(failure("malformed", "the message cannot be encoded")),
          onRight: Effect.succeed
        }),
        (text) => Queue.offer(running.stdin, encoder.encode(text + "\n"))
      )

    /** Reads lines until the response to `id`; a line that is not JSON fails (the child is kept). */
    const answer = (running: Child, id: Json.JsonValue): Effect.Effect<Json.JsonValue, TransportApi.TransportError> =>
      Effect.flatMap(Queue.take(running.lines), (line) => {
        if (Option.isNone(line)) return Effect.fail(failure("exited", "the backend exited"))
        if (line.value.length > options.maxLineBytes) {
          return Effect.fail(failure("oversized", `a line is larger than ${options.maxLineBytes} bytes`))
        }
        const parsed = Json.parseBytes(line.value)
        if (Either.isLeft(parsed)) return Effect.fail(failure("malformed", "a line is not JSON"))
        const verdict = response.classify(parsed.right, id, () => secrets)
        return verdict._tag === "Response"
          ? Effect.succeed(verdict.value)
          : verdict._tag === "Unrelated"
          ? answer(running, id)
          : Effect.fail(failure("malformed", verdict.detail))
      })

    /** Waits for the end of the child's stdout. */
    const drain = (running: Child): Effect.Effect<void> =>
      Effect.flatMap(Queue.take(running.lines), (line) => Option.isNone(line) ? Effect.void : drain(running))

    const exchange = <A>(
      use: (running: Child) => Effect.Effect<A, TransportApi.TransportError>
    ): Effect.Effect<A, TransportApi.TransportError> =>
      semaphore.withPermits(1)(
        Effect.gen(function*() {
          if (yield* Ref.get(closed)) return yield* failure("closed", "the transport was closed")
          const running = yield* child
          return yield* use(running).pipe(
            Effect.tap(() => Ref.set(badLines, 0)),
            Effect.tapErrorCause((cause) =>
              // a line that is not JSON or too long leaves the child as it was, up to
              // `maxBadLines` in a row; anything else retires it
              cause._tag === "Fail" && (cause.error.reason === "malformed" || cause.error.reason === "oversized")
                ? Effect.flatMap(
                  Ref.updateAndGet(badLines, (n) => n + 1),
                  (n) => n >= maxBadLines ? Effect.zipRight(Ref.set(badLines, 0), retire) : Effect.void
                )
                : Effect.zipRight(Ref.set(badLines, 0), retire)
            ),
            Effect.onInterrupt(() => retire)
          )
        })
      ).pipe(
        Effect.catchAllCause((cause) =>
          Effect.flatMap(Ref.get(closed), (isClosed) =>
            isClosed ? Effect.fail(failure("closed", "the transport was closed")) : Effect.failCause(cause))
        )
      )

    yield* Effect.addFinalizer(() => Effect.zipRight(Ref.set(closed, true), retire))

    if (transport.lifecycle === "per_event") {
      // one child per message, in a scope of its own: stdin ended once the message is
      // written; the child's group stopped (and so reaped) before the call returns
      const once = <A>(use: (running: Child) => Effect.Effect<A, TransportApi.TransportError>) =>
        Effect.gen(function*() {
          if (yield* Ref.get(closed)) return yield* failure("closed", "the transport was closed")
          const running = yield* spawn
          return yield* Effect.ensuring(use(running), Scope.close(running.scope, Exit.void))
        }).pipe(
          Effect.catchAllCause((cause) =>
            Effect.flatMap(
              Ref.get(closed),
              (isClosed) =>
                isClosed ? Effect.fail(failure("closed", "the transport was closed")) : Effect.failCause(cause)
            )
          )
        )
      return {
        request: (message) =>
          once((running) =>
            send(running, message).pipe(
              Effect.zipRight(Queue.offer(running.stdin, new Uint8Array(0))),
              Effect.zipRight(answer(running, message["id"] ?? null))
            )
          ),
        notify: (message) =>
          once((running) =>
            send(running, message).pipe(
              Effect.zipRight(Queue.offer(running.stdin, new Uint8Array(0))),
              // what it read is delivered once it ends (its stdout ends with it), or after a grace
              Effect.zipRight(Effect.timeout(drain(running), notificationGrace)),
              Effect.ignore
            )
          )
      }
    }

    return {
      request: (message) =>
        exchange((running) => Effect.zipRight(send(running, message), answer(running, message["id"] ?? null))),
      notify: (message) => exchange((running) => send(running, message))
    }
  })
