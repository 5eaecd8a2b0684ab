/**
 * Copy-on-write access to JSON values by member path. `*` in a path walks every element
 * of an array. Unchanged structure is shared, never copied.
 *
 * @internal
 */

/** Reads the value at a path (no wildcards); `undefined` when absent. @internal */
export const getAt = (value: unknown, path: ReadonlyArray<string>): unknown => {
  let current = value
  for (const key of path) {
    if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined
    if (!Object.prototype.hasOwnProperty.call(current, key)) return undefined
    current = (current as Record<string, unknown>)[key]
  }
  return current
}

/** Sets an own member; `__proto__` is defined (an assignment would set the prototype). */
const defineOwn = (target: Record<string, unknown>, key: string, value: unknown): void => {
  if (key === "__proto__") {
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  } else target[key] = value
}

/**
 * Sets the value at a path (no wildcards), creating missing object members and copying
 * only the containers along it. @internal
 */
export const setAt = <A>(value: A, path: ReadonlyArray<string>, next: unknown): A => {
  if (path.length === 0) return next as A
  const [head, ...rest] = path as [string, ...Array<string>]
  const base = typeof value === "object" && value !== null && !Array.isArray(value)
    ? value as Record<string, unknown>
    : {}
  const child = Object.prototype.hasOwnProperty.call(base, head) ? base[head] : undefined
  const copy: Record<string, unknown> = { ...base }
  defineOwn(copy, head, setAt(child, rest, next))
  return copy as A
}

/**
 * Updates every value a path reaches (with `*` wildcards), passing each one's JSON
 * Pointer; absent members are left alone. @internal
 */
export const updateAt = (
  value: unknown,
  path: ReadonlyArray<string>,
  pointer: string,
  f: (v: unknown, pointer: string) => unknown
): unknown => {
  if (path.length === 0) return f(value, pointer)
  const [head, ...rest] = path as [string, ...Array<string>]
  if (head === "*") {
    if (!Array.isArray(value)) return value
    let out: Array<unknown> | undefined
    value.forEach((item, i) => {
      const next = updateAt(item, rest, `${pointer}/${i}`, f)
      if (next !== item && out === undefined) out = value.slice()
      if (out !== undefined) out[i] = next
    })
    return out ?? value
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) return value
  if (!Object.prototype.hasOwnProperty.call(value, head)) return value
  const child = (value as Record<string, unknown>)[head]
  const next = updateAt(child, rest, `${pointer}/${head}`, f)
  if (next === child) return value
  const copy: Record<string, unknown> = { ...value }
  defineOwn(copy, head, next)
  return copy
}
