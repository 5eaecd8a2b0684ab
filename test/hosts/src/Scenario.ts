/**
 * One scenario: a workspace with the policy installed for a host, a fake model scripted
 * with the steps, the host run once against it. The caller asserts on what happened (files
 * on disk, the model's requests) and removes the workspace with `dispose`.
 */
import * as FakeModel from "./FakeModel.js"
import type * as Hosts from "./Hosts.js"
import * as Workspace from "./Workspace.js"

/** A scenario's setup. */
export interface Setup {
  readonly host: Hosts.Host
  readonly bundle: string
  /** The scripted steps; a function receives the workspace (for paths in commands). */
  readonly steps: (workspace: Workspace.Workspace) => ReadonlyArray<FakeModel.Step>
  /** The registration (default: the README's example). */
  readonly registration?: ((workspace: Workspace.Workspace) => Workspace.Registration) | undefined
  /** Whether the user trusts the project registration with `ahp trust` (default: yes). */
  readonly trust?: boolean | undefined
  /** Extra `ahp hook install` arguments. */
  readonly install?: ReadonlyArray<string> | undefined
  /** Changes to the workspace after the install (settings edits, files the tools read). */
  readonly prepare?: ((workspace: Workspace.Workspace) => void | Promise<void>) | undefined
  /** The run's options (a function receives the workspace). */
  readonly run?: Hosts.RunOptions | ((workspace: Workspace.Workspace) => Hosts.RunOptions) | undefined
  readonly side?: FakeModel.Options["side"]
}

/** A scenario that ran. */
export interface Result {
  readonly workspace: Workspace.Workspace
  readonly model: FakeModel.FakeModel
  readonly run: Hosts.Run
  /** The id of the n-th tool call the model made (1-based, counting the agent's answers). */
  readonly call: (n: number) => string
  readonly dispose: () => Promise<void>
}

/** Sets up, runs the host once, and returns what happened. */
export const run = async (setup: Setup): Promise<Result> => {
  const workspace = Workspace.make(setup.host.name)
  const model = await FakeModel.start(setup.host.vendor, {
    steps: setup.steps(workspace),
    side: setup.side
  })
  try {
    Workspace.writeRegistration(
      workspace,
      (setup.registration ?? ((w) => Workspace.example(setup.bundle, w)))(workspace)
    )
    Workspace.install(setup.bundle, workspace, setup.host.name, setup.install)
    if (setup.trust !== false) Workspace.trust(setup.bundle, workspace)
    await setup.prepare?.(workspace)
    const run = await setup.host.run(
      workspace,
      model,
      typeof setup.run === "function" ? setup.run(workspace) : setup.run
    )
    return {
      workspace,
      model,
      run,
      call: (n) => {
        const exchange = model.exchanges.filter((e) => e.callId !== undefined)[n - 1]
        if (exchange?.callId === undefined) throw new Error(`the model made no tool call number ${n}`)
        return exchange.callId
      },
      dispose: async () => {
        await model.close()
        workspace.remove()
      }
    }
  } catch (error) {
    await model.close()
    workspace.remove()
    throw error
  }
}

/** The result the model received for a call, or a failure naming what it did receive. */
export const resultOf = (result: Result, callId: string): FakeModel.ToolResult => {
  const found = result.model.resultOf(callId)
  if (found === undefined) {
    throw new Error(
      `no request carried the result of ${callId}; the host sent ${result.model.exchanges.length} requests` +
        ` and exited with ${result.run.exitCode} (${result.run.signal ?? "no signal"}); stderr: ${
          result.run.stderr.slice(-2000)
        }`
    )
  }
  return found.result
}
