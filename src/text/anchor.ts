/**
 * Line-window search by anchor, for the line passes of the ladder.
 *
 * Keying every line of a large file costs a pass of JavaScript over all its lines. A window can
 * only match where its longest line does, so that line is searched with the engine's native
 * `indexOf`, and only the windows around its occurrences at line starts are compared line by
 * line. When the anchor occurs so often that this would cost more than a pass over every line,
 * the search gives up (`undefined`) and the caller scans all lines instead; otherwise the result
 * equals that scan's: the leftmost non-overlapping windows, in file order.
 *
 * @since 0.1.0
 */
import type { Span } from "./replace.js"
import { isJsWhitespace } from "./unicode.js"

/** What one line pass looks for. @category models */
export interface AnchorQuery {
  /** The text searched (the content, or its look-alike-folded form, of the same length). */
  readonly text: string
  /** The key of each needle line under the pass. */
  readonly keys: ReadonlyArray<string>
  /** File line keys drop trailing whitespace (`String.prototype.trimEnd`). */
  readonly trimEnd: boolean
  /** A line break must follow the window's last line; the span then includes it. */
  readonly withBreak: boolean
}

/** Smallest step budget, so short texts always take the anchor path when it applies. @category constants */
export const ANCHOR_MIN_STEPS = 1024

/**
 * Line comparisons the anchor search may spend on a text before it gives up: one per 64
 * characters (about one per line of code), at least {@link ANCHOR_MIN_STEPS}.
 * @category search
 */
export const anchorBudget = (textLength: number): number => Math.max(ANCHOR_MIN_STEPS, Math.floor(textLength / 64))

const lineEnd = (text: string, from: number): number => {
  const at = text.indexOf("\n", from)
  return at === -1 ? text.length : at
}

/** Start of the line before the one starting at `lineStart` (which must not be 0). */
const previousLineStart = (text: string, lineStart: number): number =>
  lineStart <= 1 ? 0 : text.lastIndexOf("\n", lineStart - 2) + 1

/** Whether the line starting at `start` (ending at `end`) has the key `key`. */
const lineHasKey = (text: string, start: number, end: number, key: string, trimEnd: boolean): boolean => {
  let keyEnd = end
  if (trimEnd) while (keyEnd > start && isJsWhitespace(text.charCodeAt(keyEnd - 1))) keyEnd--
  return keyEnd - start === key.length && text.startsWith(key, start)
}

/** The window of `keys` starting at line start `start`: its span and its last line's end, or undefined. */
const windowAt = (
  q: AnchorQuery,
  start: number
): { readonly span: Span; readonly lastEnd: number } | undefined => {
  const { text, keys } = q
  let lineStart = start
  let end = 0
  for (let k = 0; k < keys.length; k++) {
    if (k > 0) {
      if (end === text.length) return undefined
      lineStart = end + 1
    }
    end = lineEnd(text, lineStart)
    if (!lineHasKey(text, lineStart, end, keys[k]!, q.trimEnd)) return undefined
  }
  if (q.withBreak) return end < text.length ? { span: [start, end + 1], lastEnd: end } : undefined
  return { span: [start, end], lastEnd: end }
}

/** The index of the needle's anchor line: its first longest key. @category search */
export const anchorIndex = (keys: ReadonlyArray<string>): number => {
  let anchor = 0
  keys.forEach((key, j) => {
    if (key.length > keys[anchor]!.length) anchor = j
  })
  return anchor
}

/**
 * Every start of `key` in `text`, overlapping ones too, or undefined past `limit` of them (the
 * caller then scans every line instead). One native search shared by the window search and the
 * check for the same text at another column.
 * @category search
 */
export const keyOccurrences = (text: string, key: string, limit = anchorBudget(text.length)): Array<number> | undefined => {
  const out: Array<number> = []
  if (key === "") return undefined
  for (let at = text.indexOf(key); at !== -1; at = text.indexOf(key, at + 1)) {
    if (out.length >= limit) return undefined
    out.push(at)
  }
  return out
}

/**
 * The spans of the leftmost non-overlapping windows of whole lines whose keys equal `keys`, or
 * `undefined` when the anchor search does not apply (no non-empty key) or would cost more than
 * scanning every line. `occurrences`: every start of the anchor key in the text, when the caller
 * has them already (see {@link keyOccurrences}).
 * @category search
 */
export const findWindowsByAnchor = (q: AnchorQuery, occurrences?: ReadonlyArray<number>): Array<Span> | undefined => {
  const { text, keys } = q
  const anchor = anchorIndex(keys)
  const key = keys[anchor]
  if (key === undefined || key === "") return undefined
  const offsets: Array<number> = []
  keys.forEach((k, j) => {
    if (k === key) offsets.push(j)
  })
  let budget = anchorBudget(text.length)
  const found: Array<{ readonly span: Span; readonly lastEnd: number }> = []
  /** The windows around an occurrence of the anchor at a line start; false when out of budget. */
  const around = (at: number): boolean => {
    for (const j of offsets) {
      budget -= keys.length
      if (budget < 0) return false
      let start: number | undefined = at
      for (let up = 0; up < j && start !== undefined; up++) start = start === 0 ? undefined : previousLineStart(text, start)
      if (start === undefined) continue
      const window = windowAt(q, start)
      if (window !== undefined) found.push(window)
    }
    return true
  }
  if (occurrences !== undefined) {
    for (const at of occurrences) {
      if ((at === 0 || text.charCodeAt(at - 1) === 0x0a) && lineHasKey(text, at, lineEnd(text, at), key, q.trimEnd)) {
        if (!around(at)) return undefined
      } else if (--budget < 0) {
        return undefined
      }
    }
  } else {
    for (let at = text.indexOf(key); at !== -1;) {
      const end = lineEnd(text, at)
      if ((at === 0 || text.charCodeAt(at - 1) === 0x0a) && lineHasKey(text, at, end, key, q.trimEnd)) {
        if (!around(at)) return undefined
      } else if (--budget < 0) {
        return undefined
      }
      // The next occurrence at a line start is on a later line (keys hold no line break).
      at = end === text.length ? -1 : text.indexOf(key, end + 1)
    }
  }
  found.sort((a, b) => a.span[0] - b.span[0])
  const spans: Array<Span> = []
  let lastEnd = -1
  for (const window of found) {
    if (window.span[0] <= lastEnd) continue
    spans.push(window.span)
    lastEnd = window.lastEnd
  }
  return spans
}
