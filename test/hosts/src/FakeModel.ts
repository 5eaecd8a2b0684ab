/**
 * A scripted model server for one host run: node:http on 127.0.0.1, port 0, speaking one
 * vendor's streaming API (Anthropic Messages for Claude Code, OpenAI Responses for Codex).
 * Each request the agent loop sends gets the script's next step — call a tool with an
 * input, or answer with text and finish — and every request is logged with its arrival
 * and answer times, so a test reads what the host told the model after a hook ran (the
 * tool result, the deny reason, the injected context) and a benchmark reads how long the
 * host took between a tool call and the next request.
 *
 * Bounded: a request body over 8 MiB is refused, requests past `maxRequests` get an error
 * the host does not retry, and the server closes itself after `lifetimeMs` (and on
 * `close`), its connections with it. Requests that are not the agent's (Codex's approval
 * reviewer, Claude Code's side queries) are answered by `side` without consuming a step.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"

/** One scripted answer. */
export type Step =
  | { readonly _tag: "Tool"; readonly name: string; readonly input: Readonly<Record<string, unknown>> }
  | { readonly _tag: "Text"; readonly text: string }

/** A step that calls tool `name` with `input`. */
export const tool = (name: string, input: Readonly<Record<string, unknown>>): Step => ({ _tag: "Tool", name, input })

/** A step that answers with `text` and ends the turn. */
export const text = (value: string): Step => ({ _tag: "Text", text: value })

/** The text the model answers once the script is done. */
export const finished = "All done."

/** A tool result as the model received it. */
export interface ToolResult {
  readonly callId: string
  /** The result's text, as the model sees it (parts joined). */
  readonly text: string
  /** Whether the host marked it as an error (Anthropic `is_error`; always false for OpenAI). */
  readonly isError: boolean
}

/** What one vendor API needs: its path, its SSE answer for a step, and how to read a request. */
export interface Vendor {
  readonly name: "anthropic" | "openai"
  /** The request path the host posts to (without the query). */
  readonly path: string
  /** The id of the n-th tool call (1-based). */
  readonly callId: (n: number) => string
  /** The SSE body answering with a step; `n` numbers the answer (1-based). */
  readonly encode: (step: Step, n: number) => string
  /** Whether a request is the agent loop's (rather than a side query). */
  readonly isAgent: (body: unknown) => boolean
  /** The tool results a request carries. */
  readonly results: (body: unknown) => ReadonlyArray<ToolResult>
}

/** One request the server received. */
export interface Exchange {
  /** 0-based, over all requests. */
  readonly index: number
  readonly path: string
  /** The parsed JSON body (`undefined` when it was not JSON). */
  readonly body: unknown
  /** The raw body text. */
  readonly raw: string
  readonly agent: boolean
  /** The step answered (`undefined` for a refused request). */
  readonly step: Step | undefined
  /** The tool call id the answer carried, for a tool step. */
  readonly callId: string | undefined
  /** When the request's body had arrived and when the whole answer was written (ms since the epoch, sub-millisecond). */
  readonly receivedAt: number
  answeredAt: number
}

/** How the server behaves. */
export interface Options {
  readonly steps: ReadonlyArray<Step>
  /** The answer to requests that are not the agent's (default: a short text). */
  readonly side?: ((body: unknown) => Step) | undefined
  /** Requests answered at most (default 24); later ones get a non-retryable error. */
  readonly maxRequests?: number | undefined
  /** The server's lifetime (default 180 s). */
  readonly lifetimeMs?: number | undefined
}

/** A running fake model. */
export interface FakeModel {
  readonly vendor: Vendor
  /** `http://127.0.0.1:PORT`. */
  readonly origin: string
  readonly exchanges: ReadonlyArray<Readonly<Exchange>>
  /** The requests of the agent loop, in order. */
  readonly agentRequests: () => ReadonlyArray<Exchange>
  /** The first request carrying the result of a call, and that result. */
  readonly resultOf: (callId: string) => { readonly exchange: Exchange; readonly result: ToolResult } | undefined
  /** Whether any request's raw body contains `needle`. */
  readonly anyRequestContains: (needle: string) => boolean
  readonly close: () => Promise<void>
}

const maxBody = 8 * 1024 * 1024
const now = () => performance.timeOrigin + performance.now()

/** Starts a fake model for a vendor. */
export const start = (vendor: Vendor, options: Options): Promise<FakeModel> =>
  new Promise((resolve, reject) => {
    const exchanges: Array<Exchange> = []
    const maxRequests = options.maxRequests ?? 24
    let agentCount = 0
    let answers = 0
    const server = http.createServer((request, response) => {
      const chunks: Array<Buffer> = []
      let size = 0
      request.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > maxBody) {
          response.writeHead(413).end()
          request.destroy()
          return
        }
        chunks.push(chunk)
      })
      request.on("end", () => {
        if (size > maxBody) return
        const receivedAt = now()
        const raw = Buffer.concat(chunks).toString("utf8")
        const body = parse(raw)
        const path = (request.url ?? "").split("?")[0] ?? ""
        const agent = vendor.isAgent(body)
        const log = (step: Step | undefined, callId: string | undefined) => {
          const exchange = {
            index: exchanges.length,
            path,
            body,
            raw,
            agent,
            step,
            callId,
            receivedAt,
            answeredAt: now()
          }
          exchanges.push(exchange)
          return exchange
        }
        if (request.method !== "POST" || path !== vendor.path || exchanges.length >= maxRequests) {
          log(undefined, undefined)
          response.writeHead(400, { "content-type": "application/json" }).end(
            JSON.stringify({
              type: "error",
              error: { type: "invalid_request_error", message: "the fake model refuses this request" }
            })
          )
          return
        }
        const step = agent
          ? options.steps[agentCount++] ?? text(finished)
          : (options.side ?? (() => text(finished)))(body)
        answers += 1
        const callId = step._tag === "Tool" ? vendor.callId(answers) : undefined
        response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
        const exchange = log(step, callId)
        response.end(vendor.encode(step, answers), () => {
          exchange.answeredAt = now()
        })
      })
    })
    const lifetime = setTimeout(() => void close(), options.lifetimeMs ?? 180_000)
    lifetime.unref()
    const close = () =>
      new Promise<void>((done) => {
        clearTimeout(lifetime)
        server.close(() => done())
        server.closeAllConnections()
      })
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as AddressInfo
      resolve({
        vendor,
        origin: `http://127.0.0.1:${port}`,
        exchanges,
        agentRequests: () => exchanges.filter((e) => e.agent),
        resultOf: (callId) => {
          for (const exchange of exchanges) {
            const result = vendor.results(exchange.body).find((r) => r.callId === callId)
            if (result !== undefined) return { exchange, result }
          }
          return undefined
        },
        anyRequestContains: (needle) => exchanges.some((e) => e.raw.includes(needle)),
        close
      })
    })
  })

const parse = (raw: string): unknown => {
  try {
    return JSON.parse(raw)
  } catch {
    return undefined
  }
}

/** One server-sent event. */
export const sse = (event: string, data: unknown): string => `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`

/** `value[key]` when `value` is an object. */
export const field = (value: unknown, key: string): unknown =>
  typeof value === "object" && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)[key]
    : undefined

/** `value` as an array (empty when it is not one). */
export const list = (value: unknown): ReadonlyArray<unknown> => (Array.isArray(value) ? value : [])
