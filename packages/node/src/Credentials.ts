/**
 * Resolving credential references (`tokenEnv`, `tokenRef`, `clientSecretRef`) to secret
 * values. Values are always `Redacted`; errors name the reference, never a value.
 *
 * @since 0.1.0
 */
import * as Config from "effect/Config"
import * as ConfigError from "effect/ConfigError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { hasProperty } from "effect/Predicate"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"

/**
 * A credential reference: an environment variable (`tokenEnv`) or a deployment secret
 * reference (`tokenRef`, `clientSecretRef`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const Reference = Schema.Struct({
  kind: Schema.Literal("env", "ref"),
  name: Schema.String
})

/**
 * @since 0.1.0
 * @category models
 */
export type Reference = typeof Reference.Type

/**
 * Human-readable name of a reference, safe for diagnostics.
 *
 * @since 0.1.0
 * @category utils
 */
export const describe = (reference: Reference): string =>
  reference.kind === "env" ? `environment variable ${reference.name}` : `secret reference ${reference.name}`

/**
 * The brand of a `CredentialError`.
 *
 * @since 0.1.0
 * @category type ids
 */
export const CredentialErrorTypeId: unique symbol = Symbol.for("@effect-ahp/node/CredentialError")

/**
 * @since 0.1.0
 * @category type ids
 */
export type CredentialErrorTypeId = typeof CredentialErrorTypeId

/**
 * A reference that could not be resolved to a non-empty value.
 *
 * @since 0.1.0
 * @category errors
 */
export class CredentialError extends Schema.TaggedError<CredentialError>("@effect-ahp/node/CredentialError")(
  "CredentialError",
  {
    reference: Reference,
    reason: Schema.Literal("missing", "empty", "unavailable")
  }
) {
  readonly [CredentialErrorTypeId]: CredentialErrorTypeId = CredentialErrorTypeId
  override get message(): string {
    return `${describe(this.reference)} is ${this.reason}`
  }
}

/**
 * Whether a value is a `CredentialError`.
 *
 * @since 0.1.0
 * @category refinements
 */
export const isCredentialError = (u: unknown): u is CredentialError => hasProperty(u, CredentialErrorTypeId)

/**
 * The credential resolver. `resolve` is called for every dispatch (and again after a 401),
 * so a resolver that reads a rotating source always hands out the current value.
 *
 * @since 0.1.0
 * @category tags
 */
export class CredentialResolver extends Context.Tag("@effect-ahp/node/CredentialResolver")<CredentialResolver, {
  readonly resolve: (reference: Reference) => Effect.Effect<Redacted.Redacted<string>, CredentialError>
}>() {}

/**
 * Builds a resolver from a lookup function; `undefined` becomes `missing`, an empty string
 * `empty`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (
  lookup: (reference: Reference) => Effect.Effect<string | Redacted.Redacted<string> | undefined, CredentialError>
): CredentialResolver["Type"] =>
  CredentialResolver.of({
    resolve: (reference) =>
      Effect.flatMap(lookup(reference), (found) => {
        if (found === undefined) return Effect.fail(new CredentialError({ reference, reason: "missing" }))
        const value = Redacted.isRedacted(found) ? found : Redacted.make(found)
        return Redacted.value(value) === ""
          ? Effect.fail(new CredentialError({ reference, reason: "empty" }))
          : Effect.succeed(value)
      })
  })

const own = <A>(record: Readonly<Record<string, A>>, key: string): A | undefined =>
  Object.prototype.hasOwnProperty.call(record, key) ? record[key] : undefined

/**
 * A resolver from a lookup function.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (
  lookup: (reference: Reference) => Effect.Effect<string | Redacted.Redacted<string> | undefined, CredentialError>
): Layer.Layer<CredentialResolver> => Layer.succeed(CredentialResolver, make(lookup))

/**
 * The default resolver, through `Config`: an `env` reference is `Config.redacted(name)`,
 * read at each resolution from the `ConfigProvider` in place when the layer is built (by
 * default the process environment; `ConfigProvider.fromMap` in tests); a `ref` reference
 * comes from `refs` (none by default, so every `ref` is missing), each a value or a
 * `Config` read at each resolution. A value the provider cannot read is `unavailable`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerEnv = (
  refs: Readonly<Record<string, string | Redacted.Redacted<string> | Config.Config<Redacted.Redacted<string>>>> = {}
): Layer.Layer<CredentialResolver> =>
  Layer.effect(
    CredentialResolver,
    Effect.configProviderWith((provider) =>
      Effect.succeed(make((reference) => {
        const found = reference.kind === "env" ? Config.redacted(reference.name) : own(refs, reference.name)
        if (!Config.isConfig(found)) return Effect.succeed(found)
        return provider.load(found).pipe(
          Effect.catchAll((error) =>
            ConfigError.isMissingDataOnly(error)
              ? Effect.succeed(undefined)
              : Effect.fail(new CredentialError({ reference, reason: "unavailable" }))
          )
        )
      }))
    )
  )

/**
 * A fixed resolver for tests: both kinds of reference are looked up by name in `values`.
 *
 * @since 0.1.0
 * @category layers
 */
export const layerTest = (
  values: Readonly<Record<string, string | Redacted.Redacted<string>>>
): Layer.Layer<CredentialResolver> => layer((reference) => Effect.succeed(own(values, reference.name)))
