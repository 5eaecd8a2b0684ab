/**
 * "Did you mean …?": the closest of a set of known words to a mistyped one.
 *
 * @internal
 */

const distance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1)
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution))
    }
    previous = current
  }
  return previous[b.length]!
}

/**
 * The known word closest to `word` (edit distance, ignoring case), when it is close enough
 * to be a typo: at most a third of its length away, and at least one edit for short words.
 * `undefined` when `word` is itself known or nothing is close.
 *
 * @internal
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
 * @internal
 */
export const didYouMean = (word: string, known: Iterable<string>, quote: (text: string) => string = (t) => t): string => {
  const match = closest(word, known)
  return match === undefined ? "" : ` (did you mean ${quote(match)}?)`
}
