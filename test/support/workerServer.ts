/**
 * Test HTTP servers (plain Node ESM scripts such as `scripted-backend.mjs http …`) run in a
 * worker thread of the test's process instead of a process of their own: a real server on
 * 127.0.0.1 with its own thread and event loop, so a server that stalls or floods stalls
 * nothing of the test, at a fraction of a process's start-up cost. The worker is terminated
 * when the scope closes, which closes its connections, as killing its process would.
 */
import { Effect } from "effect"
import type * as Scope from "effect/Scope"
import { Worker } from "node:worker_threads"

/** A script running in a worker thread; `exited` once it has ended. */
export interface Running {
  readonly worker: Worker
  readonly exited: () => boolean
}

/** Runs `script` with `args` (its `process.argv` after the script) for the lifetime of the scope. */
export const start = (script: string, args: ReadonlyArray<string>): Effect.Effect<Running, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.sync(() => {
      const worker = new Worker(script, { argv: [...args], stdout: true })
      let exited = false
      worker.once("exit", () => (exited = true))
      // a script's failure is seen by the test as a server that never starts or answers
      worker.on("error", () => {})
      return { worker, exited: () => exited }
    }),
    ({ worker }) => Effect.promise(() => worker.terminate())
  )
