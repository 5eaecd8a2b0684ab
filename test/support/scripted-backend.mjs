#!/usr/bin/env node
// A scripted, deliberately misbehaving AHP backend for tests, benchmarks and soak runs.
// Plain Node ESM, no dependencies.
//
// Usage:
//   node scripted-backend.mjs stdio [behaviour] [options]
//   node scripted-backend.mjs http <port-file | -> [behaviour] [options]
//   node scripted-backend.mjs grandchild [marker]   (what --grandchild runs: ignores
//                                                   SIGTERM and runs until killed)
//
// stdio: reads one JSON-RPC message per stdin line and answers requests on stdout, one
// compact JSON object per line (works for both lifecycles: per_event simply closes stdin
// after one message; the script exits once stdin has ended and nothing is pending).
// http: listens on 127.0.0.1, port 0, and writes the port number to <port-file> (written
// atomically), or prints `PORT <n>` on stdout when <port-file> is `-`. Every POST (any path)
// is one message. SIGTERM ends it. Tests run the http mode in their own process with the
// exported `startHttp(args)` (args as after `http <port-file>`), which resolves with the port.
//
// The behaviour applies to every request, unless --sequence picks one per request.
// Notifications are only logged (stdio) or answered 204 (http; see notify-with-body).
//
// Behaviours for both modes:
//   ok                 answer {"protocolVersion":"draft","effects":[]} (default); a
//                      hooks/capabilities request gets {"protocolVersion":"draft","manifest":…}
//   echo-log           same as ok (use with --log)
//   deny[=<reason>]    answer with one deny effect
//   effects=<json>     answer with the given effects array
//   error=<code>       answer with a JSON-RPC error object
//   error-echo-auth    http: answer with a JSON-RPC error quoting the Authorization header received
//   late=<ms>          answer ok after <ms> milliseconds
//   hang               never answer (http: keep the connection open; alias never-answer)
//   wrong-id           answer with another id (http: only that; stdio: then the right one)
//   raw-effects=<json> answer with the given effects array written verbatim (numbers that a
//                      JavaScript number cannot hold, such as 1e400, reach the harness as written)
//   deep=<n>           answer with a merge whose value is <n> nested arrays (over the
//                      harness's depth limit for n > 512)
//   result-and-error   answer with both result and error
//   batch              answer with a one-element JSON array
//   oversized          answer with a JSON line/body of --size bytes (default 9 MiB)
// stdio only:
//   exit-mid           exit with code 3 without answering
//   exit-after-reply   answer, then exit immediately with code 0
//   garbage            write a line that is not JSON (and do not answer)
//   invalid-utf8       answer with a line containing invalid UTF-8 bytes
//   split-utf8         answer ok, writing the line in two chunks split inside a multi-byte
//                      character (with a pause in between); the result has "text":"é€😀"
//   wrong-id-hang      answer with another id only, then never answer
//   duplicate          answer twice with the same id
//   duplicate-deny     answer ok, then again with the same id carrying a deny effect
//   unsolicited        write a notification and a response to another id, then answer
//   multiline          answer with pretty-printed (multi-line) JSON
//   no-newline         answer without the trailing newline, then exit
//   stderr-flood       write 1 MiB to stderr, then answer ok
//   introspect         answer ok with extra result members "env" (the names of the
//                      environment variables it received) and "cwd"
//   error-echo-env=<N> answer with a JSON-RPC error quoting the value of environment variable N
//   ignore-sigterm     ignore SIGTERM (installed at startup if named anywhere) and hang
//   allow-exit=<code>  answer with an allow effect, then exit with <code> (default 1)
// http only:
//   <status>           answer with that HTTP status (e.g. 500, 503, 404, 401, 202, 204);
//                      201 carries a valid JSON-RPC body; 3xx point Location at
//                      /redirect-target on this server (a hit there is logged)
//   401-then-ok        401 for the first request, ok afterwards (same as --sequence 401,ok)
//   401-always         always 401
//   require-bearer=<t> ok only when exactly one `Authorization: Bearer <t>` header is sent,
//                      otherwise 401
//   require-oauth      ok only with the latest token issued by --oauth, otherwise 401
//   non-json           200 with a text/plain body that is not JSON
//   invalid-json       200 declared application/json whose body is not JSON
//   reset              destroy the socket without answering
//   never-answer       never answer
//   notify-with-body   answer notifications 202 with a body (requests: ok)
//
// Options:
//   --sequence a,b,c   behaviour for the 1st, 2nd, 3rd request; later requests use the
//                      default behaviour (commas inside [] or {} do not split)
//   --log FILE         append one JSON line per event, so tests can assert what arrived and
//                      in which order: {"event":"start","pid":…}, then stdio
//                      {"event":"message","pid":…,"message":…} or http
//                      {"event":"request","pid":…,"method":…,"path":…,"authorization":[…],"traceparent":…,
//                      "contentType":…,"accept":…,"remotePort":…,"body":"<raw text>"}
//                      (remotePort shows connection reuse); http also logs
//                      {"event":"closed","path":…} when a client drops an unanswered
//                      request, and {"event":"oauth","path":…,…} for --oauth endpoints
//   --size N           size in bytes for `oversized` (default 9437184)
//   --manifest JSON    the manifest for hooks/capabilities answers
//   --oauth            http: also act as the OAuth authorization server for issuer
//                      http://127.0.0.1:<port> (RFC 8414 metadata and POST /token with
//                      client_credentials, issuing oauth-token-1, oauth-token-2, …)
//   --client-secret S  http --oauth: the client secret /token requires (default: none)
//   --linger           stdio: keep running after stdin has ended (until killed)
//   --grandchild       stdio: at start, spawn a grandchild in the same process group that
//                      ignores SIGTERM and runs until killed (its command line carries this
//                      script's path and the --log path; logged as {"event":"grandchild","pid"})
//   --log-raw          stdio: message log entries also carry "raw", the line as received
//   --keyed KEY        a message names its own behaviour: its event's tool.input.plan[KEY]
//                      (a behaviour as above), else --sequence or the default applies;
//                      for concurrent callers, whose arrival order is not known
//   --counter FILE     number requests across processes (per_event children, restarted
//                      persistent children) with a counter kept in FILE, so --sequence
//                      spans them; without it each process counts from 1
//
// stdio message log entries also carry "outstanding": how many requests had been received
// but not yet answered when the message arrived (0 proves requests are serialised).
import { spawn } from "node:child_process"
import { appendFileSync, existsSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { inProcess, isScript } from "./inProcessHttp.mjs"

/**
 * One scripted backend: its options (parsed from `args`, the command line after the mode
 * and, for http, the port file), its request count, its log, and the two ways it serves:
 * `runStdio` (this process's stdin and stdout) and `runHttp` (a server on 127.0.0.1, whose
 * port is given to `onListening`). `fail` ends it on a usage error or an unknown behaviour.
 */
function backend(args, fail) {
  const options = {
    behaviour: "ok",
    sequence: [],
    log: undefined,
    size: 9 * 1024 * 1024,
    manifest: undefined,
    oauth: false,
    clientSecret: undefined,
    linger: false,
    counter: undefined,
    grandchild: false,
    logRaw: false,
    keyed: undefined
  }
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]
    if (arg === "--sequence") options.sequence = splitTopLevel(args[++i])
    else if (arg === "--log") options.log = args[++i]
    else if (arg === "--size") options.size = Number(args[++i])
    else if (arg === "--manifest") options.manifest = JSON.parse(args[++i])
    else if (arg === "--oauth") options.oauth = true
    else if (arg === "--client-secret") options.clientSecret = args[++i]
    else if (arg === "--linger") options.linger = true
    else if (arg === "--counter") options.counter = args[++i]
    else if (arg === "--grandchild") options.grandchild = true
    else if (arg === "--log-raw") options.logRaw = true
    else if (arg === "--keyed") options.keyed = args[++i]
    else if (arg.startsWith("--")) fail(`unknown option ${arg}`)
    else options.behaviour = arg
  }

  /** Splits "a,effects=[1,2],b" on commas that are not inside brackets or braces. */
  function splitTopLevel(text) {
    const parts = []
    let depth = 0
    let current = ""
    for (const c of text) {
      if (c === "[" || c === "{") depth++
      if (c === "]" || c === "}") depth--
      if (c === "," && depth === 0) {
        parts.push(current)
        current = ""
      } else current += c
    }
    parts.push(current)
    return parts.filter((p) => p !== "")
  }

  let logging = true
  function log(entry) {
    if (logging && options.log !== undefined) {
      appendFileSync(options.log, JSON.stringify({ pid: process.pid, ...entry }) + "\n")
    }
  }
  /** Stops the log: what happens after a test closed the backend (its dropped connections) is not logged. */
  const stopLog = () => (logging = false)

  let requestCount = 0
  /**
   * With --keyed KEY, the behaviour a message names itself: its event's
   * `tool.input.plan[KEY]`, or undefined.
   */
  function keyedBehaviour(message) {
    const plan = message?.params?.event?.tool?.input?.plan
    const name = options.keyed === undefined || plan === null || typeof plan !== "object"
      ? undefined
      : plan[options.keyed]
    return typeof name === "string" ? name : undefined
  }

  /** The behaviour for the next request: the message's own (--keyed), its --sequence entry, else the default. */
  function nextBehaviour(message) {
    const keyed = keyedBehaviour(message)
    if (keyed !== undefined) return parsed(keyed)
    if (options.counter !== undefined) {
      requestCount = (existsSync(options.counter) ? Number(readFileSync(options.counter, "utf8")) : 0) + 1
      writeFileSync(options.counter, String(requestCount))
    } else requestCount++
    return parsed(options.sequence[requestCount - 1] ?? options.behaviour)
  }

  /** A behaviour entry (`name` or `name=arg`) as its name and argument. */
  function parsed(entry) {
    const eq = entry.indexOf("=")
    return eq === -1 ? { name: entry, arg: undefined } : { name: entry.slice(0, eq), arg: entry.slice(eq + 1) }
  }

  const defaultManifest = {
    events: [],
    gaps: [],
    transports: ["stdio", "http"],
    authentication: [],
    toolPaths: [],
    contentCategories: [],
    limits: {},
    managedPolicy: { scopes: ["user"], disableable: true },
    correlationIdentityFields: []
  }

  function okResult(message) {
    return message.method === "hooks/capabilities"
      ? { protocolVersion: "draft", manifest: options.manifest ?? defaultManifest }
      : { protocolVersion: "draft", effects: [] }
  }

  /** The JSON-RPC answer for the semantic behaviours, or undefined for the others. */
  function answerFor(behaviour, message) {
    const id = message.id
    const result = (r) => ({ jsonrpc: "2.0", id, result: r })
    switch (behaviour.name) {
      case "ok":
      case "echo-log":
      case "late":
      case "notify-with-body":
      case "require-bearer":
      case "require-oauth":
      case "401-then-ok":
        return result(okResult(message))
      case "deny":
        return result({
          protocolVersion: "draft",
          effects: [{ type: "deny", reason: behaviour.arg ?? "denied by the scripted backend" }]
        })
      case "effects":
        return result({ protocolVersion: "draft", effects: JSON.parse(behaviour.arg) })
      case "error":
        return { jsonrpc: "2.0", id, error: { code: Number(behaviour.arg ?? -32603), message: "scripted error" } }
      case "result-and-error":
        return { jsonrpc: "2.0", id, result: okResult(message), error: { code: -32603, message: "scripted error" } }
      case "error-echo-env": {
        const said = `refused ${process.env[behaviour.arg] ?? "nothing"}`
        return { jsonrpc: "2.0", id, error: { code: -32001, message: said, data: { said } } }
      }
      case "batch":
        return [result(okResult(message))]
      case "wrong-id":
        return { jsonrpc: "2.0", id: `wrong-${JSON.stringify(id)}`, result: okResult(message) }
      default:
        return undefined
    }
  }

  /** The raw text of the answer for the behaviours whose result is written verbatim, or undefined. */
  function rawAnswerFor(behaviour, message) {
    const effects = behaviour.name === "raw-effects"
      ? behaviour.arg
      : behaviour.name === "deep"
      ? `[{"type":"modify","target":"input","operation":"merge","value":{"deep":${"[".repeat(Number(behaviour.arg))}${
        "]".repeat(Number(behaviour.arg))
      }}}]`
      : undefined
    return effects === undefined
      ? undefined
      : `{"jsonrpc":"2.0","id":${JSON.stringify(message.id)},"result":{"protocolVersion":"draft","effects":${effects}}}`
  }

  function paddedLine(id, size) {
    const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"protocolVersion":"draft","effects":[],"pad":"`
    const tail = `"}}`
    return head + "x".repeat(Math.max(0, size - head.length - tail.length)) + tail
  }

  // ---------------------------------------------------------------------------------- stdio

  function runStdio() {
    const all = [options.behaviour, ...options.sequence]
    if (all.includes("ignore-sigterm")) process.on("SIGTERM", () => {})
    let keepAlive
    const hold = () => (keepAlive ??= setInterval(() => {}, 1 << 30))
    if (options.linger) hold()
    let outstanding = 0
    // Every write of a line that answers the current request goes through here.
    const write = (text, callback) => {
      outstanding = 0
      return process.stdout.write(text, callback)
    }
    const send = (value) => write(JSON.stringify(value) + "\n")

    if (options.grandchild) {
      const grandchild = spawn(process.execPath, [process.argv[1], "grandchild", options.log ?? "-"], {
        stdio: "ignore"
      })
      // Not waited for: the backend still exits once stdin has ended, leaving it behind.
      grandchild.unref()
      log({ event: "grandchild", pid: grandchild.pid })
    }

    const onMessage = (message, line) => {
      log({ event: "message", outstanding, message, ...(options.logRaw ? { raw: line } : {}) })
      if (message === null || typeof message !== "object" || message.id === undefined || message.method === undefined) {
        return
      }
      outstanding++
      const behaviour = nextBehaviour(message)
      const reply = answerFor(behaviour, message)
      const raw = rawAnswerFor(behaviour, message)
      if (raw !== undefined) return write(raw + "\n")
      switch (behaviour.name) {
        case "late":
          setTimeout(() => send(reply), Number(behaviour.arg ?? 100))
          return
        case "hang":
        case "never-answer":
        case "ignore-sigterm":
          hold()
          return
        case "exit-mid":
          process.exit(3)
          return
        case "exit-after-reply":
          write(JSON.stringify(answerFor({ name: "ok" }, message)) + "\n", () => process.exit(0))
          return
        case "allow-exit": {
          const allow = answerFor({ name: "effects", arg: "[{\"type\":\"allow\"}]" }, message)
          write(JSON.stringify(allow) + "\n", () => process.exit(Number(behaviour.arg ?? 1)))
          return
        }
        case "garbage":
          write("this is not json\n")
          return
        case "invalid-utf8": {
          const text = JSON.stringify(answerFor({ name: "ok" }, message))
          write(
            Buffer.concat([
              Buffer.from(text.slice(0, -2) + ",\"bad\":\""),
              Buffer.from([0xff, 0xfe]),
              Buffer.from("\"}}\n")
            ])
          )
          return
        }
        case "split-utf8": {
          const value = answerFor({ name: "ok" }, message)
          value.result.text = "é€😀"
          const bytes = Buffer.from(JSON.stringify(value) + "\n")
          const cut = bytes.indexOf(Buffer.from("€")) + 1
          write(bytes.subarray(0, cut), () => setTimeout(() => write(bytes.subarray(cut)), 30))
          return
        }
        case "wrong-id":
          send(reply)
          send(answerFor({ name: "ok" }, message))
          return
        case "wrong-id-hang":
          send(answerFor({ name: "wrong-id" }, message))
          hold()
          return
        case "duplicate":
          send(answerFor({ name: "ok" }, message))
          send(answerFor({ name: "ok" }, message))
          return
        case "duplicate-deny":
          send(answerFor({ name: "ok" }, message))
          send(answerFor({ name: "deny", arg: "the second, duplicate answer" }, message))
          return
        case "unsolicited":
          send({ jsonrpc: "2.0", method: "hooks/unsolicited", params: {} })
          send({ jsonrpc: "2.0", id: "unsolicited", result: { protocolVersion: "draft", effects: [] } })
          send(answerFor({ name: "ok" }, message))
          return
        case "oversized":
          write(paddedLine(message.id, options.size) + "\n")
          return
        case "multiline":
          write(JSON.stringify(answerFor({ name: "ok" }, message), null, 2) + "\n")
          return
        case "no-newline":
          write(JSON.stringify(answerFor({ name: "ok" }, message)), () => process.exit(0))
          return
        case "stderr-flood":
          process.stderr.write("e".repeat(1024 * 1024), () => send(answerFor({ name: "ok" }, message)))
          return
        case "introspect": {
          const value = answerFor({ name: "ok" }, message)
          value.result.env = Object.keys(process.env).sort()
          value.result.cwd = process.cwd()
          send(value)
          return
        }
        default:
          if (reply === undefined) fail(`unknown stdio behaviour ${behaviour.name}`)
          send(reply)
      }
    }

    let pending = []
    process.stdin.on("data", (chunk) => {
      let start = 0
      for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, start)) {
        pending.push(chunk.subarray(start, i))
        const line = Buffer.concat(pending).toString("utf8")
        pending = []
        start = i + 1
        let message
        try {
          message = JSON.parse(line)
        } catch {
          log({ event: "invalid", length: line.length })
          continue
        }
        onMessage(message, line)
      }
      pending.push(chunk.subarray(start))
    })
    process.stdin.on("end", () => log({ event: "eof" }))
  }

  // ----------------------------------------------------------------------------------- http

  function runHttp(onListening) {
    let port = 0
    let issued = 0
    const issuer = () => `http://127.0.0.1:${port}`

    const sendJson = (res, status, value, headers = {}) => {
      const body = Buffer.from(JSON.stringify(value))
      res.writeHead(status, { "content-type": "application/json", "content-length": body.length, ...headers })
      res.end(body)
    }

    const oauthRoute = (req, res, body) => {
      if (req.url === "/.well-known/oauth-authorization-server") {
        log({ event: "oauth", path: req.url })
        return sendJson(res, 200, { issuer: issuer(), token_endpoint: `${issuer()}/token` })
      }
      if (req.url === "/token" && req.method === "POST") {
        const form = new URLSearchParams(body)
        const secretOk = options.clientSecret === undefined || form.get("client_secret") === options.clientSecret
        log({
          event: "oauth",
          path: req.url,
          grantType: form.get("grant_type"),
          clientId: form.get("client_id"),
          resource: form.get("resource"),
          scope: form.get("scope"),
          secretOk
        })
        if (form.get("grant_type") !== "client_credentials" || !secretOk) {
          return sendJson(res, 400, { error: "invalid_client" })
        }
        issued++
        return sendJson(res, 200, { access_token: `oauth-token-${issued}`, token_type: "Bearer", expires_in: 3600 })
      }
      return false
    }

    const server = createServer((req, res) => {
      const chunks = []
      req.on("data", (c) => chunks.push(c))
      req.on("end", () => {
        const raw = Buffer.concat(chunks).toString("utf8")
        if (options.oauth && oauthRoute(req, res, raw) !== false) return
        const authorization = []
        for (let i = 0; i < req.rawHeaders.length; i += 2) {
          if (req.rawHeaders[i].toLowerCase() === "authorization") authorization.push(req.rawHeaders[i + 1])
        }
        log({
          event: "request",
          method: req.method,
          path: req.url,
          authorization,
          contentType: req.headers["content-type"],
          accept: req.headers["accept"],
          traceparent: req.headers["traceparent"],
          remotePort: req.socket.remotePort,
          body: raw
        })
        if (req.url === "/redirect-target") return sendJson(res, 200, { redirected: true })
        let message = {}
        try {
          message = JSON.parse(raw)
        } catch {
          // answered below as if it were a notification
        }
        const isRequest = message !== null && typeof message === "object" && message.id !== undefined
        const behaviour = nextBehaviour(message)
        if (behaviour.name === "401-then-ok" && requestCount === 1) behaviour.name = "401"
        if (
          behaviour.name === "require-bearer" &&
          !(authorization.length === 1 && authorization[0] === `Bearer ${behaviour.arg}`)
        ) {
          behaviour.name = "401"
        }
        if (
          behaviour.name === "require-oauth" &&
          !(authorization.length === 1 && authorization[0] === `Bearer oauth-token-${issued}`)
        ) {
          behaviour.name = "401"
        }
        res.on("close", () => {
          if (!res.writableFinished) log({ event: "closed", path: req.url })
        })
        respond(req, res, behaviour, message, isRequest)
      })
    })

    const respond = (req, res, behaviour, message, isRequest) => {
      const { name, arg } = behaviour
      const status = /^\d{3}$/.test(name) ? Number(name) : name === "status" ? Number(arg) : undefined
      if (status !== undefined) {
        if (status === 401) return sendJson(res, 401, { error: "unauthorized" }, { "www-authenticate": "Bearer" })
        if (status >= 300 && status < 400) {
          res.writeHead(status, { location: `${issuer()}/redirect-target`, "content-length": 0 })
          return res.end()
        }
        if (status === 201) return sendJson(res, 201, answerFor({ name: "ok" }, message))
        if (status === 202 || status === 204) {
          res.writeHead(status)
          return res.end()
        }
        return sendJson(res, status, { error: `scripted status ${status}` })
      }
      switch (name) {
        case "401-always":
          return sendJson(res, 401, { error: "unauthorized" }, { "www-authenticate": "Bearer" })
        case "hang":
        case "never-answer":
          return
        case "reset":
          return req.socket.destroy()
        case "non-json":
          res.writeHead(200, { "content-type": "text/plain" })
          return res.end("this is not json")
        case "invalid-json":
          res.writeHead(200, { "content-type": "application/json" })
          return res.end("{\"jsonrpc\":\"2.0\",")
        case "notify-with-body":
          if (!isRequest) return sendJson(res, 202, { accepted: true })
          break
        case "late":
          setTimeout(() => respond(req, res, { name: "ok" }, message, isRequest), Number(arg ?? 100))
          return
        case "oversized": {
          res.writeHead(200, { "content-type": "application/json" })
          const line = Buffer.from(paddedLine(message.id ?? null, options.size))
          let offset = 0
          const pump = () => {
            while (offset < line.length) {
              const chunk = line.subarray(offset, offset + 65536)
              offset += chunk.length
              if (!res.write(chunk)) return res.once("drain", pump)
            }
            res.end()
          }
          res.on("close", () => (offset = line.length))
          return pump()
        }
      }
      if (!isRequest) {
        res.writeHead(204)
        return res.end()
      }
      if (behaviour.name === "error-echo-auth") {
        const said = `refused ${req.headers.authorization ?? "no credential"}`
        return sendJson(res, 200, {
          jsonrpc: "2.0",
          id: message.id,
          error: { code: -32001, message: said, data: { said } }
        })
      }
      const raw = rawAnswerFor(behaviour, message)
      if (raw !== undefined) {
        res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(raw) })
        return res.end(raw)
      }
      const reply = answerFor(behaviour, message)
      if (reply === undefined) fail(`unknown http behaviour ${name}`)
      return sendJson(res, 200, reply)
    }

    server.listen(0, "127.0.0.1", () => {
      port = server.address().port
      onListening(port)
    })
    return server
  }

  return { log, stopLog, runStdio, runHttp }
}

/**
 * The HTTP mode in this process, for tests: `args` as on the command line after
 * `http <port-file>`. Resolves once it listens, with its port and `close`, which drops the
 * connections still open (a `hang` leaves them so), logs nothing more, and resolves once the
 * server is closed.
 * A usage error or an unknown behaviour throws instead of exiting.
 */
export const startHttp = async (args) => {
  const instance = backend(args, (message) => {
    throw new Error(`scripted-backend: ${message}`)
  })
  instance.log({ event: "start", mode: "http" })
  return inProcess(instance.runHttp(() => {}), instance.stopLog)
}

if (isScript(import.meta.url, "scripted-backend.mjs")) {
  const argv = process.argv.slice(2)
  const mode = argv.shift()
  const portFile = mode === "http" ? argv.shift() : undefined
  const fail = (message) => {
    process.stderr.write(`scripted-backend: ${message}\n`)
    process.exit(2)
  }
  const instance = backend(argv, fail)
  instance.log({ event: "start", mode })
  if (mode === "stdio") instance.runStdio()
  else if (mode === "http") {
    instance.runHttp((port) => {
      if (portFile === "-" || portFile === undefined) process.stdout.write(`PORT ${port}\n`)
      else {
        writeFileSync(`${portFile}.tmp`, String(port))
        renameSync(`${portFile}.tmp`, portFile)
      }
    })
    process.on("SIGTERM", () => process.exit(0))
  } else if (mode === "grandchild") {
    process.on("SIGTERM", () => {})
    setInterval(() => {}, 1 << 30)
  } else fail("usage: scripted-backend.mjs stdio [behaviour] [options] | http <port-file|-> [behaviour] [options]")
}
