/**
 * The registrations the scenarios install beside (or instead of) the README's example: the
 * example backends of `ahp serve` and the scripted test backend, as stdio children.
 */
import type { Registration, Workspace } from "./Workspace.js"
import { example, exampleBackend, scripted } from "./Workspace.js"

/** An intercept subscription. */
export const intercept = (
  id: string,
  events: ReadonlyArray<string>,
  options: { readonly failClosed?: boolean; readonly timeoutMs?: number } = {}
) => ({
  id,
  mode: "intercept",
  events,
  timeoutMs: options.timeoutMs ?? 10_000,
  failurePolicy: options.failClosed === false ? "fail-open" : "fail-closed",
  content: { default: "body" }
})

/** A registration of backends. */
export const of = (...hooks: ReadonlyArray<unknown>): Registration => ({ protocolVersion: "draft", hooks })

/** The example registration with more backends after its own. */
export const exampleWith = (bundle: string, workspace: Workspace, ...hooks: ReadonlyArray<unknown>): Registration => {
  const base = example(bundle, workspace)
  return { ...base, hooks: [...base.hooks, ...hooks] }
}

/** The example secret redactor at `tool.after`. */
export const redactor = (bundle: string) =>
  exampleBackend(bundle, "com.example.secret-redactor", "secret-redactor", [intercept("redact", ["tool.after"])])

/** The example prompt annotator at `turn.start`. */
export const annotator = (bundle: string) =>
  exampleBackend(bundle, "com.example.prompt-annotator", "prompt-annotator", [intercept("annotate", ["turn.start"])])

/** A developer message of one text part, as an `inject` value holds it. */
export const developerMessage = (id: string, text: string) => ({
  id,
  role: "developer",
  parts: [{ id: `${id}.text`, kind: "text", mediaType: "text/plain", selection: "body", text }]
})

/** The scripted backend answering every request with `effects`. */
export const answering = (
  id: string,
  events: ReadonlyArray<string>,
  effects: ReadonlyArray<unknown>,
  options: { readonly log?: string } = {}
) => scripted(id, `effects=${JSON.stringify(effects)}`, [intercept(id, events)], options)

/** The secret the scenarios put into tool output (a GitHub token's shape; not a real one). */
export const secret = "ghp_" + "Zq8mN2vX5rT9wK3pL7hJ4dF6sA1gC0bYeU"
