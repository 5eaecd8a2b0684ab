/**
 * The warm path, client side: the command hook hands its call to a running `ahp bridge`
 * over the bridge's local socket (HTTP over a Unix socket, or a named pipe on Windows) and
 * prints the answer it gets. Whenever the bridge cannot answer — no socket, nobody
 * listening, another registration loaded, an error — the hook dispatches the call itself,
 * so a bridge that is down only costs the warm path's speed. A socket that is not this
 * user's, or whose folder others may open, is never used. Plain Node, no Effect.
 *
 * @since 0.1.0
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { maxInputBytes } from "./Limits.js"
import * as Locate from "./Locate.js"

/**
 * What the hook sends: the payload as received and everything the bridge needs to answer
 * exactly as the hook would.
 *
 * @since 0.1.0
 * @category models
 */
export interface Forwarded {
  readonly payload: string
  /** The digest of the registration text the hook found; the bridge answers only for the same. */
  readonly registrationSha256: string
  /** When the answer is due (epoch milliseconds). */
  readonly deadline: number
  readonly failClosed: boolean
  readonly verbose: boolean
  readonly source: string | undefined
}

/**
 * The bridge's answer.
 *
 * @since 0.1.0
 * @category models
 */
export interface Forwarding {
  readonly stdout: string
  readonly stderr: string
}

const isForwarding = (u: unknown): u is Forwarding =>
  typeof u === "object" && u !== null && typeof (u as Forwarding).stdout === "string" &&
  typeof (u as Forwarding).stderr === "string"

/** Whether `socket` is a socket of this user's in a folder private to this user (else another user could answer). */
const isOwnSocket = (socket: string): boolean => {
  try {
    const stat = fs.lstatSync(socket)
    return stat.isSocket() && stat.uid === process.getuid?.() && Locate.isPrivateDir(path.dirname(socket))
  } catch {
    return false
  }
}

/**
 * Sends a call to the bridge listening on `socket` for `host`; `undefined` when the bridge
 * cannot answer it (the caller then dispatches the call itself). The answer is untrusted
 * bytes: one over `maxInputBytes`, or not complete by the call's deadline, is dropped
 * unread and the request destroyed.
 *
 * @since 0.1.0
 * @category forwarding
 */
export const forward = async (socket: string, host: string, call: Forwarded): Promise<Forwarding | undefined> => {
  if (process.platform !== "win32" && !isOwnSocket(socket)) return undefined
  const http = await import("node:http")
  const body = JSON.stringify(call)
  return new Promise((resolve) => {
    let settled = false
    const settle = (value: Forwarding | undefined) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      request.destroy()
      resolve(value)
    }
    const request = http.request({
      socketPath: socket,
      path: `/forward/${host}`,
      method: "POST",
      headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) }
    }, (response) => {
      const declared = Number(response.headers["content-length"])
      if (response.statusCode !== 200 || declared > maxInputBytes) return settle(undefined)
      const chunks: Array<Buffer> = []
      let size = 0
      response.on("data", (chunk: Buffer) => {
        size += chunk.length
        if (size > maxInputBytes) return settle(undefined)
        chunks.push(chunk)
      })
      response.on("end", () => {
        try {
          const value: unknown = JSON.parse(Buffer.concat(chunks).toString("utf8"))
          settle(isForwarding(value) ? value : undefined)
        } catch {
          settle(undefined)
        }
      })
      response.on("error", () => settle(undefined))
    })
    const timer = setTimeout(() => settle(undefined), Math.max(1, call.deadline - Date.now()))
    request.on("error", () => settle(undefined))
    request.end(body)
  })
}
