/**
 * What the command declarations (`src/command/*`) share: the effect a parsed command line
 * runs, lazy loading of a command's implementation, and the exit codes and options several
 * commands document alike.
 *
 * @internal
 */
import type * as Io from "@effect-ahp/tools/Io"
import type { FileSystem, Path } from "@effect/platform"
import { Effect } from "effect"
import * as CommandLine from "../CommandLine.js"

/**
 * What a parsed command line runs: sets the exit code, never fails.
 *
 * @internal
 */
export type Run = Effect.Effect<void, never, Io.ExitCode | FileSystem.FileSystem | Path.Path>

/**
 * A command of the `ahp` program.
 *
 * @internal
 */
export type Command = CommandLine.Command<Run>

/**
 * The `ahp` program as its help presents it.
 *
 * @internal
 */
export type Program = CommandLine.Program<Run>

/**
 * Runs a command's implementation, imported only when the command runs (so that `ahp
 * validate` loads neither the harness nor the transports, and `ahp serve` not the harness).
 *
 * @internal
 */
export const load = <M>(module: () => Promise<M>, run: (module: M) => Run): Run =>
  Effect.flatMap(Effect.promise(module), run)

/**
 * Exit code 130.
 *
 * @internal
 */
export const interrupted = [130, "interrupted (Ctrl-C or SIGTERM)"] as const

/**
 * What exit code 2 means for a command that reads input files.
 *
 * @internal
 */
export const unusable =
  "a usage error, or an input that cannot be read (missing, not a regular file, over 16 MiB, not UTF-8)"

/**
 * The decision audit's options, shared by the commands that settle calls.
 *
 * @internal
 */
export const auditOptions = {
  audit: CommandLine.optionalText(
    "audit",
    "FILE",
    "append one decision audit record per settled call to FILE (JSON Lines; see the README)"
  ),
  auditContent: CommandLine.flag("audit-content", "include each event in its audit record (to replay the calls)")
}
