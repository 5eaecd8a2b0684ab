// What the test servers' scripts (scripted-backend.mjs, e2e/fixtures/rawBackend.mjs) share
// to run either as a script of their own or inside a test's process. Plain Node ESM.
import { basename, resolve } from "node:path"
import { fileURLToPath } from "node:url"

/**
 * Whether the module at `url` (its `import.meta.url`), a file named `name`, was run as the
 * script itself (`node <file>`). The name matters once the module is bundled into another
 * file (the bundled soak and benchmarks): its `import.meta.url` is then the bundle's, which
 * is the script that runs, and the module is not.
 */
export const isScript = (url, name) => {
  const file = fileURLToPath(url)
  return basename(file) === name && process.argv[1] !== undefined && resolve(process.argv[1]) === file
}

/**
 * A server started with `listen` in this process: resolves once it listens, with its port and
 * `close`, which calls `stopLog` (what happens after a test closed the server, its dropped
 * connections, is not logged: the log's folder may be gone), drops the connections still open
 * and resolves once the server is closed. Rejects when it cannot listen.
 */
export const inProcess = (server, stopLog) =>
  new Promise((resolvePort, reject) => {
    const listening = () =>
      resolvePort({
        port: server.address().port,
        close: () =>
          new Promise((closed) => {
            stopLog()
            server.closeAllConnections()
            server.close(() => closed())
          })
      })
    if (server.listening) listening()
    else server.once("listening", listening)
    server.once("error", reject)
  })
