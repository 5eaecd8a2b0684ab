/**
 * The answer when a hook call's policy cannot be evaluated: a denial when the event can
 * be blocked and the call is fail-closed, else "no opinion"; either way the problem is shown
 * to the user. The denial carries the generic reason of a fail-closed denial: the details
 * go to the user, not to the agent.
 *
 * @since 0.1.0
 */
import { Settlement } from "@effect-ahp/harness"
import { Host, type HostEvents } from "@effect-ahp/hosts"
import * as Terminal from "./Terminal.js"

/**
 * The answer for a problem at an event (unknown when the payload could not be read).
 *
 * @since 0.1.0
 * @category constructors
 */
export const answer = (
  host: Host.Host,
  event: HostEvents.HostEvent | undefined,
  problem: string,
  failClosed: boolean
): Host.Answer => {
  if (event === undefined || !failClosed || !event.blocking) return host.noOpinion(problem)
  const rendered = host.render(event, {
    ...Host.denyVerdict(Settlement.syntheticDenialReason),
    messages: [`ahp: ${problem} (denied: the policy for ${event.name} fails closed)`]
  })
  return { ...rendered, stderr: `ahp: ${Terminal.line(problem)}\n` }
}
