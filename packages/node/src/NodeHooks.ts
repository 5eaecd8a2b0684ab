/**
 * The `Hooks` service on Node driven by `Config` alone, in the style of
 * `PgClient.layerConfig`: the registration from a file or as JSON text, the harness
 * options and the credential references (through `Config.redacted`), with the Node
 * transports, uploads and file sources (`NodeTransports.layerNode`). A `ConfigProvider`
 * (`ConfigProvider.fromMap` in tests) drives all of it.
 *
 * @since 0.1.0
 */
import type * as Attachment from "@effect-ahp/harness/Attachment"
import * as Hooks from "@effect-ahp/harness/Hooks"
import * as Registry from "@effect-ahp/harness/Registry"
import type * as Uploads from "@effect-ahp/harness/Uploads"
import * as Config from "effect/Config"
import type * as ConfigError from "effect/ConfigError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type * as Redacted from "effect/Redacted"
import type * as Scope from "effect/Scope"
import * as fs from "node:fs/promises"
import * as NodeTransports from "./NodeTransports.js"
import * as StdioTransport from "./StdioTransport.js"

/**
 * Where the registration document comes from: a file (relative stdio commands and working
 * directories then resolve against its directory), or JSON text.
 *
 * @since 0.1.0
 * @category models
 */
export type RegistrationSource = { readonly file: string } | { readonly text: string }

/**
 * The configuration of `layerConfig`.
 *
 * @since 0.1.0
 * @category models
 */
export interface ConfigOptions extends Hooks.Options {
  /** The registration document. */
  readonly registration: RegistrationSource
  /** Values for `tokenRef` / `clientSecretRef` references (`Config.redacted`), by reference. */
  readonly credentialRefs?: Readonly<Record<string, Redacted.Redacted<string>>> | undefined
}

/**
 * The registration from the file `AHP_REGISTRATION_FILE` names, or else the JSON text of
 * `AHP_REGISTRATION`.
 *
 * @since 0.1.0
 * @category config
 */
export const registrationConfig: Config.Config<RegistrationSource> = Config.map(
  Config.string("AHP_REGISTRATION_FILE"),
  (file): RegistrationSource => ({ file })
).pipe(Config.orElse(() => Config.map(Config.string("AHP_REGISTRATION"), (text): RegistrationSource => ({ text }))))

/**
 * The default configuration: the registration from `registrationConfig`, every other
 * option at its default, no credential references.
 *
 * @since 0.1.0
 * @category config
 */
export const defaultConfig: Config.Config.Wrap<ConfigOptions> = { registration: registrationConfig }

/** The text of a registration file; a file that cannot be read is a `ConfigurationError`. */
const readRegistration = (file: string): Effect.Effect<string, Registry.ConfigurationError> =>
  Effect.tryPromise({
    try: () => fs.readFile(file, "utf8"),
    catch: (error) =>
      new Registry.ConfigurationError({
        issues: [{
          code: "invalid-document",
          path: "",
          message: `cannot read the registration file ${file}${
            typeof error === "object" && error !== null && "code" in error ? ` (${String(error.code)})` : ""
          }`
        }]
      })
  })

/**
 * The `Hooks` service with the Node platform, every option read through its `Config`
 * when the layer is built. `options` are what configuration does not carry: the
 * transports' own options and the backends the host serves in process.
 *
 * @example
 * ```ts
 * import { NodeHooks } from "@effect-ahp/node"
 * import { Config } from "effect"
 *
 * const HooksLive = NodeHooks.layerConfig({
 *   registration: Config.map(Config.string("REGISTRATION_FILE"), (file) => ({ file })),
 *   source: Config.string("AHP_SOURCE"),
 *   credentialRefs: { "vault/policy": Config.redacted("POLICY_TOKEN") }
 * })
 * ```
 *
 * @since 0.1.0
 * @category layers
 */
export const layerConfig = <E = never, R = never>(
  config: Config.Config.Wrap<ConfigOptions> = defaultConfig,
  options: Omit<Parameters<typeof NodeTransports.layerNode>[0] & {}, "credentialRefs"> & {
    readonly backends?: Readonly<Record<string, Hooks.Served<E, R>>> | undefined
  } = {}
): Layer.Layer<
  Hooks.Hooks | Uploads.Uploads | Attachment.Files,
  Registry.ConfigurationError | ConfigError.ConfigError | E,
  Exclude<R, Scope.Scope>
> =>
  Layer.unwrapEffect(Effect.gen(function*() {
    const { credentialRefs, registration, ...hooks } = yield* Config.unwrap(config)
    const text = "file" in registration ? yield* readRegistration(registration.file) : registration.text
    const directory = "file" in registration ? StdioTransport.directoryOf(registration.file) : options.stdio?.directory
    const { backends, ...transports } = options
    return Hooks.layerJson(text, { ...hooks, backends }).pipe(
      Layer.provideMerge(
        NodeTransports.layerNode({ ...transports, stdio: { ...transports.stdio, directory }, credentialRefs })
      )
    )
  }))
