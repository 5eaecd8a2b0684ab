/**
 * Test HTTP servers that may stall or flood (the hostile raw backend of
 * `test/e2e/HostileJson.test.ts`) run in a worker thread of the test's process instead of a
 * process of their own: a real server on 127.0.0.1 with its own thread and event loop, so it
 * stalls nothing of the test, at a fraction of a process's start-up cost. The worker is
 * terminated when the scope closes, which closes its connections, as killing its process
 * would. The scripted backend's HTTP mode, whose behaviours never block, runs in the test's
 * own thread instead (`scriptedHttpServer` in `e2e.ts`): a worker's start-up costs about
 * 90 ms of CPU.
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
