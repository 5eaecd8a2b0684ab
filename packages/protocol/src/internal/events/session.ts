/**
 * Session events: `session.start` and `session.end`.
 *
 * `session.start` carries the harness's discovery manifest (`Discovery.ts` needs only the
 * event type names, from `EventType.ts`, so there is no cycle back to `Event.ts`).
 *
 * @internal
 */
import * as Schema from "effect/Schema"
import { closed, MemberName, NonEmpty, NonNegativeInt, Session } from "../../Common.js"
import * as Content from "../../Content.js"
import * as Discovery from "../../Discovery.js"
import { ClosedIdentity, crossField, envelope, forbidden, optional, struct } from "./fields.js"

const manifestSample: Discovery.Manifest = {
  events: [{ event: "session.start", modes: ["observe"] }],
  gaps: [],
  transports: ["stdio"],
  authentication: [],
  toolPaths: ["native"],
  contentCategories: [],
  limits: {},
  managedPolicy: { scopes: ["user"], disableable: true },
  correlationIdentityFields: ["id", "session.id"]
}

const Manifest = Discovery.Manifest.annotations({
  identifier: "Manifest",
  arbitrary: () => (fc) => fc.constant(manifestSample)
})

/** @internal */
export const SessionStart = crossField(
  Schema.Struct({
    ...envelope,
    type: Schema.Literal("session.start"),
    session: Session,
    trigger: Schema.Literal("startup", "resume", "clear", "compact", "fork"),
    resumedFrom: optional(ClosedIdentity),
    permissionMode: NonEmpty,
    harness: Schema.Struct({ name: NonEmpty, version: NonEmpty }).annotations({ ...closed }),
    manifest: Manifest,
    items: Content.Messages,
    tool: forbidden("must be absent: session events carry no tool"),
    outcome: forbidden("must be absent: outcome belongs to session.end")
  }),
  (event) =>
    (event.trigger === "clear" || event.trigger === "fork") && event.resumedFrom === undefined
      ? [{ path: ["resumedFrom"], message: `is required when trigger is ${event.trigger}` }]
      : [],
  (event) =>
    (event.trigger === "clear" || event.trigger === "fork") && event.resumedFrom === undefined
      ? { ...event, resumedFrom: { id: `${event.session.id}-origin` } }
      : event
).annotations({ identifier: "SessionStart" })

/** @internal */
export const SessionEnd = struct({
  ...envelope,
  type: Schema.Literal("session.end"),
  session: Session,
  outcome: Schema.Literal("completed", "cancelled", "error", "unknown"),
  reason: NonEmpty,
  counters: optional(Schema.Record({ key: MemberName, value: NonNegativeInt })),
  tool: forbidden("must be absent: session events carry no tool")
}).annotations({ identifier: "SessionEnd" })
