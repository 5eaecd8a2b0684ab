/** Replaces the member at a pseudo-random path of `value` (objects and arrays) with `replacement`. */
export const corrupt = (value: unknown, choices: ReadonlyArray<number>, replacement: unknown): unknown => {
  if (typeof value !== "object" || value === null || choices.length === 0) return replacement
  const keys = Object.keys(value)
  if (keys.length === 0) return replacement
  const key = keys[choices[0]! % keys.length]!
  const copy: Record<string, unknown> = Array.isArray(value) ? [...value] as never : { ...value }
  copy[key] = corrupt((value as Record<string, unknown>)[key], choices.slice(1), replacement)
  return copy
}
