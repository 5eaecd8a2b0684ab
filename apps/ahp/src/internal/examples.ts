/**
 * The names of the example backends, apart from the examples themselves: the command line
 * lists and checks them without loading any.
 *
 * @internal
 */

/**
 * The example backends `ahp serve` knows.
 *
 * @internal
 */
export const exampleNames = ["shell-guard", "secret-redactor", "prompt-annotator", "audit", "slow"] as const

/**
 * An example backend's name.
 *
 * @internal
 */
export type ExampleName = typeof exampleNames[number]
