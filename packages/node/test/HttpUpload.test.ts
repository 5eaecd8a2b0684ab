import { Attachment, Uploads } from "@effect-ahp/harness"
import { Credentials, HttpAuth, HttpTransport, HttpUpload } from "@effect-ahp/node"
import type { Registration } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Context, Deferred, Duration, Effect, Exit, Layer, Option, Redacted, Scope } from "effect"
import * as crypto from "node:crypto"
import * as nodeHttp from "node:http"
import type * as net from "node:net"

const secret = "upload-s3cr3t-token"

/** One upload as the server saw it. */
interface Seen {
  readonly method: string
  readonly path: string
  readonly headers: nodeHttp.IncomingHttpHeaders
  readonly body: Buffer
}

interface Answer {
  readonly status: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string | Buffer
}

/**
 * A plain-HTTP upload endpoint on 127.0.0.1 recording every request; `answer` decides the
 * reply ("hang": never answers, and `closed` completes when the client goes away).
 */
const uploadServer = (answer: (seen: Seen, n: number) => Answer | "hang") =>
  Effect.gen(function*() {
    const closed = yield* Deferred.make<void>()
    const seen: Array<Seen> = []
    const server = yield* Effect.acquireRelease(
      Effect.async<nodeHttp.Server>((resume) => {
        const server = nodeHttp.createServer((req, res) => {
          const parts: Array<Buffer> = []
          req.on("data", (chunk: Buffer) => parts.push(chunk)).on("end", () => {
            const request = {
              method: req.method ?? "",
              path: req.url ?? "",
              headers: req.headers,
              body: Buffer.concat(parts)
            }
            seen.push(request)
            const reply = answer(request, seen.length)
            if (reply === "hang") {
              res.on("close", () => Deferred.unsafeDone(closed, Effect.void))
              return
            }
            const body = reply.body ?? ""
            res.writeHead(reply.status, { "content-length": Buffer.byteLength(body), ...reply.headers }).end(body)
          })
        })
        server.listen(0, "127.0.0.1", () => resume(Effect.succeed(server)))
      }),
      (server) =>
        Effect.async<void>((resume) => {
          server.closeAllConnections()
          server.close(() => resume(Effect.void))
        })
    )
    const origin = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`
    return { origin, seen, closed }
  })

const sha256 = (bytes: Uint8Array) => crypto.createHash("sha256").update(bytes).digest("hex")

/** A 201 with the exact receipt of what was received (overridable). */
const receipt =
  (extra: Record<string, unknown> = {}, headers: Record<string, string> = { "content-type": "application/json" }) =>
  (seen: Seen): Answer => ({
    status: 201,
    headers,
    body: JSON.stringify({
      ref: `ref-${seen.body.length}`,
      size: seen.body.length,
      sha256: sha256(seen.body),
      ...extra
    })
  })

const bytes = new Uint8Array([0, 255, 0xc3, 0x28, 10, 13, 0x7b, 0x22])

const request = (
  endpoint: string,
  data: Uint8Array = bytes,
  auth?: Registration.Authentication
): Effect.Effect<Uploads.Request> =>
  Effect.map(
    Effect.orDie(Attachment.snapshot("img", Attachment.bytes(data), { maxBytes: 1 << 20, timeoutMs: 5000 })),
    (snapshot) => ({
      backend: "com.example.policy",
      subscription: "0",
      config: { endpoint, timeoutMs: 5000, maxBytes: 1 << 20, ...(auth === undefined ? {} : { auth }) },
      snapshot
    })
  )

const BaseLayer = Layer.merge(HttpTransport.layerDispatcher, Credentials.layerTest({ UPLOAD_TOKEN: secret }))

/** The client, built in the current scope (closing it closes the client and its dispatcher). */
const client = (auth?: Layer.Layer<HttpAuth.HttpAuth>) =>
  Effect.map(
    Layer.build(HttpUpload.layer().pipe(Layer.provide(auth === undefined ? BaseLayer : Layer.merge(BaseLayer, auth)))),
    Context.get(Uploads.Uploads)
  )

/** The failure of an upload, checked to hold no credential. */
const failureOf = <A, R>(self: Effect.Effect<A, Uploads.UploadError, R>) =>
  Effect.map(Effect.flip(self), (error) => {
    assert.notInclude(`${JSON.stringify(error)} ${error.message}`, secret)
    return error
  })

describe("HttpUpload", () => {
  it.scopedLive("POSTs the raw octets to the exact endpoint with Content-Length and AHP-Content-SHA256; a matching 201 receipt confirms", () =>
    Effect.gen(function*() {
      const server = yield* uploadServer(receipt())
      const uploads = yield* client()
      const result = yield* uploads.upload(yield* request(`${server.origin}/v1/bytes?bucket=a&x=1`))
      assert.deepStrictEqual(result, { ref: `ref-${bytes.length}`, size: bytes.length, sha256: sha256(bytes) })
      const seen = server.seen[0]!
      assert.strictEqual(seen.method, "POST")
      assert.strictEqual(seen.path, "/v1/bytes?bucket=a&x=1")
      assert.deepStrictEqual([...seen.body], [...bytes])
      assert.strictEqual(seen.headers["content-type"], "application/octet-stream")
      assert.strictEqual(seen.headers["content-length"], String(bytes.length))
      assert.strictEqual(seen.headers["ahp-content-sha256"], sha256(bytes))
      assert.isUndefined(seen.headers["transfer-encoding"])
      assert.isUndefined(seen.headers["content-encoding"])
      assert.isUndefined(seen.headers.authorization)
    }))

  it.scopedLive("an empty attachment is sent with Content-Length 0", () =>
    Effect.gen(function*() {
      const server = yield* uploadServer(receipt())
      const uploads = yield* client()
      const result = yield* uploads.upload(yield* request(`${server.origin}/u`, new Uint8Array(0)))
      assert.strictEqual(result.size, 0)
      assert.strictEqual(server.seen[0]!.headers["content-length"], "0")
      assert.strictEqual(server.seen[0]!.headers["ahp-content-sha256"], sha256(new Uint8Array(0)))
    }))

  it.scopedLive("hostile receivers: wrong hash or size, extra members, no JSON, 202, 204, redirects, oversized receipts, error statuses", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [string, (seen: Seen) => Answer, Uploads.UploadFailure, number | undefined]> =
        [
          ["wrong hash", receipt({ sha256: "a".repeat(64) }), "upload-receipt", undefined],
          ["wrong size", receipt({ size: bytes.length + 1 }), "upload-receipt", undefined],
          ["extra member", receipt({ expires: 10 }), "upload-receipt", undefined],
          [
            "missing ref",
            (seen) => ({
              ...receipt()(seen),
              body: JSON.stringify({ size: seen.body.length, sha256: sha256(seen.body) })
            }),
            "upload-receipt",
            undefined
          ],
          [
            "uppercase hash",
            (seen) => receipt({ sha256: sha256(seen.body).toUpperCase() })(seen),
            "upload-receipt",
            undefined
          ],
          [
            "not JSON",
            () => ({ status: 201, headers: { "content-type": "application/json" }, body: "ok" }),
            "upload-receipt",
            undefined
          ],
          ["text content type", receipt({}, { "content-type": "text/plain" }), "upload-receipt", undefined],
          ["no content type", receipt({}, {}), "upload-receipt", undefined],
          ["oversized receipt", receipt({ ref: "r".repeat(20_000) }), "upload-receipt", undefined],
          ["202", (seen) => ({ ...receipt()(seen), status: 202 }), "upload-status", 202],
          ["204", () => ({ status: 204 }), "upload-status", 204],
          ["200", (seen) => ({ ...receipt()(seen), status: 200 }), "upload-status", 200],
          ["302", () => ({ status: 302, headers: { location: "/elsewhere" } }), "upload-redirect", 302],
          ["307", () => ({ status: 307, headers: { location: "/elsewhere" } }), "upload-redirect", 307],
          ["400", () => ({ status: 400 }), "upload-status", 400],
          ["403", () => ({ status: 403 }), "upload-status", 403],
          ["404", () => ({ status: 404 }), "upload-status", 404],
          ["413", () => ({ status: 413 }), "upload-status", 413],
          ["500", () => ({ status: 500, body: "internal trace with secrets" }), "upload-status", 500]
        ]
      for (const [name, answer, reason, status] of cases) {
        const server = yield* uploadServer(answer)
        const uploads = yield* client()
        const error = yield* failureOf(uploads.upload(yield* request(`${server.origin}/u`)))
        assert.strictEqual(error.reason, reason, name)
        assert.strictEqual(error.status, status, name)
        assert.notInclude(error.detail, "internal trace", name)
        assert.deepStrictEqual(server.seen.map((s) => s.path), ["/u"], `${name}: one request, no redirect followed`)
      }
    }))

  it.scopedLive("without upload.auth a 401 is upload-unauthorized when discovery finds no usable client; the upload is not retried", () =>
    Effect.gen(function*() {
      const server = yield* uploadServer(() => ({
        status: 401,
        headers: { "www-authenticate": "Bearer resource_metadata=\"x\"" }
      }))
      const uploads = yield* client()
      const error = yield* failureOf(uploads.upload(yield* request(`${server.origin}/u`)))
      assert.strictEqual(error.reason, "upload-unauthorized")
      assert.strictEqual(error.status, 401)
      const posts = server.seen.filter((s) => s.path === "/u")
      assert.strictEqual(posts.length, 1)
      assert.isUndefined(posts[0]!.headers.authorization)
    }))

  it.scopedLive("upload authorization goes through HttpAuth for the upload purpose: a 401 earns one retry with its credential", () =>
    Effect.gen(function*() {
      const targets: Array<HttpAuth.Target> = []
      const rejections: Array<HttpAuth.Rejection> = []
      const auth = Layer.succeed(HttpAuth.HttpAuth, {
        authorizer: (target) => {
          targets.push(target)
          return {
            credential: Effect.succeedNone,
            challenge: (rejection) =>
              Effect.sync(() => rejections.push(rejection)).pipe(Effect.as(Redacted.make(secret)))
          }
        }
      })
      const server = yield* uploadServer((seen) =>
        seen.headers.authorization === `Bearer ${secret}`
          ? receipt()(seen)
          : { status: 401, headers: { "www-authenticate": "Bearer realm=\"u\"" } }
      )
      const uploads = yield* client(auth)
      const result = yield* uploads.upload(yield* request(`${server.origin}/u?q=1`))
      assert.strictEqual(result.size, bytes.length)
      assert.deepStrictEqual(server.seen.map((s) => s.headers.authorization), [undefined, `Bearer ${secret}`])
      assert.deepStrictEqual(targets.map((t) => [t.url.href, t.backend, t.purpose, t.authentication]), [
        [`${server.origin}/u?q=1`, "com.example.policy", "upload", undefined]
      ])
      assert.deepStrictEqual(rejections.map((r) => [r.wwwAuthenticate, Option.isNone(r.credential)]), [[
        "Bearer realm=\"u\"",
        true
      ]])
      const refused = yield* uploadServer(() => ({ status: 401 }))
      const error = yield* failureOf(uploads.upload(yield* request(`${refused.origin}/u`)))
      assert.strictEqual(error.reason, "upload-unauthorized")
      assert.strictEqual(refused.seen.length, 2)
    }))

  it.scopedLive("a bearer upload.auth sends its own token, and after a 401 resolves it again and retries once", () =>
    Effect.gen(function*() {
      const server = yield* uploadServer((_, n) => n === 1 ? { status: 401 } : receipt()(_))
      const uploads = yield* client()
      yield* uploads.upload(yield* request(`${server.origin}/u`, bytes, { type: "bearer", tokenEnv: "UPLOAD_TOKEN" }))
      assert.deepStrictEqual(server.seen.map((s) => s.headers.authorization), [`Bearer ${secret}`, `Bearer ${secret}`])
      const missing = yield* failureOf(
        uploads.upload(yield* request(`${server.origin}/u`, bytes, { type: "bearer", tokenRef: "nope" }))
      )
      assert.strictEqual(missing.reason, "upload-credential")
      assert.strictEqual(server.seen.length, 2)
    }))

  it.scopedLive("unusable endpoints and bindings fail before anything is sent", () =>
    Effect.gen(function*() {
      const server = yield* uploadServer(receipt())
      const uploads = yield* client()
      const cases: ReadonlyArray<readonly [string, Registration.Authentication | undefined]> = [
        [`${server.origin}/u\r\nx-injected: 1`, undefined],
        [`${server.origin}/u\n`, undefined],
        ["http://uploads.example.com/u", undefined],
        [`http://user:pw@127.0.0.1/u`, undefined],
        [`${server.origin}/u`, {
          type: "oauth",
          issuer: "https://issuer.example",
          resource: "https://uploads.example",
          clientId: "c",
          flow: "authorization_code_pkce"
        } as Registration.Authentication]
      ]
      for (const [endpoint, auth] of cases) {
        const error = yield* failureOf(uploads.upload(yield* request(endpoint, bytes, auth)))
        assert.strictEqual(error.reason, "upload-unsupported", endpoint)
      }
      assert.strictEqual(server.seen.length, 0)
    }))

  it.scopedLive("an interrupted upload (a hung receiver past the deadline) is aborted at once; a closed client fails later uploads", () =>
    Effect.gen(function*() {
      const server = yield* uploadServer(() => "hang")
      const scope = yield* Scope.make()
      const uploads = yield* Scope.extend(client(), scope)
      const outcome = yield* uploads.upload(yield* request(`${server.origin}/u`)).pipe(
        Effect.timeoutFail({ duration: Duration.millis(200), onTimeout: () => "deadline" as const }),
        Effect.flip
      )
      assert.strictEqual(outcome, "deadline")
      yield* Deferred.await(server.closed).pipe(Effect.timeout("5 seconds"))
      yield* Scope.close(scope, Exit.void)
      const closed = yield* failureOf(uploads.upload(yield* request(`${server.origin}/u`)))
      assert.strictEqual(closed.reason, "upload-closed")
      assert.strictEqual(server.seen.length, 1)
    }))
})
