/**
 * The raw transport floors the stdio and HTTP families compare against: the scripted
 * backend driven directly by Node — a line written to a child's stdin and a line read from
 * its stdout, or a `node:http` POST over a keep-alive connection — with nothing else than
 * parsing the (small) answer and checking its id.
 */
import { type ChildProcessWithoutNullStreams, spawn } from "node:child_process"
import { Agent, request } from "node:http"
import { scriptedBackend } from "./fixtures.js"
import { nodeCommand } from "./placement.js"

/** A persistent stdio child answering one line per line written. */
export interface LineClient {
  /** Writes `line` (which ends with a newline) and resolves with the next line read. */
  readonly roundTrip: (line: string) => Promise<string>
  readonly close: () => Promise<void>
}

/** Starts the scripted backend in stdio mode with `behaviour`. */
export const lineClient = (behaviour = "ok"): LineClient => {
  const { args, command } = nodeCommand([scriptedBackend, "stdio", behaviour])
  const child: ChildProcessWithoutNullStreams = spawn(command, args)
  let pending: ((line: string) => void) | undefined
  let buffered: Array<Buffer> = []
  child.stdout.on("data", (chunk: Buffer) => {
    let start = 0
    for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
      buffered.push(chunk.subarray(start, i))
      const line = Buffer.concat(buffered).toString("utf8")
      buffered = []
      start = i + 1
      const resolve = pending
      pending = undefined
      resolve?.(line)
    }
    if (start < chunk.length) buffered.push(chunk.subarray(start))
  })
  return {
    roundTrip: (line) =>
      new Promise((resolve) => {
        pending = resolve
        child.stdin.write(line)
      }),
    close: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve()
        child.once("exit", () => resolve())
        child.kill("SIGTERM")
      })
  }
}

/** An HTTP backend process: the scripted backend in HTTP mode. */
export interface HttpServer {
  readonly url: string
  readonly close: () => Promise<void>
}

/** Starts the scripted backend in HTTP mode with `behaviour`, resolving once it listens. */
export const httpServer = (behaviour = "ok", ...args: Array<string>): Promise<HttpServer> =>
  new Promise((resolve, reject) => {
    const node = nodeCommand([scriptedBackend, "http", "-", behaviour, ...args])
    const child = spawn(node.command, node.args, {
      stdio: ["ignore", "pipe", "inherit"]
    })
    child.once("error", reject)
    child.stdout.once("data", (chunk: Buffer) => {
      const port = /PORT (\d+)/.exec(chunk.toString("utf8"))?.[1]
      if (port === undefined) return reject(new Error("the HTTP backend did not report its port"))
      resolve({
        url: `http://127.0.0.1:${port}/hooks`,
        close: () =>
          new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done()
            child.once("exit", () => done())
            child.kill("SIGTERM")
          })
      })
    })
  })

/** A keep-alive `node:http` client posting JSON bodies to one URL. */
export interface HttpClient {
  /** Posts `body` and resolves with the response body text. */
  readonly post: (body: Buffer) => Promise<string>
  readonly close: () => void
}

/** A client with one keep-alive connection, sending `headers` besides its own. */
export const httpClient = (url: string, headers: Readonly<Record<string, string>> = {}): HttpClient => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const target = new URL(url)
  return {
    post: (body) =>
      new Promise((resolve, reject) => {
        const req = request({
          agent,
          host: target.hostname,
          port: target.port,
          path: target.pathname,
          method: "POST",
          headers: {
            ...headers,
            "content-type": "application/json",
            accept: "application/json",
            "content-length": body.length
          }
        }, (res) => {
          const chunks: Array<Buffer> = []
          res.on("data", (c: Buffer) => chunks.push(c))
          res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
          res.on("error", reject)
        })
        req.on("error", reject)
        req.end(body)
      }),
    close: () => agent.destroy()
  }
}

/** Parses a JSON-RPC answer and checks it answers `id` (what any client must do). */
export const checkAnswer = (text: string, id: string): void => {
  const answer = JSON.parse(text)
  if (answer?.id !== id || answer.jsonrpc !== "2.0") throw new Error("unexpected answer")
}
