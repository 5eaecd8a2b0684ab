/**
 * Whether a request's capabilities grant an effect. The server checks every effect a
 * handler returns with `problem` and refuses to send a response containing one that is not
 * granted; handlers can use `isGranted` to choose between effects up front (for example,
 * `ask` when granted, otherwise `deny`). Both are the protocol's one capability check,
 * `Capabilities.grantProblem`, which the harness applies to every response it stages.
 *
 * @since 0.1.0
 */
import { Capabilities, type HookEffect } from "@effect-ahp/protocol"

/**
 * Why the capabilities do not grant an effect, or `undefined` when they do. The text names
 * only the effect kind, target, operation or delivery time — never a value (see
 * `Capabilities.grantProblem` for the rules).
 *
 * @since 0.1.0
 * @category validation
 */
export const problem = (
  capabilities: Capabilities.Capabilities,
  effect: HookEffect.HookEffect
): string | undefined => Capabilities.grantProblem(capabilities, effect)?.message

/**
 * Whether the capabilities grant an effect.
 *
 * @since 0.1.0
 * @category validation
 */
export const isGranted: (capabilities: Capabilities.Capabilities, effect: HookEffect.HookEffect) => boolean =
  Capabilities.isGranted
