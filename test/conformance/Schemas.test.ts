/**
 * Our Schemas against the official JSON Schemas (draft 2020-12) on generated values: every
 * value `Arbitrary` draws from one of our Schemas, encoded to JSON, must be valid under the
 * official schema of the same kind.
 *
 * Kinds compared: effects, content parts and messages, capabilities, events, observe
 * notifications, intercept requests and responses, capabilities requests and responses,
 * JSON-RPC messages, upload receipts and registrations. The official `intercept-request`
 * and `registration` files here are from the previous protocol revision (see
 * ../shared/ahp/SOURCES.md); our values still satisfy them, because what changed since
 * (canonical inline messages, list-valued modify) does not touch their shapes, and they are
 * kept in the comparison so a drift would show.
 *
 * Differences found and kept on purpose (our Schemas are stricter than the official ones;
 * every value we accept they accept, not the reverse):
 * - Registration authentication: only the portable `bearer` and `oauth` bindings
 *   (AHP-AUTH-001); the previous-revision file still lists `mtls` and `workload`. Literal
 *   secret members (`token`, `clientSecret`, …) are rejected rather than ignored.
 * - A `hooks/intercept` request whose id differs from its event's id is invalid (a wire rule
 *   the JSON Schema cannot express).
 * - `Common.Extensions` keys must be reverse-DNS names (official: `propertyNames` pattern —
 *   same rule), and our decoding reports a bad key instead of ignoring it.
 * - `Capabilities.effects` accepts reverse-DNS extension names like the official schema, but
 *   the harness never advertises them (newest capabilities text: only the 8 core kinds).
 * - `source` must be an RFC 3986 absolute URI and `time` an RFC 3339 date-time with a
 *   valid calendar date: the official schemas state these as `format`, which JSON Schema
 *   2020-12 treats as annotations unless a validator opts in.
 */
import {
  Capabilities,
  Content,
  Discovery,
  Event,
  HookEffect,
  Intercept,
  Json,
  JsonRpc,
  Observe,
  Registration,
  Upload
} from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import Ajv2020 from "ajv/dist/2020.js"
import { Arbitrary, FastCheck as fc, Schema } from "effect"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { sharedRoot } from "../support/fixtures.js"

const base = "https://agenthooksprotocol.org/schemas/draft/"

const compared: ReadonlyArray<readonly [string, Schema.Schema<any, any>, string]> = [
  ["effect", HookEffect.HookEffect, "effect.schema.json"],
  ["content part", Content.Part, "content-item.schema.json"],
  ["message", Content.Message, "content-item.schema.json#/$defs/message"],
  ["capabilities", Capabilities.Capabilities, "capabilities.schema.json"],
  ["event", Event.Event, "event.schema.json"],
  ["observe notification", Observe.Notification, "observe-notification.schema.json"],
  ["intercept response", Intercept.Response, "intercept-response.schema.json"],
  ["intercept deny response", Intercept.DenyResponse, "intercept-deny-response.schema.json"],
  ["intercept no-effect response", Intercept.NoEffectResponse, "intercept-no-effect-response.schema.json"],
  ["capabilities request", Discovery.Request, "capabilities-request.schema.json"],
  ["capabilities response", Discovery.Response, "capabilities-response.schema.json"],
  ["JSON-RPC message", JsonRpc.Message, "json-rpc-message.schema.json"],
  ["upload receipt", Upload.Receipt, "content-upload-receipt.schema.json"],
  ["intercept request", Intercept.Request, "intercept-request.schema.json"],
  ["registration", Registration.Registration, "registration.schema.json"]
]

if (sharedRoot === undefined) {
  describe("official JSON Schemas", () => {
    it.skip("../shared/ahp is absent: schema cross-check skipped", () => {})
  })
} else {
  const schemaDir = join(sharedRoot, "schema", "draft")
  const ajv = new Ajv2020.default({ strict: false, allErrors: true, validateFormats: false })
  for (const file of readdirSync(schemaDir).filter((f) => f.endsWith(".schema.json") || f === "schema.json")) {
    ajv.addSchema(JSON.parse(readFileSync(join(schemaDir, file), "utf8")))
  }

  describe("our Schemas against the official JSON Schemas (generated values)", () => {
    it("the official validator rejects invalid values (the comparison can fail)", () => {
      assert.isFalse(ajv.getSchema(base + "effect.schema.json")!({ type: "deny" }))
      assert.isFalse(ajv.getSchema(base + "event.schema.json")!({ type: "tool.before" }))
      assert.isFalse(ajv.getSchema(base + "capabilities.schema.json")!({ effects: ["modify"] }))
    })
    for (const [name, schema, ref] of compared) {
      it(`every generated ${name} is valid under ${ref}`, () => {
        const validate = ajv.getSchema(base + ref)
        assert.isDefined(validate, `official schema ${ref} not loaded`)
        const encode = Schema.encodeSync(schema)
        for (const value of fc.sample(Arbitrary.make(schema), 60)) {
          const json = JSON.parse(Json.stringify(encode(value)))
          const ok = validate!(json)
          assert.isTrue(ok, `${Json.stringify(json)}\n${JSON.stringify(validate!.errors)}`)
        }
      })
    }
  })
}
