/**
 * Terminal text styles, and when to use them: colour only on a terminal, never when
 * `NO_COLOR` is set to a non-empty value (https://no-color.org).
 *
 * @since 0.1.0
 */

/**
 * Text styles; identity functions when colour is off.
 *
 * @since 0.1.0
 * @category formatting
 */
export interface Style {
  readonly bold: (text: string) => string
  readonly dim: (text: string) => string
  readonly red: (text: string) => string
  readonly green: (text: string) => string
  readonly yellow: (text: string) => string
  readonly cyan: (text: string) => string
}

const sgr = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`

const plain = (text: string) => text

/**
 * ANSI styles, or plain text.
 *
 * @since 0.1.0
 * @category formatting
 */
export const style = (colour: boolean): Style =>
  colour
    ? {
      bold: sgr(1, 22),
      dim: sgr(2, 22),
      red: sgr(31, 39),
      green: sgr(32, 39),
      yellow: sgr(33, 39),
      cyan: sgr(36, 39)
    }
    : { bold: plain, dim: plain, red: plain, green: plain, yellow: plain, cyan: plain }

/**
 * Whether output written to this stream may be coloured: it is a terminal and `NO_COLOR`
 * is unset or empty.
 *
 * @since 0.1.0
 * @category formatting
 */
export const colourFor = (stream: { readonly isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean =>
  stream.isTTY === true && (env.NO_COLOR === undefined || env.NO_COLOR === "")
