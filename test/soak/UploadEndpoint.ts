/**
 * The soak's upload endpoint: one HTTP server per epoch with a route per backend
 * (`/upload/<backend id>`), each playing its planned `uploads` sequence. Which planned
 * upload a request is comes from the attachment it carries (its `AHP-Content-SHA256`,
 * each dispatch's attachment being new random bytes), not from the order requests arrive
 * in: an upload that never reached the endpoint (aborted by its deadline on a busy
 * machine, e.g. an observation's, whose outcome no decision shows) or one still in flight
 * when the next dispatch started cannot shift the behaviour of a later one. It checks
 * what the harness sends — the declared length and `AHP-Content-SHA256` against the
 * bytes received, the bytes against an attachment the soak dispatched, and at most one
 * upload per backend and attachment — and remembers the reference each confirmed upload
 * was given, so what the backends later received can be checked against it.
 */
import * as Crypto from "node:crypto"
import * as Http from "node:http"
import type * as Net from "node:net"
import type * as plan from "./plan.js"

/** A running upload endpoint. */
export interface UploadEndpoint {
  /** The upload endpoint of a backend. */
  readonly url: (backendId: string) => string
  /**
   * Announces a dispatch's attachment and, by backend id, which of the backend's planned
   * uploads an upload of it is.
   */
  readonly expect: (bytes: Uint8Array, uploads: ReadonlyMap<string, number>) => void
  /** Problems seen so far (framing or bytes not as sent by the host). */
  readonly problems: Array<string>
  /** The references issued by confirmed uploads, by backend id. */
  readonly issued: Map<string, Set<string>>
  /** Uploads received. */
  readonly received: () => number
  readonly close: () => Promise<void>
}

const sha256 = (bytes: Uint8Array) => Crypto.createHash("sha256").update(bytes).digest("hex")

/** Starts the endpoint for the planned backends. */
export const start = async (backends: ReadonlyArray<plan.BackendPlan>): Promise<UploadEndpoint> => {
  const byId = new Map(backends.map((b) => [b.id, b]))
  /** The planned upload index of each backend, by the digest of the attachment uploaded. */
  const planned = new Map<string, ReadonlyMap<string, number>>()
  const seen = new Set<string>()
  const issued = new Map<string, Set<string>>()
  const problems: Array<string> = []
  let received = 0
  const server = Http.createServer((req, res) => {
    const id = decodeURIComponent(req.url?.replace(/^\/upload\//, "") ?? "")
    const backend = byId.get(id)
    if (backend === undefined || req.method !== "POST") {
      res.writeHead(404).end()
      return
    }
    received++
    const declared = req.headers["ahp-content-sha256"]
    const n = typeof declared === "string" ? planned.get(declared)?.get(id) : undefined
    if (n === undefined) {
      problems.push(`${id}: an upload declaring ${String(declared)}, not an attachment the soak dispatched to it`)
      res.writeHead(400).end()
      return
    }
    if (seen.has(`${id}/${n}`)) problems.push(`${id} upload ${n}: the attachment was uploaded twice`)
    seen.add(`${id}/${n}`)
    const behaviour = backend.uploads[n]?.name ?? "receipt"
    if (behaviour === "reset") {
      req.socket.destroy()
      return
    }
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      const body = Buffer.concat(chunks)
      const digest = sha256(body)
      if (req.headers["content-length"] !== String(body.length)) {
        problems.push(`${id} upload ${n}: Content-Length does not match the body`)
      }
      // The declared digest is a dispatched attachment's: the bytes must be that attachment.
      if (declared !== digest) problems.push(`${id} upload ${n}: AHP-Content-SHA256 does not match the body`)
      const ref = `soak-${id}-${n}`
      const receipt = (size: number, hash: string) => JSON.stringify({ ref, size, sha256: hash })
      switch (behaviour) {
        case "hang":
          return
        case "202":
          res.writeHead(202, { "content-type": "application/json" }).end(receipt(body.length, digest))
          return
        case "redirect":
          res.writeHead(307, { location: `/upload/${encodeURIComponent(id)}` }).end()
          return
        case "500":
          res.writeHead(500).end("upload store unavailable")
          return
        case "wrong hash":
          res.writeHead(201, { "content-type": "application/json" }).end(
            receipt(body.length, sha256(Buffer.from("other")))
          )
          return
        case "wrong size":
          res.writeHead(201, { "content-type": "application/json" }).end(receipt(body.length + 1, digest))
          return
        default:
          if (!issued.has(id)) issued.set(id, new Set())
          issued.get(id)!.add(ref)
          res.writeHead(201, { "content-type": "application/json" }).end(receipt(body.length, digest))
      }
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as Net.AddressInfo).port
  return {
    url: (backendId) => `http://127.0.0.1:${port}/upload/${encodeURIComponent(backendId)}`,
    expect: (bytes, uploads) => {
      planned.set(sha256(bytes), uploads)
    },
    problems,
    issued,
    received: () => received,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
