/**
 * The bounds of what `ahp` reads, shared by the Effect-based inputs (`Io`) and the command
 * hook's entry, which loads no Effect.
 *
 * @internal
 */

/** The largest input file read, the hook's registration included: 16 MiB. @internal */
export const maxInputBytes = 16 * 1024 * 1024
