/**
 * Every public error carries a `TypeId` brand (a registered symbol, so copies of a package
 * agree) and has an `is…` guard that accepts exactly the errors carrying that brand: not
 * another error, not a look-alike with the same `_tag`.
 */
import { Stdio } from "@effect-ahp/backend"
import { Hooks, Registry, RouteFailure, Transport } from "@effect-ahp/harness"
import { Host } from "@effect-ahp/hosts"
import { Credentials } from "@effect-ahp/node"
import { Json } from "@effect-ahp/protocol"
import { assert, describe, it } from "@effect/vitest"
import { Either, Schema } from "effect"

interface Case {
  readonly name: string
  readonly error: object
  readonly typeId: symbol
  readonly key: string
  readonly is: (u: unknown) => boolean
}

const routeFailure = new RouteFailure.RouteFailure({
  backend: "com.example.a",
  subscription: "0",
  mode: "intercept",
  phase: "transport",
  code: "timeout",
  detail: "no accepted response",
  syntheticDenial: false
})

const parseError = Either.flip(Json.parse("{")).pipe(Either.getOrThrow)
const encodeError = Either.flip(Json.encode(1n)).pipe(Either.getOrThrow)

const cases: ReadonlyArray<Case> = [
  {
    name: "StdioError",
    error: new Stdio.StdioError({ reason: "read" }),
    typeId: Stdio.StdioErrorTypeId,
    key: "@effect-ahp/backend/StdioError",
    is: Stdio.isStdioError
  },
  {
    name: "ConfigurationError",
    error: new Registry.ConfigurationError({ issues: [] }),
    typeId: Registry.ConfigurationErrorTypeId,
    key: "@effect-ahp/harness/ConfigurationError",
    is: Registry.isConfigurationError
  },
  {
    name: "RouteFailure",
    error: routeFailure,
    typeId: RouteFailure.TypeId,
    key: "@effect-ahp/harness/RouteFailure",
    is: RouteFailure.isRouteFailure
  },
  {
    name: "InvalidEvent",
    error: new Hooks.InvalidEvent({ type: "tool.before", issues: [] }),
    typeId: Hooks.InvalidEventTypeId,
    key: "@effect-ahp/harness/InvalidEvent",
    is: Hooks.isInvalidEvent
  },
  {
    name: "InvalidNarrowing",
    error: new Hooks.InvalidNarrowing({ issues: [] }),
    typeId: Hooks.InvalidNarrowingTypeId,
    key: "@effect-ahp/harness/InvalidNarrowing",
    is: Hooks.isInvalidNarrowing
  },
  {
    name: "TransportError",
    error: new Transport.TransportError({ reason: "io", detail: "broken" }),
    typeId: Transport.TransportErrorTypeId,
    key: "@effect-ahp/harness/TransportError",
    is: Transport.isTransportError
  },
  {
    name: "PayloadError",
    error: new Host.PayloadError({ reason: "not-an-object", issues: [] }),
    typeId: Host.PayloadErrorTypeId,
    key: "@effect-ahp/hosts/PayloadError",
    is: Host.isPayloadError
  },
  {
    name: "CredentialError",
    error: new Credentials.CredentialError({ reference: { kind: "env", name: "TOKEN" }, reason: "missing" }),
    typeId: Credentials.CredentialErrorTypeId,
    key: "@effect-ahp/node/CredentialError",
    is: Credentials.isCredentialError
  },
  {
    name: "JsonParseError",
    error: parseError,
    typeId: Json.JsonParseErrorTypeId,
    key: "@effect-ahp/protocol/JsonParseError",
    is: Json.isJsonParseError
  },
  {
    name: "JsonEncodeError",
    error: encodeError,
    typeId: Json.JsonEncodeErrorTypeId,
    key: "@effect-ahp/protocol/JsonEncodeError",
    is: Json.isJsonEncodeError
  }
]

describe("public errors: TypeId and guards", () => {
  for (const c of cases) {
    it(c.name, () => {
      assert.strictEqual(c.typeId, Symbol.for(c.key))
      assert.strictEqual((c.error as Record<symbol, unknown>)[c.typeId], c.typeId)
      assert.isTrue(c.is(c.error))
      const lookAlike = Object.fromEntries(Object.entries(c.error))
      assert.strictEqual(lookAlike._tag, (c.error as { _tag: string })._tag)
      assert.isFalse(c.is(lookAlike))
      for (const other of cases) {
        if (other !== c) assert.isFalse(c.is(other.error), `${c.name} guard accepted ${other.name}`)
      }
      for (const u of [undefined, null, 1, "x", {}, new Error("x")]) assert.isFalse(c.is(u))
    })
  }

  it("a decoded Schema error is branded too", () => {
    const decoded = Schema.decodeUnknownSync(Transport.TransportError)({
      _tag: "TransportError",
      reason: "io",
      detail: "x"
    })
    assert.isTrue(Transport.isTransportError(decoded))
    assert.isTrue(
      RouteFailure.isRouteFailure(
        Schema.decodeUnknownSync(RouteFailure.RouteFailure)(Schema.encodeSync(RouteFailure.RouteFailure)(routeFailure))
      )
    )
  })
})
