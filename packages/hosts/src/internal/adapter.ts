/**
 * Builds a host adapter from what differs between hosts: the capabilities offered per host
 * event and the renderers of the host's output.
 *
 * @internal
 */
import type { Capabilities, Json } from "@effect-ahp/protocol"
import * as Host from "../Host.js"
import * as HostEvents from "../HostEvents.js"
import { map } from "./mapping.js"
import * as render from "./render.js"

/** What makes one host's adapter. @internal */
export interface Spec {
  readonly name: HostEvents.HostName
  readonly title: string
  /** Prefix of its event ids. */
  readonly prefix: string
  readonly maxContinuations: number
  /** What the host enforces, per host event (absent: observed only). */
  readonly capabilities: Readonly<Record<string, Capabilities.Capabilities>>
  readonly renderers: Readonly<Record<string, render.Renderer>>
}

/** The adapter of a spec. @internal */
export const make = (spec: Spec): Host.Host => {
  const capabilities = (event: HostEvents.HostEvent): Capabilities.Capabilities | undefined =>
    Object.prototype.hasOwnProperty.call(spec.capabilities, event.name) ? spec.capabilities[event.name] : undefined
  const { grant, manifest } = Host.offer(
    HostEvents.mapped(spec.name).map((event) => [event, capabilities(event)] as const),
    spec.maxContinuations
  )
  const source = `urn:effect-ahp:${spec.name}`
  const dialect = {
    host: spec.name,
    prefix: spec.prefix,
    source,
    harness: spec.title,
    manifest: manifest as unknown as Json.JsonObject,
    events: HostEvents.of(spec.name),
    capabilities
  }
  const shape = { title: spec.title, empty: HostEvents.silence[spec.name] }
  return {
    name: spec.name,
    title: spec.title,
    source,
    grant,
    manifest,
    capabilities,
    map: (payload, options) => map(dialect, payload, options),
    render: (event, verdict, payload) => render.render(shape, spec.renderers, event, verdict, payload),
    noOpinion: (message) => render.noOpinion(shape.empty, message)
  }
}
