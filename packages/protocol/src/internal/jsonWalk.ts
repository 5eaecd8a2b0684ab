/**
 * The one walk over JSON-like values: iterative (explicit stack), outermost first, and
 * bounded in depth, so no value — however deep, or cyclic — can overflow the stack or loop
 * forever.
 *
 * @internal
 */

/**
 * Whether `check` holds for `value` and for every member of the arrays and objects in it,
 * and arrays and objects nest at most `maxDepth` levels (`[]` is one level; a container
 * beyond it makes the answer false, which also ends the walk of a cyclic value). `check`
 * sees each value before its members; objects `isLeaf` accepts are not entered. Objects
 * are entered through their enumerable string keys (`for…in`).
 *
 * @internal
 */
export const every = (
  value: unknown,
  maxDepth: number,
  isLeaf: (u: object) => boolean,
  check: (u: unknown) => boolean
): boolean => {
  const values: Array<unknown> = [value]
  const depths: Array<number> = [0]
  while (values.length > 0) {
    const v = values.pop()
    const depth = depths.pop()!
    if (!check(v)) return false
    if (typeof v !== "object" || v === null || isLeaf(v)) continue
    if (depth >= maxDepth) return false
    if (Array.isArray(v)) {
      for (let i = 0; i < v.length; i++) {
        values.push(v[i])
        depths.push(depth + 1)
      }
    } else {
      for (const key in v) {
        values.push((v as Record<string, unknown>)[key])
        depths.push(depth + 1)
      }
    }
  }
  return true
}
