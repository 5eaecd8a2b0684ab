/**
 * What both stdio lifecycles share: the resolved options, failures, and the judgement of a
 * stdout frame while a request is pending.
 *
 * @internal
 */
import * as TransportApi from "@effect-ahp/harness/Transport"
import type { Framing, Json } from "@effect-ahp/protocol"
import type * as Duration from "effect/Duration"
import type * as child from "./child.js"
import * as response from "./response.js"

/** @internal */
export interface Config extends child.ChildConfig {
  /** The backend's id, for log lines (when known). */
  readonly backend: string | undefined
  readonly maxLineBytes: number
  readonly exitGrace: Duration.Duration
  readonly notificationGrace: Duration.Duration
  readonly maxMalformedLines: number
  /** How long a persistent child may take to answer its first request before a deadline retires it. */
  readonly startupTimeout: Duration.Duration
  /** How long a closing persistent child that was sent observations may take to read them and exit. */
  readonly observationGrace: Duration.Duration
  /** Whether the harness makes a single call (see `StdioTransport.Options.oneShot`). */
  readonly oneShot: boolean
}

/** @internal */
export const failure = (reason: TransportApi.TransportFailure, detail: string) =>
  new TransportApi.TransportError({ reason, detail })

/** @internal */
export const closedError = failure("closed", "the stdio transport was closed")

/**
 * What a frame means for the pending request: its response, nothing (`Unrelated`), or a
 * failure.
 *
 * @internal
 */
export type Outcome = response.Verdict | Framing.Oversized

/** @internal */
export type Decisive = Exclude<Outcome, { readonly _tag: "Unrelated" }>

/** @internal */
export const isDecisive = (outcome: Outcome): outcome is Decisive => outcome._tag !== "Unrelated"

/** @internal */
export const judge = (
  frame: Framing.Frame,
  id: Json.JsonValue | undefined,
  secrets: () => ReadonlyArray<string>
): Outcome => frame._tag === "Oversized" ? frame : response.classifyBytes(frame.bytes, id, secrets)

/** The failure for a bad frame, with the child's stderr tail. @internal */
export const outcomeError = (outcome: Exclude<Decisive, { readonly _tag: "Response" }>, process: child.Child) =>
  outcome._tag === "Oversized"
    ? failure("oversized", process.withStderr("the backend wrote a line longer than the size limit"))
    : failure("malformed", process.withStderr(outcome.detail))
