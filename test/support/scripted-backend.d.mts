import type { InProcessServer } from "./inProcessHttp.mjs"

/**
 * Starts the scripted backend's HTTP mode in this process: `args` as on its command line
 * after `http <port-file>` (the behaviour, then options such as `--log FILE`). Rejects on a
 * usage error.
 */
export declare const startHttp: (args: ReadonlyArray<string>) => Promise<InProcessServer>
