import type { Server } from "node:http"

/** A test HTTP server running in this process. */
export interface InProcessServer {
  readonly port: number
  /** Stops its log, drops the connections still open and resolves once the server is closed. */
  readonly close: () => Promise<void>
}

/** Whether the module at `url` (its `import.meta.url`), a file named `name`, was run as the script itself (not bundled into another). */
export declare const isScript: (url: string, name: string) => boolean

/** A server started with `listen` in this process, once it listens. */
export declare const inProcess: (server: Server, stopLog: () => void) => Promise<InProcessServer>
