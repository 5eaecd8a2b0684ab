#!/usr/bin/env node
// A stdio AHP backend with hostile process behaviour, for the transport's process tests:
// slow start-up, grandchildren that ignore SIGTERM, stderr output, exit statuses, a
// closed stdin. Plain Node ESM, no dependencies. Reads one JSON-RPC message per stdin
// line; answers every request (unless --answer none) and logs every message.
//
// Usage: node hostile-stdio.mjs [options]
//   --log FILE          append one JSON line per event: {"event":"start","pid"},
//                       {"event":"ready"}, {"event":"message","message"},
//                       {"event":"grandchild","pid"}, {"event":"eof"}, {"event":"env",
//                       "env":{…},"cwd"} (with --introspect), {"event":"stdin-closed"}
//   --startup MS        wait MS milliseconds before reading stdin (then log "ready")
//   --grandchild MODE   at start, spawn a grandchild in the same process group that ignores
//                       SIGTERM and runs forever: "quiet" (no stdio) or "hold" (it holds
//                       stdout and stderr open); its command line carries the --log path,
//                       and stdin is read only once it ignores SIGTERM
//   --answer KIND       ok (no effects, default), allow, deny, none (never answer)
//   --exit CODE         exit with CODE right after answering the first request
//   --eof-exit CODE     exit with CODE when stdin ends (default 0)
//   --stderr TEXT       write TEXT to stderr at start
//   --stderr-exit TEXT  write TEXT to stderr, then exit 1, on the first message
//   --ignore-sigterm    ignore SIGTERM
//   --close-stdin       close stdin at start and keep running
//   --introspect        log the environment and working directory at start
import { spawn } from "node:child_process"
import { appendFileSync, closeSync } from "node:fs"

const options = {
  log: undefined,
  startup: 0,
  grandchild: undefined,
  answer: "ok",
  exit: undefined,
  eofExit: 0,
  stderr: undefined,
  stderrExit: undefined,
  ignoreSigterm: false,
  closeStdin: false,
  introspect: false
}
const argv = process.argv.slice(2)
for (let i = 0; i < argv.length; i++) {
  const arg = argv[i]
  if (arg === "--log") options.log = argv[++i]
  else if (arg === "--startup") options.startup = Number(argv[++i])
  else if (arg === "--grandchild") options.grandchild = argv[++i]
  else if (arg === "--answer") options.answer = argv[++i]
  else if (arg === "--error") options.error = argv[++i]
  else if (arg === "--exit") options.exit = Number(argv[++i])
  else if (arg === "--eof-exit") options.eofExit = Number(argv[++i])
  else if (arg === "--stderr") options.stderr = argv[++i]
  else if (arg === "--stderr-exit") options.stderrExit = argv[++i]
  else if (arg === "--ignore-sigterm") options.ignoreSigterm = true
  else if (arg === "--close-stdin") options.closeStdin = true
  else if (arg === "--introspect") options.introspect = true
  else {
    process.stderr.write(`hostile-stdio: unknown option ${arg}\n`)
    process.exit(2)
  }
}

const log = (entry) => {
  if (options.log !== undefined) appendFileSync(options.log, JSON.stringify({ pid: process.pid, ...entry }) + "\n")
}

const hold = () => setInterval(() => {}, 1 << 30)

log({ event: "start" })
if (options.introspect) log({ event: "env", env: process.env, cwd: process.cwd() })
if (options.ignoreSigterm) process.on("SIGTERM", () => {})
if (options.stderr !== undefined) process.stderr.write(options.stderr)
// The grandchild reports on fd 3 once it ignores SIGTERM; stdin is read only after that, so
// no answer (and no termination) can come before the grandchild is in place.
const grandchildReady = new Promise((resolve) => {
  if (options.grandchild === undefined) return resolve()
  const script = "process.on('SIGTERM', () => {}); require('fs').writeSync(3, 'r'); setInterval(() => {}, 1 << 30)"
  const io = options.grandchild === "hold" ? ["ignore", "inherit", "inherit"] : ["ignore", "ignore", "ignore"]
  const grandchild = spawn(process.execPath, ["-e", script, "--", "hostile-grandchild", String(options.log)], {
    stdio: [...io, "pipe"]
  })
  grandchild.unref()
  log({ event: "grandchild", pid: grandchild.pid })
  grandchild.stdio[3].once("data", () => {
    grandchild.stdio[3].destroy()
    resolve()
  })
})
if (options.closeStdin) {
  closeSync(0)
  log({ event: "stdin-closed" })
  hold()
}

const answer = (message) => {
  if (options.answer === "none") return hold()
  const effects = options.answer === "allow"
    ? [{ type: "allow" }]
    : options.answer === "deny"
    ? [{ type: "deny", reason: "denied by hostile-stdio" }]
    : []
  const answer = options.error !== undefined
    ? { error: { code: -32003, message: options.error, data: { rejected: options.error } } }
    : { result: { protocolVersion: "draft", effects } }
  const line = JSON.stringify({ jsonrpc: "2.0", id: message.id, ...answer }) + "\n"
  process.stdout.write(line, () => {
    if (options.exit !== undefined) process.exit(options.exit)
  })
}

const onMessage = (message) => {
  log({ event: "message", message })
  if (options.stderrExit !== undefined) {
    process.stderr.write(options.stderrExit, () => process.exit(1))
    return
  }
  if (message !== null && typeof message === "object" && message.id !== undefined && message.method !== undefined) {
    answer(message)
  }
}

const read = () => {
  log({ event: "ready" })
  let pending = ""
  process.stdin.setEncoding("utf8")
  process.stdin.on("data", (chunk) => {
    pending += chunk
    for (let i = pending.indexOf("\n"); i !== -1; i = pending.indexOf("\n")) {
      const line = pending.slice(0, i)
      pending = pending.slice(i + 1)
      try {
        onMessage(JSON.parse(line))
      } catch {
        log({ event: "invalid" })
      }
    }
  })
  process.stdin.on("end", () => {
    log({ event: "eof" })
    process.exit(options.eofExit)
  })
}

if (!options.closeStdin) {
  grandchildReady.then(() => {
    if (options.startup > 0) setTimeout(read, options.startup)
    else read()
  })
}
