import { Effect } from "effect"
import * as NodeHttp from "node:http"

/** An HTTP answer as a test sees it. */
export interface Reply {
  readonly status: number
  readonly headers: NodeHttp.IncomingHttpHeaders
  readonly body: string
}

/**
 * One request with Node's own HTTP client, so headers and body are exactly what the test
 * says; `chunked` streams the body without a length.
 */
export const send = (
  url: string,
  options: {
    readonly method?: string
    readonly headers?: NodeHttp.OutgoingHttpHeaders
    readonly body?: string | Uint8Array
    readonly chunked?: boolean
  }
) =>
  Effect.async<Reply, Error>((resume) => {
    const init = { method: options.method ?? "POST", headers: options.headers ?? {} }
    const request = NodeHttp.request(url, init, (response) => {
      const chunks: Array<Buffer> = []
      response.on("data", (chunk: Buffer) => chunks.push(chunk))
      response.on("end", () =>
        resume(Effect.succeed({
          status: response.statusCode ?? 0,
          headers: response.headers,
          body: Buffer.concat(chunks).toString("utf8")
        })))
      response.on("error", (error) => resume(Effect.fail(error)))
    })
    request.on("error", (error) => resume(Effect.fail(error)))
    if (options.chunked === true && options.body !== undefined) {
      request.write(options.body)
      request.end()
    } else {
      request.end(options.body)
    }
  })
