import { DispatchResult, RouteFailure, Settlement } from "@effect-ahp/harness"
import { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Effect, FastCheck as fc, Schema } from "effect"

const provenance = (n: number): Settlement.Provenance => ({
  backend: "com.example.b",
  subscription: String(n),
  requestId: "evt_1"
})

const denied = Settlement.settle(
  Settlement.accept(
    Settlement.accept(Settlement.initial(), {
      effects: [{ type: "message", text: "careful" }, {
        type: "inject",
        target: "context",
        operation: "append",
        deliverAt: "now",
        value: [{
          id: "m1",
          role: "user",
          parts: [{ id: "p1", kind: "text", mediaType: "text/plain", selection: "body", text: "hi" }]
        }]
      }],
      operationChanged: false
    }, provenance(0)),
    { effects: [{ type: "deny", reason: "no", code: "com.example.policy" }], operationChanged: false },
    provenance(1)
  )
)

const failure = new RouteFailure.RouteFailure({
  backend: "com.example.b",
  subscription: "1",
  mode: "intercept",
  phase: "transport",
  code: "timeout",
  detail: "no answer",
  policy: "fail-closed",
  syntheticDenial: true,
  httpStatus: 504
})

const result = {
  event: {
    type: "tool.before",
    id: "evt_1",
    tool: { name: "Bash" },
    n: new Json.LosslessNumber("12345678901234567890")
  },
  decision: denied,
  errors: [failure],
  observations: [{
    backend: "com.example.o",
    subscription: "0",
    mode: "observe" as const,
    outcome: "timeout" as const
  }],
  interrupted: false,
  observationsDone: Effect.succeed([])
}

describe("DispatchResult", () => {
  it("encodes to the documented JSON form, members in order, absent members as null or omitted", () => {
    const encoded = Schema.encodeSync(DispatchResult.DispatchResult)(result)
    assert.deepStrictEqual(Object.keys(encoded), [
      "event",
      "effects",
      "decision",
      "state",
      "messages",
      "errors",
      "observations",
      "interrupted"
    ])
    assert.strictEqual(
      Json.stringify(encoded.state),
      "{\"permission\":\"deny\",\"candidate\":null,\"flow\":\"none\",\"instructions\":[]," +
        "\"injections\":[{\"deliverAt\":\"now\",\"messages\":[{\"id\":\"m1\",\"role\":\"user\",\"parts\":[{\"id\":\"p1\",\"kind\":\"text\",\"mediaType\":\"text/plain\",\"selection\":\"body\",\"text\":\"hi\"}]}]}]," +
        "\"denial\":{\"reason\":\"no\",\"code\":\"com.example.policy\",\"synthetic\":false,\"backend\":\"com.example.b\",\"subscription\":\"1\"}," +
        "\"stopReason\":null,\"continuationsConsumed\":0}"
    )
    assert.strictEqual(encoded.decision, "deny")
    assert.deepStrictEqual(encoded.messages, ["careful"])
    assert.deepStrictEqual(encoded.effects.map((e) => e.type), ["message", "inject", "deny"])
    assert.strictEqual(
      Json.stringify(encoded.errors),
      "[{\"backend\":\"com.example.b\",\"subscription\":\"1\",\"mode\":\"intercept\",\"phase\":\"transport\",\"code\":\"timeout\"," +
        "\"syntheticDenial\":true,\"policy\":\"fail-closed\",\"detail\":\"no answer\",\"httpStatus\":504}]"
    )
    assert.strictEqual(
      Json.stringify(encoded.event),
      "{\"type\":\"tool.before\",\"id\":\"evt_1\",\"tool\":{\"name\":\"Bash\"},\"n\":12345678901234567890}"
    )
    assert.isFalse("observationsDone" in encoded)
  })

  it("decodes its JSON form back (request ids and effect provenance are not part of it)", () => {
    const encoded = Schema.encodeSync(DispatchResult.DispatchResult)(result)
    const decoded = Schema.decodeUnknownSync(DispatchResult.DispatchResult)(
      Json.parse(Json.stringify(encoded)).pipe((e) => e._tag === "Right" ? e.right : null)
    )
    assert.instanceOf(decoded.errors[0], RouteFailure.RouteFailure)
    assert.deepStrictEqual(decoded.decision.denial, {
      reason: "no",
      code: "com.example.policy",
      synthetic: false,
      provenance: { backend: "com.example.b", subscription: "1" }
    })
    assert.deepStrictEqual(Schema.encodeSync(DispatchResult.DispatchResult)(decoded), encoded)
  })

  it("rejects a JSON form that is not one", () => {
    const encoded = Schema.encodeSync(DispatchResult.DispatchResult)(result)
    assert.isTrue(
      Schema.decodeUnknownEither(DispatchResult.DispatchResult)({ ...encoded, decision: "maybe" })._tag === "Left"
    )
    assert.isTrue(
      Schema.decodeUnknownEither(Settlement.Decision)({ ...encoded, state: { ...encoded.state, flow: "sideways" } })
        ._tag === "Left"
    )
  })

  it.prop("every settled decision survives its JSON form (provenance aside)", [
    fc.array(
      fc.constantFrom<Settlement.StagedResponse>(
        { effects: [{ type: "allow" }], operationChanged: false },
        { effects: [{ type: "return", value: null }], operationChanged: false },
        { effects: [{ type: "flow", operation: "stop", reason: "done" }], operationChanged: false },
        { effects: [{ type: "flow", operation: "continue", instruction: "go" }], operationChanged: true },
        { effects: [{ type: "deny", reason: "no" }], operationChanged: false }
      ),
      { maxLength: 5 }
    ),
    fc.boolean()
  ], ([responses, interrupted]) => {
    const decision = Settlement.settle(
      responses.reduce((s, r, i) => Settlement.accept(s, r, provenance(i)), Settlement.initial()),
      { interrupted }
    )
    const json = Schema.encodeSync(Settlement.Decision)(decision)
    const back = Schema.decodeUnknownSync(Settlement.Decision)(json)
    assert.deepStrictEqual(back.permission, decision.permission)
    assert.deepStrictEqual(back.candidate?.value, decision.candidate?.value)
    assert.deepStrictEqual(back.effects.map((a) => a.effect), decision.effects.map((a) => a.effect))
    assert.deepStrictEqual(Schema.encodeSync(Settlement.Decision)(back), json)
  })
})
