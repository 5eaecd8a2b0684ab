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
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import * as NodeHttpServerRequest from "@effect/platform-node/NodeHttpServerRequest"
import * as HttpServer from "@effect/platform/HttpServer"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { Console, Context, Effect, Either, Exit, Layer, Option, Ref, Schema, Scope, Stream } from "effect"
import * as fs from "node:fs"
import * as Http from "node:http"
import * as Net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as AuditSinks from "./AuditSinks.js"
import * as BridgeAccess from "./BridgeAccess.js"
import * as Budget from "./Budget.js"
import { margin, maxPayloadBytes } from "./Command.js"
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

const stampOf = (file: string): string => {
  try {
    const stat = fs.statSync(file)
    return `${stat.mtimeMs}:${stat.size}:${stat.ino}`
  } catch {
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

/** Loads the registration file into a new generation (its backends live in the generation's scope). */
const load = (file: string, locate: () => Locate.Located) =>
  Effect.gen(function*() {
    const stamp = stampOf(file)
    const scope = yield* Scope.make()
    const text = textOf(file, locate())
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
 * it is replaced and when the scope closes. Each version is read by `locate` (the lookup
 * with its trust rules; by default a plain bounded read); a version that it refuses, that
 * is not JSON or that is invalid for a host the current one answers for (a file caught
 * half-written, a file swapped in that is not the user's alone) is not used: the current
 * generation stays until the file changes again.
 *
 * @since 0.1.0
 * @category constructors
 */
export const makeState = (file: string, locate: () => Locate.Located = () => Locate.read(file)) =>
  Effect.gen(function*() {
    const transports = yield* Transport.Transports
    // Every generation's hooks write to the bridge's audit, if it has one.
    const audit = yield* Effect.serviceOption(Audit.Audit)
    const loadNext = load(file, locate).pipe(
      Effect.provideService(Transport.Transports, transports),
      (effect) =>
        Option.match(audit, {
          onNone: () => effect,
          onSome: (service) => Effect.provideService(effect, Audit.Audit, service)
        })
    )
    const first = yield* loadNext
    const generation = yield* Ref.make(first)
    // the stamp of the version last looked at, used or not
    const seen = yield* Ref.make(first.stamp)
    const lock = yield* Effect.makeSemaphore(1)
    yield* Effect.addFinalizer(() => Effect.flatMap(Ref.get(generation), (g) => Scope.close(g.scope, Exit.void)))
    const reload = lock.withPermits(1)(Effect.gen(function*() {
      const old = yield* Ref.get(generation)
      if (stampOf(file) === (yield* Ref.get(seen))) return old
      const next = yield* loadNext
      yield* Ref.set(seen, next.stamp)
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
    return {
      current: Effect.flatMap(
        Ref.get(seen),
        (stamp) => stampOf(file) === stamp ? Ref.get(generation) : reload
      )
    } satisfies State
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

const readText = (request: HttpServerRequest.HttpServerRequest) =>
  request.stream.pipe(
    Stream.mapAccumEffect(0, (total, chunk: Uint8Array) =>
      total + chunk.length > maxPayloadBytes
        ? Effect.fail("oversized" as const)
        : Effect.succeed([total + chunk.length, chunk] as const)),
    Stream.decodeText(),
    Stream.mkString,
    Effect.option
  )

const hostOf = (segment: string | undefined): HostEvents.HostName | undefined =>
  segment !== undefined && HostEvents.isHostName(segment) ? segment : undefined

const timeoutOf = (url: URL, text: string, name: HostEvents.HostName): number => {
  const given = Number(url.searchParams.get("timeout"))
  if (Number.isFinite(given) && given > 0) return given * 1000
  const payload = Json.parse(text)
  const event = Either.isRight(payload) ? Policy.eventOf(Hosts.of(name), payload.right) : undefined
  return event?.timeoutMs ?? 600_000
}

/**
 * The bridge's HTTP application.
 *
 * @since 0.1.0
 * @category serving
 */
export const app = (state: State, options: { readonly verbose: boolean; readonly secret: string }) =>
  Effect.gen(function*() {
    const request = yield* HttpServerRequest.HttpServerRequest
    const url = new URL(request.url, "http://bridge")
    const [, kind, segment] = url.pathname.split("/")
    const name = hostOf(segment)
    if (name === undefined || (kind !== "hooks" && kind !== "forward")) return HttpServerResponse.empty({ status: 404 })
    if (request.method !== "POST") return HttpServerResponse.empty({ status: 405, headers: { allow: "POST" } })
    const refused = BridgeAccess.refusal(request.headers, arrival(request), options.secret)
    if (refused !== undefined) {
      if (options.verbose) {
        yield* Console.error(`ahp bridge: refused ${request.method} ${url.pathname}: ${refused.reason}`)
      }
      return HttpServerResponse.text(`refused: ${refused.reason}\n`, { status: refused.status })
    }
    const received = Date.now()
    const tooLarge = HttpServerResponse.empty({ status: 413, headers: { connection: "close" } })
    if (Number(request.headers["content-length"] ?? 0) > maxPayloadBytes) return tooLarge
    const body = yield* readText(request)
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
const arrival = (request: HttpServerRequest.HttpServerRequest): BridgeAccess.Arrival => {
  const { localAddress, localPort } = NodeHttpServerRequest.toIncomingMessage(request).socket
  return localAddress !== undefined && localPort !== undefined ? { address: localAddress, port: localPort } : undefined
}

/** A server that drops a caller who has not sent its whole request in time, and holds a bounded number of connections. */
const boundedServer = (): Http.Server => {
  const server = Http.createServer({
    headersTimeout: limits.requestMs,
    requestTimeout: limits.requestMs,
    connectionsCheckingInterval: Math.ceil(limits.requestMs / 10)
  })
  server.maxConnections = limits.maxConnections
  return server
}

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
 * of this user's removed (another user's is never touched). Fails with a message otherwise.
 *
 * @since 0.1.0
 * @category serving
 */
export const claimSocket = (socket: string) =>
  Effect.gen(function*() {
    if (process.platform !== "win32" && !Locate.ensurePrivateDir(path.dirname(socket))) {
      return yield* Effect.fail(`the socket folder ${path.dirname(socket)} is not private to this user`)
    }
    const existing = fs.lstatSync(socket, { throwIfNoEntry: false })
    if (existing === undefined) return
    if (process.platform !== "win32" && existing.uid !== process.getuid?.()) {
      return yield* Effect.fail(`${socket} is owned by uid ${existing.uid}, not by you`)
    }
    if (yield* live(socket)) return yield* Effect.fail(`another bridge already listens on ${socket}`)
    fs.rmSync(socket, { force: true })
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
 * Runs the bridge until interrupted (SIGINT, SIGTERM); prints where it listens on stdout.
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
      const state = yield* makeState(located.file, () => Locate.registration(context)).pipe(Effect.provide(transports))
      const auditFile = Option.getOrUndefined(options.audit)
      if (auditFile !== undefined) yield* Console.log(`audit ${auditFile}`)
      const fail = (problem: string) => new BridgeError({ message: problem })
      const secret = BridgeAccess.secret(process.env)
      if (typeof secret === "string") return yield* fail(secret)
      const serveOn = (listen: Net.ListenOptions) =>
        Layer.build(
          HttpServer.serve(app(state, { verbose: options.verbose, secret: secret.secret })).pipe(
            Layer.provideMerge(NodeHttpServer.layerServer(boundedServer, listen))
          )
        ).pipe(Effect.map(Context.get(HttpServer.HttpServer)), Effect.either)
      const socket = options.noSocket
        ? undefined
        : Option.getOrElse(options.socket, () => Locate.socketPath(located.file, process.env))
      if (socket !== undefined) {
        const claimed = yield* Effect.either(claimSocket(socket))
        if (Either.isLeft(claimed)) return yield* fail(claimed.left)
        yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(socket, { force: true })))
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
            const problem = BridgeAccess.writeSecret(file, secret.secret)
            if (problem !== undefined) return yield* fail(problem)
            yield* Effect.addFinalizer(() => Effect.sync(() => fs.rmSync(file, { force: true })))
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
  )
