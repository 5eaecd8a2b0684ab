/**
 * Text from backends, payloads and files shown to people, made safe for a terminal. A
 * backend's reason could otherwise clear the screen (`ESC[2J`), plant a link (OSC 8), start
 * a control sequence with the single C1 code U+009B, or reorder what is shown with bidi
 * overrides. Such code points are shown as `\u{…}` escapes instead: C0 controls (a newline
 * stays where lines are the format), DEL and the C1 controls, the bidi embeddings,
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069), and the line and paragraph
 * separators. JSON text keeps its form: these code points are written as `\uXXXX` escapes,
 * which decode to the same value.
 *
 * @internal
 */

/** DEL, the C1 controls, the line and paragraph separators and the bidi controls: unsafe everywhere. */
const beyondC0 = "\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069"
const unsafeInLine = new RegExp(`[\\u0000-\\u001f${beyondC0}]`, "g")
const unsafeInLines = new RegExp(`[\\u0000-\\u0009\\u000b-\\u001f${beyondC0}]`, "g")
const unsafeInJson = new RegExp(`[${beyondC0}]`, "g")

const visible = (c: string): string => `\\u{${c.charCodeAt(0).toString(16)}}`
const jsonEscape = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`

/** One line of untrusted text with every terminal control shown as an escape. @internal */
export const line = (text: string): string => text.replace(unsafeInLine, visible)

/** Untrusted text of several lines: like `line`, newlines kept. @internal */
export const lines = (text: string): string => text.replace(unsafeInLines, visible)

/** JSON text with the C1 controls, DEL, bidi controls and separators escaped (`\uXXXX`). @internal */
export const json = (text: string): string => text.replace(unsafeInJson, jsonEscape)
