/**
 * The one walk over JSON-like values: iterative (explicit stack), outermost first, and
 * bounded in depth, so no value — however deep, or cyclic — can overflow the stack or loop
 * forever.
 *
 * The stack is kept between walks (a walk used to grow two fresh arrays, about a kilobyte
 * of garbage for a 1 KiB event, and every call walks its event and request several times):
 * its slots are cleared after each walk, so it holds no value once the walk is done. A walk
 * started while another is running (from a getter or a `check`) gets a stack of its own.
 *
 * @internal
 */

/** The shared stack: values to visit and their depths, side by side. */
const values: Array<unknown> = []
const depths: Array<number> = []
let busy = false

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
  if (busy) return walk(value, maxDepth, isLeaf, check, [], [])
  busy = true
  try {
    return walk(value, maxDepth, isLeaf, check, values, depths)
  } finally {
    busy = false
  }
}

const walk = (
  value: unknown,
  maxDepth: number,
  isLeaf: (u: object) => boolean,
  check: (u: unknown) => boolean,
  values: Array<unknown>,
  depths: Array<number>
): boolean => {
  values[0] = value
  depths[0] = 0
  let top = 1
  // The highest slot used, cleared at the end.
  let high = 1
  try {
    while (top > 0) {
      const v = values[--top]
      const depth = depths[top]!
      if (!check(v)) return false
      if (typeof v !== "object" || v === null || isLeaf(v)) continue
      if (depth >= maxDepth) return false
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          values[top] = v[i]
          depths[top++] = depth + 1
        }
      } else {
        for (const key in v) {
          values[top] = (v as Record<string, unknown>)[key]
          depths[top++] = depth + 1
        }
      }
      if (top > high) high = top
    }
    return true
  } finally {
    for (let i = 0; i < high; i++) values[i] = undefined
  }
}
