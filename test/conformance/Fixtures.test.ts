/**
 * Every official fixture under ../shared/ahp/fixtures/draft is validated by our Schemas
 * with the manifest's expected outcome: once as the manifest's schema kind, once with the
 * kind inferred (what `ahp validate` does without `--kind`), and against the aggregate wire
 * message where the manifest says so.
 */
import { Wire } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { type FixtureCase, fixtureCases, fixtureExists, readFixture, sharedRoot } from "../support/fixtures.js"

/**
 * Fixtures valid on the wire whose invalidity only a boundary can judge: the manifest marks
 * them `contextualExpectedValid: false` with an `editContext`. A Schema must accept them; the
 * harness core rejects them when staging against that boundary (see
 * packages/harness/test/Staging.test.ts, which runs every editContext case).
 */
const judgedByBoundary: Record<string, string> = {
  "http.contextual-elicitation-content-list.invalid": "a message list is not an elicitation answer object",
  "http.contextual-outbound-content-object.invalid": "an object is not a message list at user.message.outbound",
  "http.contextual-elicitation-content-nested.invalid": "MCP answers hold only primitive values or string lists",
  "http.contextual-elicitation-content-url.invalid": "URL-mode results have no answer content",
  "http.contextual-elicitation-content-decline.invalid": "only accepted form results have answer content"
}

const kindOf = (c: FixtureCase): Wire.Kind => {
  const name = c.schema.replace(/^schema\/draft\//, "").replace(/\.schema\.json$/, "").replace(/\.json$/, "")
  const kind = name === "schema" ? "message" : name
  if (!Wire.isKind(kind)) throw new Error(`manifest schema ${c.schema} has no matching kind`)
  return kind
}

const framing = (c: FixtureCase): Wire.Framing => c.binding === "stdio-jsonl" ? "jsonl" : "json"

const verdict = (c: FixtureCase, kind?: Wire.Kind) => Wire.validateText(readFixture(c), { framing: framing(c), kind })

if (sharedRoot === undefined) {
  describe("official fixtures", () => {
    it.skip("../shared/ahp is absent: conformance fixtures skipped", () => {})
  })
} else {
  const cases = fixtureCases()
  describe("official fixtures (manifest schema kind)", () => {
    it("the manifest lists the fixtures", () => assert.isAtLeast(cases.length, 150))
    for (const c of cases) {
      if (!fixtureExists(c)) {
        it.skip(`${c.id}: listed in the manifest but absent from this copy of the fixtures`, () => {})
        continue
      }
      it(`${c.id} is ${c.expectedValid ? "valid" : "invalid"} as ${kindOf(c)}`, () => {
        const v = verdict(c, kindOf(c))
        assert.strictEqual(v.issues.length === 0, c.expectedValid, JSON.stringify(v.issues))
        for (const issue of v.issues) assert.match(issue.path, /^(\/[^/]*)*$/)
      })
    }
  })

  describe("official fixtures (kind inferred, as `ahp validate` does)", () => {
    for (const c of cases.filter(fixtureExists)) {
      it(`${c.id}`, () => {
        const v = verdict(c)
        assert.strictEqual(v.issues.length === 0, c.expectedValid, JSON.stringify(v))
      })
    }
  })

  describe("official fixtures (aggregate wire message)", () => {
    for (const c of cases.filter((c) => fixtureExists(c) && c.aggregateExpectedValid !== undefined)) {
      it(`${c.id}`, () => {
        const v = verdict(c, "message")
        assert.strictEqual(v.issues.length === 0, c.aggregateExpectedValid, JSON.stringify(v.issues))
      })
    }
  })

  describe("fixtures only a boundary can judge", () => {
    const contextual = cases.filter((c) => c.contextualExpectedValid === false && c.expectedValid)
    it("are exactly the listed ones", () =>
      assert.deepStrictEqual(contextual.map((c) => c.id).sort(), Object.keys(judgedByBoundary).sort()))
    for (const c of contextual.filter(fixtureExists)) {
      it(`${c.id} passes the Schema (${judgedByBoundary[c.id]})`, () =>
        assert.deepStrictEqual(verdict(c, kindOf(c)).issues, []))
    }
  })
}
