/**
 * `ahp bridge`: the warm path. A long-running process holding one registration's backends
 * (persistent stdio children stay up, HTTP connections stay open) across tool calls, for
 * both hosts, and answering:
 *
 * - `POST /hooks/claude-code` — Claude Code's `http` hook type: the body is the hook
 *   payload, the response (200) the hook's JSON answer. `?timeout=SECONDS` gives the
 *   timeout of the settings entry, so the bridge answers before it.
 * - `POST /forward/claude-code|codex` — the command hook's forwarding (see `Forward`): the
 *   answer and the stderr lines as JSON, or 409 when the hook found another registration.
 *
 * It listens on a local socket the command hook finds from the registration's path (unless
 * `--no-socket`) and, with `--http PORT`, on TCP (127.0.0.1 by default); who may call it is
 * `BridgeAccess`'s rule (no web page, a secret over TCP). The registration is
 * looked up as the hook does and reloaded when the file changes (the old backends are
 * stopped). With `--verbose` it logs the trace of every call on stderr.
 *
 * When the bridge is down: a command hook dispatches the call itself (cold path, same
 * answer, slower); a Claude Code `http` hook that cannot connect is a non-blocking error
 * for Claude Code, so the action goes ahead — use the command hook where the policy must
 * hold when the bridge is not running.
 *
 * @since 0.1.0
 */
import { Audit, Transport } from "@effect-ahp/harness"
import { HostEvents, Hosts } from "@effect-ahp/hosts"
import { NodeTransports, StdioTransport } from "@effect-ahp/node"
import { Decoder, Json } from "@effect-ahp/protocol"
import * as NodeFileSystem from "@effect/platform-node/NodeFileSystem"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as FileSystem from "@effect/platform/FileSystem"
import * as Headers from "@effect/platform/Headers"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerError from "@effect/platform/HttpServerError"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Clock, Console, Context, Effect, Either, Exit, Layer, Option, Ref, Schema, Scope, Stream } from "effect"
import type * as Http from "node:http"
import * as NodeHttp from "node:http"
import * as Net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as AuditSinks from "./AuditSinks.js"
import * as BridgeAccess from "./BridgeAccess.js"
import * as Budget from "./Budget.js"
import { margin, maxPayloadBytes } from "./Command.js"
import * as PayloadEvent from "./internal/payloadEvent.js"
import * as Locate from "./Locate.js"
import * as Policy from "./Policy.js"
import * as Trouble from "./Trouble.js"

/**
 * One loaded version of the registration: its text's digest and, per host, the policy or
 * why there is none.
 *
 * @since 0.1.0
 * @category models
 */
export interface Generation {
  readonly sha256: string
  readonly stamp: string
  readonly document: Json.JsonValue | undefined
  readonly policies: Readonly<Record<HostEvents.HostName, Either.Either<Policy.Policy, string>>>
  readonly scope: Scope.CloseableScope
}

/**
 * The bounds on one caller of the bridge: the time to send a whole request (headers and
 * body), after which its connection is dropped, and the connections held at once per
 * listener, beyond which new ones are closed on arrival.
 *
 * @since 0.1.0
 * @category constants
 */
export const limits = { requestMs: 5000, maxConnections: 1024 } as const

/**
 * The longest a change of the registration file may go unnoticed. The file system's watch
 * reports a change at once; the file is checked again at most this often besides, for the
 * changes a watch does not see (a folder that cannot be watched, a link's target).
 *
 * @since 0.1.0
 * @category constants
 */
export const recheckMs = 1000

/** The file's identity and version as the file system reports them ("missing" when it cannot). */
const stampOf = (fs: FileSystem.FileSystem, file: string): Effect.Effect<string> =>
  Effect.match(fs.stat(file), {
    onFailure: () => "missing",
    onSuccess: (info) =>
      `${Option.match(info.mtime, { onNone: () => "-", onSome: (date) => date.getTime() })}:${info.size}:${
        Option.getOrElse(info.ino, () => "-")
      }`
  })

/** What the lookup found, as a key that changes with the text read or with why none was. */
const versionOf = (located: Locate.Located): string => {
  switch (located._tag) {
    case "Found":
      return `found ${located.file} ${Locate.sha256(located.text)}`
    case "Unreadable":
      return `unreadable ${located.file} ${located.reason}`
    case "Missing":
      return "missing"
  }
}

const issues = (error: { readonly issues: ReadonlyArray<{ readonly path: string; readonly message: string }> }) =>
  error.issues.slice(0, 3).map((i) => `${i.path || "/"}: ${i.message}`).join("; ")

/** The registration's text as the lookup found it: read, and held to its trust rules. */
const textOf = (file: string, located: Locate.Located): Either.Either<string, string> => {
  if (located._tag === "Found" && located.file === file) return Either.right(located.text)
  if (located._tag === "Unreadable" && located.file === file) {
    return Either.left(`cannot read the AHP registration ${file}: ${located.reason}`)
  }
  return Either.left(`the AHP registration ${file} is no longer the one found`)
}

/** Loads what the lookup found into a new generation (its backends live in the generation's scope). */
const load = (file: string, located: Locate.Located, stamp: string) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const text = textOf(file, located)
    const sha256 = Either.match(text, { onLeft: () => "", onRight: Locate.sha256 })
    const parsed = Either.flatMap(text, (t) =>
      Either.mapLeft(Json.parse(t), (e) => `the AHP registration ${file} is not JSON: ${e.message}`))
    const policyFor = (name: HostEvents.HostName) =>
      Either.match(parsed, {
        onLeft: (problem) =>
          Effect.succeed(Either.left(problem)),
        onRight: (document) =>
          Policy.make(Hosts.of(name), document).pipe(
            Scope.extend(scope),
            Effect.mapError((error) => `the AHP registration ${file} is invalid for ${name}: ${issues(error)}`),
            Effect.either
          )
      })
    const policies = {
      "claude-code": yield* policyFor("claude-code"),
      codex: yield* policyFor("codex")
    }
    for (const [name, policy] of Object.entries(policies)) {
      if (Either.isLeft(policy)) {
        yield* Console.error(`ahp bridge: ${policy.left} (${name} calls get "no opinion" or a denial)`)
      }
    }
    return { sha256, stamp, document: Either.getOrUndefined(parsed), policies, scope } satisfies Generation
  })

/** Whether `next` answers for every host `old` has a policy for. */
const noWorse = (old: Generation, next: Generation): boolean =>
  HostEvents.hostNames.every((name) => Either.isLeft(old.policies[name]) || Either.isRight(next.policies[name]))

/**
 * The bridge's state: the current generation, reloaded when the registration file changes.
 *
 * @since 0.1.0
 * @category models
 */
export interface State {
  /** The current generation, after reloading the file if it changed. */
  readonly current: Effect.Effect<Generation>
}

/**
 * Loads the registration and keeps it current; every generation's backends are stopped when
 * it is replaced and when the scope closes. The file's folder is watched (the watch is set
 * up in the background as the state is made): a change to the file is looked at on the next
 * call, and the file is checked again on a call at least `recheckMs` after the last check
 * (never more often; this also finds a change made before the watch was up), so most calls
 * touch no file. Each version is read by `locate` (the lookup with its trust rules; by
 * default a plain bounded read); a version that it refuses, that is not JSON or that is
 * invalid for a host the current one answers for (a file caught half-written, a file
 * swapped in that is not the user's alone) is not used: the current generation stays until
 * the file changes again.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeState = (file: string, locate: () => Locate.Located = () => Locate.read(file)) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const transports = yield* Transport.Transports
    // Every generation's hooks write to the bridge's audit, if it has one.
    const audit = yield* Effect.serviceOption(Audit.Audit)
    const loadNext = (located: Locate.Located, stamp: string) =>
      load(file, located, stamp).pipe(
        Effect.provideService(Transport.Transports, transports),
        (effect) =>
          Option.match(audit, {
            onNone: () => effect,
            onSome: (service) => Effect.provideService(effect, Audit.Audit, service)
          })
      )
    // set by the watch when an event names the file; a watch that fails leaves the re-check
    const changed = yield* Ref.make(false)
    const name = path.basename(file)
    yield* fs.watch(path.dirname(file)).pipe(
      Stream.runForEach((event) => path.basename(event.path) === name ? Ref.set(changed, true) : Effect.void),
      Effect.ignore,
      Effect.forkScoped
    )
    const firstStamp = yield* stampOf(fs, file)
    const firstFound = locate()
    const first = yield* loadNext(firstFound, firstStamp)
    const generation = yield* Ref.make(first)
    // the version last looked at, used or not
    const seen = yield* Ref.make({ stamp: firstStamp, version: versionOf(firstFound) })
    const checkedAt = yield* Ref.make(yield* Clock.currentTimeMillis)
    const lock = yield* Effect.makeSemaphore(1)
    yield* Effect.addFinalizer(() => Effect.flatMap(Ref.get(generation), (g) => Scope.close(g.scope, Exit.void)))
    const check = lock.withPermits(1)(Effect.gen(function*() {
      const old = yield* Ref.get(generation)
      const watched = yield* Ref.getAndSet(changed, false)
      yield* Ref.set(checkedAt, yield* Clock.currentTimeMillis)
      const stamp = yield* stampOf(fs, file)
      const last = yield* Ref.get(seen)
      if (!watched && stamp === last.stamp) return old
      const located = locate()
      const version = versionOf(located)
      yield* Ref.set(seen, { stamp, version })
      if (version === last.version) return old
      if (located._tag === "Found" && located.file === file && Locate.sha256(located.text) === old.sha256) return old
      const next = yield* loadNext(located, stamp)
      if (!noWorse(old, next)) {
        yield* Scope.close(next.scope, Exit.void)
        yield* Console.error(`ahp bridge: the changed ${file} is not used; the previous version still answers`)
        return old
      }
      yield* Ref.set(generation, next)
      yield* Scope.close(old.scope, Exit.void)
      yield* Console.error(`ahp bridge: reloaded ${file}`)
      return next
    }))
    const due = Effect.zipWith(
      Ref.get(changed),
      Effect.zipWith(Ref.get(checkedAt), Clock.currentTimeMillis, (at, now) => now - at >= recheckMs),
      (watched, stale) => watched || stale
    )
    return { current: Effect.flatMap(due, (recheck) => recheck ? check : Ref.get(generation)) } satisfies State
  })

/**
 * Answers one payload with a generation's policy for a host.
 *
 * @since 0.1.0
 * @category answering
 */
export const answer = (
  generation: Generation,
  name: HostEvents.HostName,
  text: string,
  options: Policy.CallOptions & { readonly failClosed: boolean }
): Effect.Effect<Policy.Reply> =>
  Either.match(generation.policies[name], {
    onRight: (policy) => Policy.answer(policy, text, options),
    onLeft: (problem) => {
      const host = Hosts.of(name)
      const payload = Json.parse(text)
      const event = Either.isRight(payload) ? Policy.eventOf(host, payload.right) : undefined
      const intent = event?.type !== undefined && generation.document !== undefined &&
        Policy.failClosedIntent(generation.document, event.type)
      return Effect.succeed({ answer: Trouble.answer(host, event, problem, options.failClosed || intent), trace: [] })
    }
  })

const Forwarded = Schema.Struct({
  payload: Schema.String,
  registrationSha256: Schema.String,
  deadline: Schema.Number,
  failClosed: Schema.Boolean,
  verbose: Schema.Boolean,
  source: Schema.optional(Schema.String)
})

const decodeForwarded = Decoder.lazy(() => Schema.decodeUnknownEither(Schema.parseJson(Forwarded)))

const utf8 = new TextDecoder()

/**
 * A request's body read from the Node request as it arrives: its text, or `None` once it
 * passes `limit` bytes (the rest is left unread) or when the caller goes away first.
 */
const readBody = (message: Http.IncomingMessage, limit: number): Effect.Effect<Option.Option<string>> =>
  Effect.async((resume) => {
    const chunks: Array<Buffer> = []
    let total = 0
    const detach = () => {
      message.off("data", onData)
      message.off("end", onEnd)
      message.off("error", onGone)
      message.off("close", onGone)
    }
    const settle = (body: Option.Option<string>) => {
      detach()
      resume(Effect.succeed(body))
    }
    const onData = (chunk: Buffer) => {
      total += chunk.length
      if (total <= limit) return void chunks.push(chunk)
      message.pause()
      settle(Option.none())
    }
    const onEnd = () => settle(Option.some(utf8.decode(Buffer.concat(chunks, total))))
    const onGone = () => settle(Option.none())
    message.on("data", onData)
    message.on("end", onEnd)
    message.on("error", onGone)
    message.on("close", onGone)
    return Effect.sync(detach)
  })

const hostOf = (segment: string | undefined): HostEvents.HostName | undefined =>
  segment !== undefined && HostEvents.isHostName(segment) ? segment : undefined

/**
 * The hook's timeout: `?timeout=SECONDS`, else the host's default for the event the payload
 * names (read by a scan of its top-level members, as the command hook does: the payload is
 * parsed once, by the policy), else 10 minutes.
 */
const timeoutOf = (url: URL, text: string, name: HostEvents.HostName): number => {
  const given = Number(url.searchParams.get("timeout"))
  if (Number.isFinite(given) && given > 0) return given * 1000
  const event = PayloadEvent.nameOfText(text)
  return (event === undefined ? undefined : HostEvents.find(name, event))?.timeoutMs ?? 600_000
}

/**
 * The bridge's HTTP application. Each request's headers are read once from the Node
 * request, who may call is decided before its body is read, and the body is read up to
 * `maxPayloadBytes` (413 beyond, declared or sent).
 *
 * @since 0.1.0
 * @category serving
 */
export const app = (state: State, options: { readonly verbose: boolean; readonly secret: string }) =>
  Effect.gen(function*() {
    const message = NodeHttpServerRequest.toIncomingMessage(yield* HttpServerRequest.HttpServerRequest)
    const { headers, method } = message
    const url = new URL(message.url ?? "/", "http://bridge")
    const [, kind, segment] = url.pathname.split("/")
    const name = hostOf(segment)
    if (name === undefined || (kind !== "hooks" && kind !== "forward")) return HttpServerResponse.empty({ status: 404 })
    if (method !== "POST") return HttpServerResponse.empty({ status: 405, headers: { allow: "POST" } })
    const refused = BridgeAccess.refusal(headers, arrival(message), options.secret)
    if (refused !== undefined) {
      if (options.verbose) {
        yield* Console.error(`ahp bridge: refused ${method} ${url.pathname}: ${refused.reason}`)
      }
      return HttpServerResponse.text(`refused: ${refused.reason}\n`, { status: refused.status })
    }
    const received = Date.now()
    const tooLarge = HttpServerResponse.empty({ status: 413, headers: { connection: "close" } })
    if (Number(headers["content-length"] ?? 0) > maxPayloadBytes) return tooLarge
    const body = yield* readBody(message, maxPayloadBytes)
    if (Option.isNone(body)) return tooLarge
    const generation = yield* state.current
    const log = (trace: ReadonlyArray<string>) =>
      options.verbose && trace.length > 0
        ? Console.error(trace.map((line) => `ahp bridge: ${line}`).join("\n"))
        : Effect.void
    if (kind === "hooks") {
      const timeoutMs = timeoutOf(url, body.value, name)
      const reply = yield* answer(generation, name, body.value, {
        deadline: received + timeoutMs - margin(timeoutMs),
        verbose: options.verbose,
        failClosed: false,
        observers: generation.scope
      })
      yield* log(reply.trace)
      return HttpServerResponse.text(reply.answer.stdout, { contentType: "application/json" })
    }
    const forwarded = decodeForwarded(body.value)
    if (Either.isLeft(forwarded)) return HttpServerResponse.empty({ status: 400 })
    if (forwarded.right.registrationSha256 !== generation.sha256) return HttpServerResponse.empty({ status: 409 })
    const call = forwarded.right
    const reply = yield* answer(generation, name, call.payload, {
      deadline: call.deadline,
      source: call.source,
      verbose: call.verbose || options.verbose,
      failClosed: call.failClosed,
      observers: generation.scope
    })
    yield* log(reply.trace)
    const stderr = reply.answer.stderr + (call.verbose ? reply.trace.map((line) => `ahp: ${line}\n`).join("") : "")
    return yield* HttpServerResponse.json({ stdout: reply.answer.stdout, stderr })
  })

/** The local TCP address a request arrived on; `undefined` over the socket. */
const arrival = (message: Http.IncomingMessage): BridgeAccess.Arrival => {
  const { localAddress, localPort } = message.socket
  return localAddress !== undefined && localPort !== undefined ? { address: localAddress, port: localPort } : undefined
}

/** A server that drops a caller who has not sent its whole request in time, and holds a bounded number of connections. */
const boundedServer = (): Http.Server => {
  const server = NodeHttp.createServer({
    headersTimeout: limits.requestMs,
    requestTimeout: limits.requestMs,
    connectionsCheckingInterval: Math.ceil(limits.requestMs / 10)
  })
  server.maxConnections = limits.maxConnections
  return server
}

/**
 * The bridge's HTTP application on one listener (a socket path, or a TCP port and host),
 * served by `@effect/platform`'s `HttpServer` on a Node server held to `limits`. The server
 * makes no span of a request (its span records every request header, the secret among
 * them), and the secret header is among the names redacted wherever headers are shown.
 *
 * @since 0.1.0
 * @category serving
 */
export const layer = (
  state: State,
  options: { readonly verbose: boolean; readonly secret: string },
  listen: Net.ListenOptions
): Layer.Layer<HttpServer.HttpServer, HttpServerError.ServeError> =>
  HttpServer.serve(app(state, options)).pipe(
    HttpMiddleware.withTracerDisabledWhen(() => true),
    Layer.provideMerge(NodeHttpServer.layerServer(boundedServer, listen)),
    Layer.locallyWith(Headers.currentRedactedNames, (names) => [...names, BridgeAccess.secretHeader])
  )

const live = (socket: string) =>
  Effect.async<boolean>((resume) => {
    const connection = Net.connect(socket)
    connection.once("connect", () => {
      connection.destroy()
      resume(Effect.succeed(true))
    })
    connection.once("error", () => resume(Effect.succeed(false)))
  })

/**
 * Prepares a socket path: its folder private, no other bridge listening on it, a stale file
 * of this user's removed (another user's is never touched), as is a link to nothing left
 * there. Fails with a message otherwise.
 *
 * @since 0.1.0
 * @category serving
 */
export const claimSocket = (socket: string): Effect.Effect<void, string, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    if (process.platform !== "win32" && !(yield* BridgeAccess.ensurePrivateDir(path.dirname(socket)))) {
      return yield* Effect.fail(`the socket folder ${path.dirname(socket)} is not private to this user`)
    }
    const remove = fs.remove(socket, { force: true }).pipe(Effect.mapError(() => `cannot remove the stale ${socket}`))
    const existing = yield* Effect.option(fs.stat(socket))
    if (Option.isNone(existing)) {
      const link = yield* Effect.option(fs.readLink(socket))
      return Option.isSome(link) ? yield* remove : undefined
    }
    const owner = Option.getOrUndefined(existing.value.uid)
    if (process.platform !== "win32" && owner !== process.getuid?.()) {
      return yield* Effect.fail(`${socket} is owned by uid ${owner}, not by you`)
    }
    if (yield* live(socket)) return yield* Effect.fail(`another bridge already listens on ${socket}`)
    yield* remove
  })

/**
 * The options of `ahp bridge`.
 *
 * @since 0.1.0
 * @category models
 */
export interface BridgeOptions {
  readonly registration: Option.Option<string>
  readonly http: Option.Option<number>
  readonly host: string
  readonly socket: Option.Option<string>
  readonly noSocket: boolean
  readonly verbose: boolean
  /** The decision audit file (JSON Lines), if any. */
  readonly audit: Option.Option<string>
  /** Whether audit records carry the event. */
  readonly auditContent: boolean
  /** The OpenTelemetry export the program supplies, if any. */
  readonly telemetry?: AuditSinks.LoadTelemetry | undefined
}

/**
 * Why the bridge could not start: no usable registration, a socket or port it cannot
 * listen on, a secret it cannot keep, or an audit file it cannot open.
 *
 * @since 0.1.0
 * @category errors
 */
export class BridgeError extends Schema.TaggedError<BridgeError>("@effect-ahp/hook/BridgeError")("BridgeError", {
  message: Schema.String
}) {}

/**
 * Runs the bridge until interrupted (SIGINT, SIGTERM), on Node's file system; prints where
 * it listens on stdout.
 *
 * @since 0.1.0
 * @category running
 */
export const run = (options: BridgeOptions): Effect.Effect<void, BridgeError> =>
  Effect.scoped(
    Effect.gen(function*() {
      const context: Locate.Context = {
        flag: Option.getOrUndefined(options.registration),
        env: process.env,
        cwd: process.cwd(),
        payloadCwd: undefined,
        home: os.homedir()
      }
      const located = Locate.registration(context)
      if (located._tag !== "Found") {
        return yield* new BridgeError({
          message: located._tag === "Missing"
            ? `no AHP registration found (searched ${located.searched.join(", ")})`
            : `cannot read the AHP registration ${located.file}: ${located.reason}`
        })
      }
      if (located.notice !== undefined) yield* Console.error(`ahp bridge: ${located.notice}`)
      const transports = yield* Layer.build(
        Budget.layer("bridge").pipe(Layer.provide(NodeTransports.layerNode({
          stdio: { directory: StdioTransport.directoryOf(located.file) }
        })))
      )
      const fs = yield* FileSystem.FileSystem
      const state = yield* makeState(located.file, () => Locate.registration(context)).pipe(Effect.provide(transports))
      const auditFile = Option.getOrUndefined(options.audit)
      if (auditFile !== undefined) yield* Console.log(`audit ${auditFile}`)
      const fail = (problem: string) => new BridgeError({ message: problem })
      const secret = BridgeAccess.secret(process.env)
      if (typeof secret === "string") return yield* fail(secret)
      const serveOn = (listen: Net.ListenOptions) =>
        Layer.build(layer(state, { verbose: options.verbose, secret: secret.secret }, listen)).pipe(
          Effect.map(Context.get(HttpServer.HttpServer)),
          Effect.either
        )
      const socket = options.noSocket
        ? undefined
        : Option.getOrElse(options.socket, () => Locate.socketPath(located.file, process.env))
      if (socket !== undefined) {
        const claimed = yield* Effect.either(claimSocket(socket))
        if (Either.isLeft(claimed)) return yield* fail(claimed.left)
        yield* Effect.addFinalizer(() => Effect.ignore(fs.remove(socket, { force: true })))
        const server = yield* serveOn({ path: socket })
        if (Either.isLeft(server)) return yield* fail(`cannot listen on ${socket}: ${String(server.left.cause)}`)
      }
      if (Option.isSome(options.http)) {
        const server = yield* serveOn({ port: options.http.value, host: options.host })
        if (Either.isLeft(server)) {
          return yield* fail(`cannot listen on ${options.host}:${options.http.value}: ${String(server.left.cause)}`)
        }
        const address = server.right.address
        if (address._tag === "TcpAddress") {
          const hostname = address.hostname.includes(":") ? `[${address.hostname}]` : address.hostname
          yield* Console.log(`listening on http://${hostname}:${address.port}/hooks/claude-code`)
          if (secret.generated) {
            const file = BridgeAccess.secretFile(process.env, address.port)
            const written = yield* Effect.either(BridgeAccess.writeSecret(file, secret.secret))
            if (Either.isLeft(written)) return yield* fail(written.left)
            yield* Effect.addFinalizer(() => Effect.ignore(fs.remove(file, { force: true })))
            yield* Console.log(`secret in ${file} (give it to the http hook as ${BridgeAccess.secretVariable})`)
          }
        }
      }
      yield* Console.log(`registration ${located.file}`)
      if (socket !== undefined) yield* Console.log(`listening on socket ${socket}`)
      return yield* Effect.never
    }).pipe(
      AuditSinks.withAudit(options.audit, options.auditContent, options.telemetry),
      Effect.catchTag("AuditFileError", (error) => new BridgeError({ message: error.message }))
    )
  ).pipe(Effect.provide(NodeFileSystem.layer))
