/**
 * `ahp serve … --audit FILE [--audit-content]`: the backend's own record of its calls, one
 * JSON line per handler run — what it was asked (the event's identity and trace context,
 * never its content unless `--audit-content`), how long the handler took, and what it
 * answered (the effects' types, targets and operations) or that it failed. A backend
 * settles nothing, so this is not the harness's decision record (`--audit` on `dispatch`,
 * `hook`, `bridge`, `demo`): the decision, the chain and the failure policy are the
 * harness's to record. Lines are appended to a file of mode 0600; a line that cannot be
 * written is dropped with one notice on stderr, never delaying or changing an answer.
 *
 * @since 0.1.0
 */
import { Backend } from "@effect-ahp/backend"
import { type Event, HookEffect } from "@effect-ahp/protocol"
import { Clock, Effect, Exit, Layer } from "effect"
import * as fs from "node:fs"

/**
 * One handler run, as written to the file.
 *
 * @since 0.1.0
 * @category models
 */
export interface Record {
  readonly version: 1
  readonly side: "backend"
  /** When the handler ended (ISO 8601). */
  readonly time: string
  readonly mode: "intercept" | "observe"
  readonly event: {
    readonly id: string
    readonly type: string
    readonly source: string
    readonly sessionId?: string
    readonly turnId?: string
    readonly callId?: string
    readonly traceContext?: unknown
  }
  readonly latencyMs: number
  readonly outcome: "answered" | "observed" | "failed"
  /** For `answered`: the effects the handler returned (before the server's grant check). */
  readonly effects?: ReadonlyArray<{ readonly type: string; readonly target?: string; readonly operation?: string }>
  /** Only with `--audit-content`: the event as received. */
  readonly content?: { readonly event: unknown }
}

const idOf = (value: unknown): string | undefined =>
  typeof value === "object" && value !== null && typeof (value as { id?: unknown }).id === "string"
    ? (value as { id: string }).id
    : undefined

const eventOf = (event: Event.Event): Record["event"] => {
  const fields = event as unknown as { readonly [key: string]: unknown }
  const sessionId = idOf(fields.session)
  const turnId = idOf(fields.turn)
  const callId = idOf(fields.call)
  const extensions = fields.extensions as { readonly [key: string]: unknown } | undefined
  const traceContext = extensions?.["org.w3c.trace_context"]
  return {
    id: event.id,
    type: event.type,
    source: event.source,
    ...(sessionId !== undefined ? { sessionId } : {}),
    ...(turnId !== undefined ? { turnId } : {}),
    ...(callId !== undefined ? { callId } : {}),
    ...(traceContext !== undefined ? { traceContext } : {})
  }
}

/**
 * Wraps the backend's handlers so that every run is recorded in `file`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  file: string,
  options: { readonly content: boolean }
): Layer.Layer<Backend.Handlers, never, Backend.Handlers> =>
  Layer.scoped(
    Backend.Handlers,
    Effect.gen(function*() {
      const inner = yield* Backend.Handlers
      const fd = yield* Effect.acquireRelease(
        Effect.sync(() => {
          try {
            return fs.openSync(file, "a", 0o600)
          } catch {
            process.stderr.write(`ahp serve: the audit file ${file} cannot be opened; serving without it\n`)
            return undefined
          }
        }),
        (fd) => Effect.sync(() => fd !== undefined && fs.closeSync(fd))
      )
      let warned = false
      const write = (record: Record) =>
        Effect.sync(() => {
          if (fd === undefined) return
          try {
            fs.writeSync(fd, `${JSON.stringify(record)}\n`)
          } catch {
            if (!warned) process.stderr.write(`ahp serve: an audit record could not be written to ${file}\n`)
            warned = true
          }
        })
      const recorded = <A, E>(
        mode: Record["mode"],
        event: Event.Event,
        run: Effect.Effect<A, E>,
        answered: (value: A) => Pick<Record, "outcome" | "effects">
      ) =>
        Effect.flatMap(Clock.currentTimeMillis, (started) =>
          Effect.onExit(run, (exit) =>
            Effect.flatMap(Clock.currentTimeMillis, (ended) =>
              write({
                version: 1,
                side: "backend",
                time: new Date(ended).toISOString(),
                mode,
                event: eventOf(event),
                latencyMs: ended - started,
                ...(Exit.isSuccess(exit) ? answered(exit.value) : { outcome: "failed" as const }),
                ...(options.content ? { content: { event } } : {})
              }))))
      return Backend.Handlers.of({
        register: inner.register,
        intercepts: (eventType) =>
          inner.intercepts(eventType).map((handler) => ({
            ...handler,
            run: (request) =>
              recorded("intercept", request.event, handler.run(request), (effects) => ({
                outcome: "answered",
                effects: effects.map(HookEffect.summarize)
              }))
          })),
        observers: (eventType) =>
          inner.observers(eventType).map((handler) => ({
            ...handler,
            run: (event) =>
              recorded("observe", event, handler.run(event), () => ({ outcome: "observed" }))
          }))
      })
    })
  )
