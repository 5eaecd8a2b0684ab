/**
 * The command line's bundle (one CommonJS file, compiled through the code cache by the
 * launcher, `bin.ts`): the command line, and the command hook's cold path, which needs the
 * same libraries (Effect, the harness, the hosts' mapping, the transports).
 *
 * @internal
 */
import type * as Cold from "../hook/Cold.js"

export { main } from "../Main.js"

/**
 * The command hook's cold path, initialised on the first call.
 *
 * @internal
 */
export const cold = (): Promise<typeof Cold> => import("../hook/Cold.js")
