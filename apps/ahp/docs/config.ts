import { NodeHooks } from "@effect-ahp/node"
import { Config } from "effect"

// The whole host from configuration: the registration file AHP_REGISTRATION_FILE names
// (or the JSON text of AHP_REGISTRATION), the harness's options and the values of the
// secret references the registration names. Tests drive it with ConfigProvider.fromMap.
export const HooksLive = NodeHooks.layerConfig({
  registration: NodeHooks.registrationConfig,
  source: Config.string("AHP_SOURCE").pipe(Config.withDefault("urn:example:agent")),
  observationTimeoutMs: Config.integer("AHP_OBSERVATION_TIMEOUT_MS").pipe(Config.withDefault(5000)),
  credentialRefs: { "vault/policy": Config.redacted("POLICY_TOKEN") }
})
