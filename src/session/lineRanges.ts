/**
 * Sets of seen line ranges as sorted, merged, 1-based inclusive intervals (pure helpers for the
 * read cache's `readEvidence: "ranges"` mode).
 *
 * @since 0.1.0
 */

/** Lines `start..end`, 1-based and inclusive; `end` may be `Infinity` (to the end of the file). @category models */
export interface LineRange {
  readonly start: number
  readonly end: number
}

/** Every line of the file. @category constants */
export const WHOLE_FILE: LineRange = { start: 1, end: Number.POSITIVE_INFINITY }

/** `range` clamped to start at line 1, or `undefined` if it is empty or not made of numbers. @category constructors */
export const normalizeRange = (range: LineRange): LineRange | undefined => {
  if (Number.isNaN(range.start) || Number.isNaN(range.end)) return undefined
  const start = Math.max(1, Math.floor(range.start))
  const end = range.end === Number.POSITIVE_INFINITY ? range.end : Math.floor(range.end)
  return end >= start ? { start, end } : undefined
}

/** `ranges` (sorted, merged) with `range` added; overlapping and adjacent ranges merge. @category combinators */
export const addRange = (ranges: ReadonlyArray<LineRange>, range: LineRange): ReadonlyArray<LineRange> => {
  const added = normalizeRange(range)
  if (added === undefined) return ranges
  const sorted = [...ranges, added].sort((a, b) => a.start - b.start)
  const merged: Array<LineRange> = []
  for (const next of sorted) {
    const last = merged[merged.length - 1]
    if (last !== undefined && next.start <= last.end + 1) {
      merged[merged.length - 1] = { start: last.start, end: Math.max(last.end, next.end) }
    } else {
      merged.push(next)
    }
  }
  return merged
}

/** Whether every line of `start..end` lies in `ranges` (an empty query is covered, a NaN one is not). @category predicates */
export const coversLines = (ranges: ReadonlyArray<LineRange>, start: number, end: number): boolean => {
  if (Number.isNaN(start) || Number.isNaN(end)) return false
  const query = normalizeRange({ start, end })
  if (query === undefined) return true
  return ranges.some((r) => r.start <= query.start && r.end >= query.end)
}
