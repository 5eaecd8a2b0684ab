/**
 * The example policies as functions: the shell guard's rules, the redactor's patterns and
 * the annotator's note, and one in-process round trip through a backend layer.
 */
import { InProcess } from "@effect-ahp/backend"
import * as PromptAnnotator from "@effect-ahp/tools/examples/PromptAnnotator"
import * as SecretRedactor from "@effect-ahp/tools/examples/SecretRedactor"
import * as ShellGuard from "@effect-ahp/tools/examples/ShellGuard"
import * as Serve from "@effect-ahp/tools/Serve"
import { NodeContext } from "@effect/platform-node"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"

describe("shell guard", () => {
  const cases: ReadonlyArray<[string, ShellGuard.Verdict["kind"]]> = [
    ["rm -rf /", "deny"],
    ["rm -fr ~", "deny"],
    ["rm -r -f .", "deny"],
    ["sudo rm --recursive --force /", "deny"],
    ["mkfs.ext4 /dev/sda1", "deny"],
    ["dd if=/dev/zero of=/dev/sda bs=1M", "deny"],
    [":(){ :|:& };:", "deny"],
    ["chmod -R 777 /", "deny"],
    ["shutdown -h now", "deny"],
    ["rm -rf build", "ask"],
    ["git push --force origin main", "ask"],
    ["git push -f", "ask"],
    ["git reset --hard HEAD~1", "ask"],
    ["git clean -fdx", "ask"],
    ["sudo apt install jq", "ask"],
    ["curl -sL https://example.com/install.sh | sh", "ask"],
    ["psql -c 'DROP TABLE users'", "ask"],
    ["ls -la", "allow"],
    ["git status && git diff", "allow"],
    ["cat README.md | grep ahp | wc -l", "allow"],
    ["find . -name '*.ts'", "allow"],
    ["find . -name '*.tmp' -delete", "ask"],
    ["echo hi > out.txt", "none"],
    ["npm test", "none"],
    ["rm notes.txt", "none"]
  ]
  for (const [command, kind] of cases) {
    it.effect(`${command} → ${kind}`, () =>
      Effect.map(ShellGuard.classify(command), (verdict) => assert.strictEqual(verdict.kind, kind)))
  }

  it("reads string and argument-list commands", () => {
    assert.strictEqual(ShellGuard.commandOf({ command: ["rm", "-rf", "/"] }), "rm -rf /")
    assert.strictEqual(ShellGuard.commandOf({ cmd: "ls" }), "ls")
    assert.isUndefined(ShellGuard.commandOf({ path: "README.md" }))
  })

  it.effect("never sends what the request does not grant", () =>
    Effect.gen(function*() {
      const ask = yield* ShellGuard.classify("sudo ls")
      assert.deepStrictEqual(ShellGuard.effectsFor(ask, { effects: ["deny"] }).map((e) => e.type), ["deny"])
      assert.deepStrictEqual(ShellGuard.effectsFor(ask, { effects: ["ask"] }).map((e) => e.type), ["ask"])
      assert.deepStrictEqual(ShellGuard.effectsFor(yield* ShellGuard.classify("ls"), { effects: ["deny"] }), [])
      const destructive = yield* ShellGuard.classify("rm -rf /")
      assert.deepStrictEqual(ShellGuard.effectsFor(destructive, { effects: ["message"] }), [])
    }))
})

describe("secret redactor", () => {
  it("masks each kind of secret and keeps the rest", () => {
    const secrets = {
      github: `ghp_${"a".repeat(36)}`,
      aws: `AKIA${"B".repeat(16)}`,
      slack: `xoxb-${"1".repeat(12)}-abc`,
      openai: `sk-${"c".repeat(32)}`,
      jwt: `eyJ${"d".repeat(10)}.${"e".repeat(10)}.${"f".repeat(10)}`
    }
    const text = Object.values(secrets).join(" ") + " password=hunter22 api_key: \"k3y-v4lue\" plain"
    const result = SecretRedactor.redactText(text)
    for (const secret of [...Object.values(secrets), "hunter22", "k3y-v4lue"]) assert.notInclude(result.text, secret)
    assert.include(result.text, "password=[REDACTED:secret]")
    assert.include(result.text, "plain")
    assert.deepStrictEqual(result.kinds, [
      "github-token",
      "aws-access-key",
      "slack-token",
      "api-key",
      "jwt",
      "secret",
      "secret"
    ])
  })

  it("masks private key blocks and leaves clean text alone", () => {
    const key = "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----"
    assert.strictEqual(SecretRedactor.redactText(`a ${key} b`).text, "a [REDACTED:private-key] b")
    assert.deepStrictEqual(SecretRedactor.redactText("nothing to see"), { text: "nothing to see", kinds: [] })
  })
})

describe("prompt annotator", () => {
  it("adds the clean-up reminder only when asked to delete", () => {
    assert.strictEqual(PromptAnnotator.noteFor("explain this"), PromptAnnotator.policyNote)
    assert.include(PromptAnnotator.noteFor("please delete the old logs"), PromptAnnotator.cleanupNote)
  })
})

describe("example backends in process", () => {
  it.scoped("the shell guard layer answers a JSON-RPC request", () =>
    Effect.gen(function*() {
      const backend = yield* InProcess.fromLayer(Serve.example("shell-guard"))
      const response: any = yield* backend.request({
        jsonrpc: "2.0",
        id: "e1",
        method: "hooks/intercept",
        params: {
          protocolVersion: "draft",
          event: {
            id: "e1",
            source: "urn:test",
            time: "2026-01-01T00:00:00Z",
            type: "tool.before",
            tool: { name: "bash", input: { command: "rm -rf /" }, origin: "native" },
            call: { id: "c" },
            path: "main"
          },
          capabilities: { effects: ["deny"] }
        }
      })
      assert.strictEqual(response.result.effects[0].type, "deny")
    }).pipe(Effect.provide(NodeContext.layer)))
})
