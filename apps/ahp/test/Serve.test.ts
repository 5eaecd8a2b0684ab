/**
 * `ahp serve`: each example answers over stdio (the first run as a child process of the
 * bundle, the others through the command line's entry in this process), and over HTTP.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import * as fs from "node:fs"
import { runInProcess } from "./inProcess.js"
import { eventually, runCli, startCli, tempDir } from "./support.js"

const envelope = (type: string, fields: Record<string, unknown>) => ({
  id: `evt-${type}`,
  source: "urn:test:serve",
  time: "2026-01-01T00:00:00Z",
  type,
  ...fields
})

const allCapabilities = {
  "tool.before": { effects: ["deny", "allow", "ask", "message"] },
  "tool.after": { effects: ["modify", "message"], modify: { output: { replace: true, merge: true } } },
  "turn.start": {
    effects: ["inject", "message"],
    inject: { context: { append: true, deliverAt: ["now", "next_turn"] } }
  }
} as const

const request = (type: keyof typeof allCapabilities, fields: Record<string, unknown>) => ({
  jsonrpc: "2.0",
  id: `evt-${type}`,
  method: "hooks/intercept",
  params: { protocolVersion: "draft", event: envelope(type, fields), capabilities: allCapabilities[type] }
})

const shell = (command: string) => ({
  tool: { name: "bash", input: { command }, origin: "native" },
  call: { id: "c1" },
  path: "main"
})

const textMessage = (role: string, text: string) => ({
  id: "m1",
  role,
  parts: [{ id: "p1", kind: "text", mediaType: "text/plain", selection: "body", text }]
})

const lines = (text: string) => text.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l))

const effectsOf = (response: any) => response.result.effects

describe("ahp serve", () => {
  it.live("shell-guard over stdio: deny, ask, allow, nothing", () =>
    Effect.gen(function*() {
      const input = ["rm -rf /", "git push -f origin main", "ls -la | wc -l", "make build"]
        .map((command) => JSON.stringify(request("tool.before", shell(command))))
        .join("\n") + "\n"
      const run = yield* runCli(["serve", "shell-guard", "--stdio"], { input })
      assert.strictEqual(run.code, 0, run.stderr)
      const answers = lines(run.stdout).map(effectsOf)
      assert.deepStrictEqual(answers.map((effects: any) => effects.map((e: any) => e.type)), [
        ["deny"],
        ["ask", "message"],
        ["allow"],
        []
      ])
      assert.strictEqual(answers[0][0].code, "com.example.shell-guard.destructive")
    }))

  it.scopedLive("--audit: one record per call with the event's identity, latency and effects; content only when asked", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
      const denied = request("tool.before", { ...shell("rm -rf /"), session: { id: "s1" } })
      denied.params.event = { ...denied.params.event, extensions: { "org.w3c.trace_context": { traceparent } } } as any
      const input = [denied, request("tool.before", shell("make build"))].map((m) => JSON.stringify(m)).join("\n") +
        "\n"
      const records = (file: string) => lines(fs.readFileSync(file, "utf8"))

      const plain = `${dir}/plain.jsonl`
      const run = yield* runInProcess(["serve", "shell-guard", "--stdio", "--audit", plain], { input })
      assert.strictEqual(run.code, 0, run.stderr)
      const [first, second] = records(plain)
      assert.deepInclude(first, { version: 1, side: "backend", mode: "intercept", outcome: "answered" })
      assert.deepStrictEqual(first.event, {
        id: "evt-tool.before",
        type: "tool.before",
        source: "urn:test:serve",
        sessionId: "s1",
        callId: "c1",
        traceContext: { traceparent }
      })
      assert.deepStrictEqual(first.effects, [{ type: "deny" }])
      assert.deepStrictEqual(second.effects, [])
      assert.isAtLeast(first.latencyMs, 0)
      assert.notInclude(fs.readFileSync(plain, "utf8"), "rm -rf", "no content unless asked")
      assert.strictEqual(fs.statSync(plain).mode & 0o777, 0o600)

      const withContent = `${dir}/content.jsonl`
      yield* runInProcess(["serve", "shell-guard", "--stdio", "--audit", withContent, "--audit-content"], { input })
      assert.strictEqual(records(withContent)[0].content.event.tool.input.command, "rm -rf /")
    }))

  it.live("secret-redactor over stdio masks tokens in tool.after output", () =>
    Effect.gen(function*() {
      const token = `ghp_${"x1".repeat(18)}`
      const event = {
        ...shell("cat .env"),
        outcome: "ok",
        execution: { status: "executed" },
        items: [textMessage("tool", `TOKEN=${token}\nplain line`)]
      }
      const run = yield* runInProcess(["serve", "secret-redactor", "--stdio"], {
        input: JSON.stringify(request("tool.after", event)) + "\n"
      })
      assert.strictEqual(run.code, 0, run.stderr)
      const [modify, message] = effectsOf(lines(run.stdout)[0])
      assert.deepInclude(modify, { type: "modify", target: "output", operation: "replace" })
      assert.strictEqual(modify.value[0].parts[0].text, "TOKEN=[REDACTED:github-token]\nplain line")
      assert.notInclude(run.stdout, token)
      assert.strictEqual(message.type, "message")
    }))

  it.live("prompt-annotator over stdio injects context at turn.start", () =>
    Effect.gen(function*() {
      const event = { turn: { id: "t1" }, trigger: "user", items: [textMessage("user", "please clean up the repo")] }
      const run = yield* runInProcess(["serve", "prompt-annotator", "--stdio"], {
        input: JSON.stringify(request("turn.start", event)) + "\n"
      })
      assert.strictEqual(run.code, 0, run.stderr)
      const [inject] = effectsOf(lines(run.stdout)[0])
      assert.deepInclude(inject, { type: "inject", target: "context", operation: "append", deliverAt: "now" })
      assert.match(inject.value[0].parts[0].text, /Workspace policy.*clean up/)
    }))

  it.scopedLive("audit over stdio appends one line per observed event and answers nothing", () =>
    Effect.gen(function*() {
      const dir = yield* tempDir
      const file = `${dir}/audit.jsonl`
      const notification = (n: number) =>
        JSON.stringify({
          jsonrpc: "2.0",
          method: "hooks/observe",
          params: {
            protocolVersion: "draft",
            event: envelope("tool.before", { ...shell(`echo ${n}`), id: `evt-${n}` })
          }
        })
      const run = yield* runInProcess(["serve", "audit", "--stdio", "--audit-file", file], {
        input: `${notification(1)}\n${notification(2)}\n`
      })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.strictEqual(run.stdout, "")
      const written = lines(fs.readFileSync(file, "utf8"))
      assert.deepStrictEqual(written.map((l: any) => [l.id, l.type, l.summary]), [
        ["evt-1", "tool.before", "bash: echo 1"],
        ["evt-2", "tool.before", "bash: echo 2"]
      ])
    }))

  it.live("slow over stdio answers nothing after --delay-ms", () =>
    Effect.gen(function*() {
      const started = Date.now()
      const run = yield* runInProcess(["serve", "slow", "--stdio", "--delay-ms", "300"], {
        input: JSON.stringify(request("tool.before", shell("ls"))) + "\n"
      })
      assert.strictEqual(run.code, 0, run.stderr)
      assert.deepStrictEqual(effectsOf(lines(run.stdout)[0]), [])
      assert.isAtLeast(Date.now() - started, 300)
    }))

  it.scopedLive("shell-guard over HTTP on a free port", () =>
    Effect.gen(function*() {
      const running = yield* startCli(["serve", "shell-guard", "--http", "0"])
      const url = yield* eventually(() => /listening on (\S+)/.exec(running.stdout())?.[1])
      const response = yield* Effect.promise(() =>
        fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(request("tool.before", shell("rm -rf ~")))
        }).then((r) => r.json())
      )
      assert.strictEqual(effectsOf(response)[0].type, "deny")
      running.child.kill("SIGTERM")
      const run = yield* running.done
      assert.strictEqual(run.code, 130)
    }))

  it.live("usage errors exit 2", () =>
    Effect.gen(function*() {
      const neither = yield* runInProcess(["serve", "shell-guard"])
      assert.strictEqual(neither.code, 2)
      assert.match(neither.stderr, /exactly one of --stdio and --http/)
      const unknown = yield* runInProcess(["serve", "teleporter", "--stdio"])
      assert.strictEqual(unknown.code, 2)
    }))
})
