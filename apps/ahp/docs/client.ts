import { Client } from "@effect-ahp/harness"
import { NodeTransports } from "@effect-ahp/node"

// For hosts without Effect: a Promise facade over the same service.
export const decide = async (registration: unknown, command: string): Promise<string> => {
  const client = await Client.make(registration, NodeTransports.layerNode())
  try {
    const result = await client.dispatch("tool.before", {
      tool: { name: "bash", input: { command }, origin: "native" },
      call: { id: "call-1" },
      path: "main"
    }, { signal: AbortSignal.timeout(30_000) })
    return result.decision.permission
  } finally {
    await client.close()
  }
}
