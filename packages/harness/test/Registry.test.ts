import { Grant, Registry } from "@effect-ahp/harness"
import { Decoder, Json, Registration } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Either } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"

const fixtures = join(__dirname, "..", "..", "..", "..", "shared", "ahp", "fixtures", "draft", "registration")

const issuesOf = (doc: unknown, grant = Grant.full()) => {
  const result = Registry.compile(doc, grant)
  return Either.isLeft(result) ? result.left.issues.map((i) => [i.code, i.path]) : []
}

const sub = (extra: Record<string, unknown> = {}) => ({
  events: ["tool.before"],
  mode: "intercept",
  timeoutMs: 500,
  failurePolicy: "fail-closed",
  content: { default: "metadata" },
  ...extra
})

const backend = (
  id: string,
  subscriptions: ReadonlyArray<unknown>,
  transport: unknown = { type: "stdio", command: "hook", lifecycle: "persistent" }
) => ({ id, transport, subscriptions })

describe("Registry", () => {
  it("reports every problem at once, each with a code and a JSON Pointer", () => {
    const doc = {
      protocolVersion: "2025-01-01",
      hooks: [
        backend("com.example.a", [
          sub({ events: ["session.end"] }),
          sub({ events: ["tool.be*"], failurePolicy: undefined }),
          {
            events: ["tool.*"],
            mode: "observe",
            content: { default: "omit" },
            timeoutMs: 10,
            failurePolicy: "fail-open"
          },
          sub({ timeoutMs: 0, scope: "managed" }),
          sub({ content: {} })
        ]),
        backend("com.example.a", [sub()], { type: "http", url: "http://policy.example.com/hooks" }),
        backend("not reverse dns", [sub()], { type: "grpc" }),
        {
          ...backend("com.example.c", [sub({ events: ["nope"] })], {
            type: "stdio",
            command: "x",
            lifecycle: "persistent"
          }),
          authentication: { type: "bearer", tokenEnv: "T" }
        },
        {
          ...backend("com.example.d", [sub()], { type: "https", url: "https://x" }),
          authentication: { type: "mtls", token: "literal" }
        },
        backend("com.example.e", [])
      ]
    }
    // Ordered by path (array indices as numbers); the codes and paths are the rules' own.
    assert.deepStrictEqual(issuesOf(doc), [
      ["intercept-on-observe-only-event", "/hooks/0/subscriptions/0/events/0"],
      ["invalid-selector", "/hooks/0/subscriptions/1/events/0"],
      ["missing-failure-policy", "/hooks/0/subscriptions/1/failurePolicy"],
      ["forbidden-failure-policy", "/hooks/0/subscriptions/2/failurePolicy"],
      ["forbidden-timeout", "/hooks/0/subscriptions/2/timeoutMs"],
      ["managed-scope-disableable", "/hooks/0/subscriptions/3/disableable"],
      ["invalid-timeout", "/hooks/0/subscriptions/3/timeoutMs"],
      ["missing-content-selection", "/hooks/0/subscriptions/4/content"],
      ["duplicate-backend-id", "/hooks/1/id"],
      ["unsafe-endpoint", "/hooks/1/transport/url"],
      ["invalid-backend-id", "/hooks/2/id"],
      ["unsupported-transport", "/hooks/2/transport"],
      ["authentication-not-allowed", "/hooks/3/authentication"],
      ["unknown-event", "/hooks/3/subscriptions/0/events/0"],
      ["literal-credential", "/hooks/4/authentication/token"],
      ["unknown-auth-type", "/hooks/4/authentication/type"],
      ["unsupported-transport", "/hooks/4/transport"],
      ["missing-subscriptions", "/hooks/5/subscriptions"],
      ["unsupported-protocol-version", "/protocolVersion"]
    ])
  })

  it("the rules live on the Registration schema: its decoding issues carry the same codes and messages", () => {
    const doc = {
      protocolVersion: "draft",
      hooks: [
        {
          ...backend("com.example.a", [sub({ scope: "managed" }), sub({ id: "x" }), sub({ id: "x", mode: "watch" })]),
          authentication: { type: "bearer", tokenEnv: "T" }
        },
        backend("com.example.a", [sub()])
      ]
    }
    const decoded = Decoder.make(Registration.Registration)(doc)
    const schemaIssues = Either.isLeft(decoded) ? decoded.left.map((i) => [i.code, i.path, i.message]) : []
    const compiled = Registry.compile(doc, Grant.full())
    const registryIssues = Either.isLeft(compiled) ? compiled.left.issues.map((i) => [i.code, i.path, i.message]) : []
    assert.deepStrictEqual(registryIssues, [
      [
        "authentication-not-allowed",
        "/hooks/0/authentication",
        "stdio backends take no authentication (process trust only)"
      ],
      [
        "managed-scope-disableable",
        "/hooks/0/subscriptions/0/disableable",
        "a managed subscription must set disableable to false"
      ],
      ["duplicate-subscription-id", "/hooks/0/subscriptions/2/id", "duplicate subscription id x"],
      ["invalid-mode", "/hooks/0/subscriptions/2/mode", "mode must be intercept or observe"],
      ["duplicate-backend-id", "/hooks/1/id", "duplicate backend id com.example.a"]
    ])
    assert.sameDeepMembers(schemaIssues, registryIssues)
  })

  it("a timeout beyond what the harness can hold is rejected, never rounded", () => {
    const doc = Either.getOrThrow(Json.parse(
      `{"protocolVersion":"draft","hooks":[{"id":"com.example.a","transport":{"type":"stdio","command":"x","lifecycle":"persistent"},` +
        `"subscriptions":[{"events":["tool.before"],"mode":"intercept","timeoutMs":90071992547409931,"failurePolicy":"fail-open","content":{"default":"body"}}]}]}`
    ))
    assert.deepStrictEqual(issuesOf(doc), [["invalid-timeout", "/hooks/0/subscriptions/0/timeoutMs"]])
  })

  it("a document that is not an object, or has no backends, is rejected", () => {
    assert.deepStrictEqual(issuesOf([]), [["invalid-document", ""]])
    assert.deepStrictEqual(issuesOf({ protocolVersion: "draft", hooks: [] }), [["missing-backends", "/hooks"]])
  })

  it("an intercept wildcard expanding to nothing the host intercepts is an error", () => {
    const grant = Either.getOrThrow(Grant.fromCapabilityMap({ "tool.before": { effects: ["deny"] } }))
    const doc = {
      protocolVersion: "draft",
      hooks: [backend("com.example.a", [sub({ events: ["model.*"] }), sub({ events: ["tool.after"] })])]
    }
    assert.deepStrictEqual(issuesOf(doc, grant), [
      ["wildcard-selects-nothing", "/hooks/0/subscriptions/0/events/0"],
      ["event-not-intercepted-by-host", "/hooks/0/subscriptions/1/events/0"]
    ])
  })

  it("routes follow hooks order then subscription order; observe and intercept on one backend stay independent", () => {
    const doc = {
      protocolVersion: "draft",
      hooks: [
        backend("com.example.b", [sub({ id: "policy" }), {
          events: ["*"],
          mode: "observe",
          content: { default: "omit" }
        }]),
        backend("com.example.a", [sub({ events: ["tool.*"] })], { type: "http", url: "http://127.0.0.1:8080/hooks" })
      ],
      unknownMember: { kept: true }
    }
    const registry = Either.getOrThrow(Registry.compile(doc, Grant.full()))
    const routes = registry.routes("tool.before")
    assert.deepStrictEqual(routes.intercept.map((r) => [r.backend.id, r.label]), [["com.example.b", "policy"], [
      "com.example.a",
      "0"
    ]])
    assert.deepStrictEqual(routes.observe.map((r) => [r.backend.id, r.label]), [["com.example.b", "1"]])
    assert.deepStrictEqual(registry.routes("tool.after").intercept.map((r) => r.backend.id), ["com.example.a"])
    assert.deepStrictEqual(registry.routes("session.end").intercept, [])
    assert.deepStrictEqual((registry.registration as any).unknownMember, { kept: true })
  })

  it("accepts https and loopback http endpoints only", () => {
    assert.isTrue(Registry.isSafeEndpoint("https://policy.example.com/x"))
    assert.isTrue(Registry.isSafeEndpoint("http://127.0.0.1:9/x"))
    assert.isTrue(Registry.isSafeEndpoint("http://localhost/x"))
    assert.isTrue(Registry.isSafeEndpoint("http://[::1]:80/"))
    assert.isFalse(Registry.isSafeEndpoint("http://127.0.0.1.evil.com/x"))
    assert.isFalse(Registry.isSafeEndpoint("http://user@policy.example.com/"))
    assert.isFalse(Registry.isSafeEndpoint("ftp://127.0.0.1/"))
  })

  describe.skipIf(!existsSync(fixtures))("official registration fixtures", () => {
    const files = existsSync(fixtures)
      ? [
        "portable.valid.json",
        "model-family-selection.valid.json",
        "content-default-missing.invalid.json",
        "empty-hooks.invalid.json",
        "intercept-content-missing.invalid.json",
        "observe-content-missing.invalid.json"
      ]
      : []
    for (const file of files) {
      it(file, () => {
        const doc = JSON.parse(readFileSync(join(fixtures, file), "utf8"))
        assert.strictEqual(Either.isRight(Registry.compile(doc, Grant.full())), file.includes(".valid."))
      })
    }
  })
})
