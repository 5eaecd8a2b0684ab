/** The scripted backend's HTTP mode running in this process. */
export interface HttpServer {
  readonly port: number
  /** Drops the connections still open and resolves once the server is closed. */
  readonly close: () => Promise<void>
}

/**
 * Starts the scripted backend's HTTP mode in this process: `args` as on its command line
 * after `http <port-file>` (the behaviour, then options such as `--log FILE`). Rejects on a
 * usage error.
 */
export declare const startHttp: (args: ReadonlyArray<string>) => Promise<HttpServer>
