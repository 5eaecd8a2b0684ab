/**
 * Whether a request's capabilities grant an effect. The server checks every effect a
 * handler returns with `problem` and refuses to send a response containing one that is not
 * granted; handlers can use `isGranted` to choose between effects up front (for example,
 * `ask` when granted, otherwise `deny`).
 *
 * @since 0.1.0
 */
import type { Capabilities, HookEffect } from "@effect-ahp/protocol"
import { Json } from "@effect-ahp/protocol"

/**
 * Why the capabilities do not grant an effect, or `undefined` when they do. The text names
 * only the effect kind, target, operation or delivery time — never a value.
 *
 * - its kind must be advertised in `effects`;
 * - a `modify` needs `modify.<target>.<operation>` to be `true`;
 * - a `flow` needs its operation in `flow.operations`, and `continue` also needs a positive
 *   `remainingContinuations`;
 * - an `inject` needs its `deliverAt` in `inject.context.deliverAt`.
 *
 * @since 0.1.0
 * @category validation
 */
export const problem = (
  capabilities: Capabilities.Capabilities,
  effect: HookEffect.HookEffect
): string | undefined => {
  if (!(capabilities.effects as ReadonlyArray<string>).includes(effect.type)) {
    return `${effect.type} is not granted by this request`
  }
  switch (effect.type) {
    case "modify": {
      const operations = capabilities.modify?.[effect.target]
      if (operations === undefined) return `modify(${effect.target}) is not granted by this request`
      return operations[effect.operation]
        ? undefined
        : `modify(${effect.target}) ${effect.operation} is not granted by this request`
    }
    case "flow": {
      const flow = capabilities.flow
      if (flow === undefined || !flow.operations.includes(effect.operation)) {
        return `flow ${effect.operation} is not granted by this request`
      }
      return effect.operation === "continue" && Json.toNumber(flow.remainingContinuations ?? 0) < 1
        ? "flow continue is not granted: the continuation allowance is exhausted"
        : undefined
    }
    case "inject":
      return capabilities.inject?.context.deliverAt.includes(effect.deliverAt)
        ? undefined
        : `inject at ${effect.deliverAt} is not granted by this request`
    default:
      return undefined
  }
}

/**
 * Whether the capabilities grant an effect.
 *
 * @since 0.1.0
 * @category validation
 */
export const isGranted = (capabilities: Capabilities.Capabilities, effect: HookEffect.HookEffect): boolean =>
  problem(capabilities, effect) === undefined
