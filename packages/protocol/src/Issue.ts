/**
 * Validation problems as data: a JSON Pointer (RFC 6901) to the offending value and a
 * message. Every decoder in this package (see `Decoder`) reports all problems, never only
 * the first.
 *
 * @since 0.1.0
 */
import * as internal from "./internal/issue.js"

/**
 * One problem found in a JSON value: `path` is a JSON Pointer to the offending value (`""`
 * is the whole document); `code` names the rule, for a problem a coded rule found.
 *
 * @since 0.1.0
 * @category models
 */
export type Issue = internal.Issue

/**
 * The annotation naming the code of a rule: an issue raised on a schema carrying it has
 * that `code`, and replaces the structural issues at, above and below its path (the rule
 * says what is wrong there). Its value is the code, or `{ code, message }` to also word
 * the issue of a value of the wrong type.
 *
 * @since 0.1.0
 * @category annotations
 */
export const CodeAnnotationId: typeof internal.CodeAnnotationId = internal.CodeAnnotationId

/**
 * A parse issue raised by a coded rule at `path` (relative to the value the rule checks),
 * for a Schema filter to return; the `Issue` it becomes carries `code`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const coded = internal.coded

/**
 * Makes an issue.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make: (path: ReadonlyArray<PropertyKey>, message: string) => Issue = internal.make

/**
 * Renders a path as a JSON Pointer.
 *
 * @since 0.1.0
 * @category formatting
 */
export const pointer: (path: ReadonlyArray<PropertyKey>) => string = internal.pointer

/**
 * Prefixes every issue's path with a parent path.
 *
 * @since 0.1.0
 * @category combinators
 */
export const within: (issues: ReadonlyArray<Issue>, parent: ReadonlyArray<PropertyKey>) => Array<Issue> =
  internal.within

/**
 * Converts a Schema `ParseError` into issues with JSON Pointer paths.
 *
 * @since 0.1.0
 * @category conversions
 */
export const fromParseError = internal.fromParseError

/**
 * Describes a value briefly for a message without echoing long or secret text.
 *
 * @since 0.1.0
 * @category formatting
 */
export const describe: (actual: unknown) => string = internal.describe
