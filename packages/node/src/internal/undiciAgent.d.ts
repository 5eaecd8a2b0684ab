/**
 * undici's `Agent` module on its own (`lib/dispatcher/agent.js`, the class as
 * `module.exports`): `HttpTransport.layerDispatcher` loads it instead of the package's index,
 * which also loads undici's fetch, WebSocket, cookie and mock modules and, through them,
 * Node's own copy of undici.
 */
declare module "undici/lib/dispatcher/agent.js" {
  import type { Agent } from "undici"
  const agent: typeof Agent
  export default agent
}
