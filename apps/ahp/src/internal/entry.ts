/**
 * The command line's bundle (one CommonJS file, compiled through the code cache by the
 * launcher, `bin.ts`): the command line, and the command hook's cold path, which needs the
 * same libraries (Effect, the harness, the hosts' mapping, the transports).
 *
 * @internal
 */
export { main } from "../Main.js"
export { cold } from "./cold.js"
