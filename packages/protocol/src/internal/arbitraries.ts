/**
 * Random valid values for schemas whose rules random generation would almost never hit
 * (blocks present exactly when their effect is listed, capabilities within an event's
 * bounds, selectors naming real events). Used as `arbitrary` annotations so property tests
 * need no rejection sampling.
 *
 * @internal
 */
import type * as FastCheck from "effect/FastCheck"
import type { DeliverAt, Kind, ModifyTarget } from "../HookEffect.js"

type FC = typeof FastCheck

const subset = <A>(fc: FC, items: ReadonlyArray<A>, minLength = 0) =>
  fc.subarray(items as Array<A>, { minLength: Math.min(minLength, items.length) })

/** Capabilities within the given bounds (the flow operations are `Capabilities.FlowOperation`s). @internal */
export const capabilities = <FlowOperation extends string>(
  fc: FC,
  bounds: {
    readonly effects: ReadonlyArray<Kind>
    readonly modifyTargets: ReadonlyArray<ModifyTarget>
    readonly flowOperations: ReadonlyArray<FlowOperation>
  }
) => {
  const allowed = bounds.effects.filter((e) =>
    (e !== "modify" || bounds.modifyTargets.length > 0) && (e !== "flow" || bounds.flowOperations.length > 0)
  )
  return subset(fc, allowed).chain((effects) => {
    const operations = fc.oneof(
      fc.constant({ replace: true, merge: true }),
      fc.constant({ replace: true, merge: false }),
      fc.constant({ replace: false, merge: true })
    )
    const modify = effects.includes("modify")
      ? subset(fc, bounds.modifyTargets, 1).chain((targets) =>
        fc.tuple(...targets.map(() => operations)).map((ops) => Object.fromEntries(targets.map((t, i) => [t, ops[i]])))
      )
      : fc.constant(undefined)
    const flow = effects.includes("flow")
      ? subset(fc, bounds.flowOperations, 1).chain((ops) =>
        (ops as ReadonlyArray<string>).includes("continue")
          ? fc.record({ remainingContinuations: fc.nat(5), continuationCount: fc.nat(5) }).map((allowance) => ({
            operations: ops,
            ...allowance
          }))
          : fc.constant({ operations: ops })
      )
      : fc.constant(undefined)
    const inject = effects.includes("inject")
      ? subset(fc, ["now", "next_turn"] as ReadonlyArray<DeliverAt>, 1).map((deliverAt) => ({
        context: { append: true as const, deliverAt }
      }))
      : fc.constant(undefined)
    return fc.tuple(modify, flow, inject).map(([m, f, i]) => ({
      effects,
      ...(m !== undefined ? { modify: m } : {}),
      ...(f !== undefined ? { flow: f } : {}),
      ...(i !== undefined ? { inject: i } : {})
    }))
  })
}

/** Unique, non-empty selectors drawn from event names and wildcards. @internal */
export const selectors = (fc: FC, names: ReadonlyArray<string>) =>
  fc.uniqueArray(fc.constantFrom(...names, "*", "tool.*", "model.*", "turn.*"), { minLength: 1, maxLength: 3 })

/** Reverse-DNS names. @internal */
export const reverseDns = (fc: FC) =>
  fc.tuple(fc.constantFrom("com", "org", "dev"), fc.stringMatching(/^[a-z][a-z0-9-]{0,8}$/)).map(([a, b]) =>
    `${a}.${b}`
  )
