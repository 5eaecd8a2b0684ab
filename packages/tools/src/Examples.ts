/**
 * The names of the example backends (`./examples/*`), apart from the examples themselves:
 * the command line lists and checks them without loading any.
 *
 * @since 0.1.0
 */

/**
 * The example backends `ahp serve` knows.
 *
 * @since 0.1.0
 * @category constants
 */
export const exampleNames = ["shell-guard", "secret-redactor", "prompt-annotator", "audit", "slow"] as const

/**
 * An example backend's name.
 *
 * @since 0.1.0
 * @category models
 */
export type ExampleName = typeof exampleNames[number]
