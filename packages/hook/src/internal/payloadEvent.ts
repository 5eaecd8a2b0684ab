/**
 * The event a hook payload names when the payload itself cannot be used: over the size
 * limit (only its head was read), nested beyond the parser's depth, not valid UTF-8, or not
 * JSON. The host writes `hook_event_name` among the first members of the payload, before
 * the tool's input, so the event is known even then, and a fail-closed policy for it can
 * deny instead of letting the call through with "no opinion".
 *
 * The text is scanned from its start (a byte order mark and whitespace skipped) as a JSON
 * object: each top-level member's key is read, and its value skipped token by token (strings
 * with their escapes, brackets counted, never recursing), so text inside a string or a
 * nested object never counts. As with `JSON.parse`, the last occurrence of a member wins;
 * the scan stops where the text ends or stops being JSON and keeps what it found so far.
 * Linear in the text.
 *
 * @internal
 */

const isSpace = (c: number): boolean => c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09

/** The index after the string starting at `i` (a quote), or -1 when it does not close. */
const stringEnd = (text: string, i: number): number => {
  for (let j = i + 1; j < text.length; j++) {
    const c = text.charCodeAt(j)
    if (c === 0x5c) j++
    else if (c === 0x22) return j + 1
  }
  return -1
}

/** The index after the value starting at `i`, or -1 when it does not end within the text. */
const valueEnd = (text: string, i: number): number => {
  let depth = 0
  let j = i
  while (j < text.length) {
    const c = text.charCodeAt(j)
    if (c === 0x22) {
      j = stringEnd(text, j)
      if (j === -1) return -1
      if (depth === 0) return j
      continue
    }
    if (c === 0x7b || c === 0x5b) depth++
    else if (c === 0x7d || c === 0x5d) {
      if (depth === 0) return j
      if (--depth === 0) return j + 1
    } else if (depth === 0 && (c === 0x2c || isSpace(c))) return j
    j++
  }
  return depth === 0 ? j : -1
}

const decodeString = (token: string): string | undefined => {
  try {
    return JSON.parse(token)
  } catch {
    return undefined
  }
}

/**
 * The string value of each of `keys` among the top-level members of the JSON object text
 * (the last occurrence of each found before the text ends or breaks).
 *
 * @internal
 */
export const topLevelStrings = (text: string, keys: ReadonlyArray<string>): Record<string, string> => {
  const found: Record<string, string> = {}
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  const skipSpace = () => {
    while (i < text.length && isSpace(text.charCodeAt(i))) i++
  }
  skipSpace()
  if (text.charCodeAt(i) !== 0x7b) return found
  i++
  while (true) {
    skipSpace()
    if (text.charCodeAt(i) !== 0x22) return found
    const keyEnd = stringEnd(text, i)
    if (keyEnd === -1) return found
    const key = decodeString(text.slice(i, keyEnd))
    i = keyEnd
    skipSpace()
    if (text.charCodeAt(i) !== 0x3a) return found
    i++
    skipSpace()
    const end = valueEnd(text, i)
    if (end === -1 || end === i) return found
    if (key !== undefined && keys.includes(key)) {
      const value = text.charCodeAt(i) === 0x22 ? decodeString(text.slice(i, end)) : undefined
      if (value !== undefined) found[key] = value
      else delete found[key]
    }
    i = end
    skipSpace()
    if (text.charCodeAt(i) !== 0x2c) return found
    i++
  }
}

/**
 * The event name a payload text names, read as `HostEvents.nameOf` reads a parsed payload
 * (`hook_event_name`, else `type`), for a text that cannot be parsed.
 *
 * @internal
 */
export const nameOfText = (text: string): string | undefined => {
  const found = topLevelStrings(text, ["hook_event_name", "type"])
  return found.hook_event_name ?? found.type
}
