/**
 * "Did you mean …?": the closest of a set of known words to a mistyped one.
 *
 * @since 0.1.0
 */

/** Edits between two words: insertions, deletions, substitutions and swaps of neighbours. */
const distance = (a: string, b: string): number => {
  const d: Array<Array<number>> = Array.from(
    { length: a.length + 1 },
    (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0))
  )
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1)
      d[i]![j] = best
    }
  }
  return d[a.length]![b.length]!
}

/**
 * The known word closest to `word` (edit distance, ignoring case), when it is close enough
 * to be a typo: at most a third of its length away, and at least one edit for short words.
 * `undefined` when `word` is itself known or nothing is close.
 *
 * @since 0.1.0
 * @category suggestions
 */
export const closest = (word: string, known: Iterable<string>): string | undefined => {
  let best: string | undefined = undefined
  let bestDistance = Infinity
  for (const candidate of known) {
    if (candidate === word) return undefined
    const d = distance(word.toLowerCase(), candidate.toLowerCase())
    if (d < bestDistance) {
      best = candidate
      bestDistance = d
    }
  }
  return best !== undefined && bestDistance <= Math.max(1, Math.floor(best.length / 3)) ? best : undefined
}

/**
 * ` (did you mean X?)` for the closest known word, or an empty string.
 *
 * @since 0.1.0
 * @category suggestions
 */
export const didYouMean = (
  word: string,
  known: Iterable<string>,
  quote: (text: string) => string = (t) => t
): string => {
  const match = closest(word, known)
  return match === undefined ? "" : ` (did you mean ${quote(match)}?)`
}
