/**
 * Places a line rung also matches at another column: the needle's text, under the rung's line
 * keys, occurring inside longer lines (its first line as the end of a line, its last line as the
 * start of one). A line rung edits only whole-line windows, so such a place cannot be edited, but
 * the model may have meant it: an approximate match is applied only when there is none.
 *
 * The search is linear: the needle's longest line is looked up with the engine's `indexOf` and
 * the windows around its occurrences are compared line by line, within a step budget; past that
 * budget, every line is keyed once and the whole-line part of the needle is found with
 * Knuth–Morris–Pratt over line ids (all occurrences, overlapping ones too), each occurrence then
 * checking one line before and one after it.
 *
 * @since 0.1.0
 */
import { anchorBudget, anchorIndex, keyOccurrences } from "./anchor.js"
import type { Haystack } from "./haystack.js"
import { findWindows, internPattern, lineIds } from "./lines.js"
import type { Span } from "./replace.js"
import { isIndentChar, isJsWhitespace } from "./unicode.js"

/** How a line rung keys a line: in which text, and whether its indentation is set aside. @category models */
export interface LineKeying {
  /** The text compared (the content, or its look-alike-folded form of the same length). */
  readonly text: string
  /** A line's key starts after its indentation (the indentation rung). */
  readonly skipIndent: boolean
}

/** At most this many stray places are reported. @category constants */
export const MAX_STRAYS = 10

interface Window {
  readonly keys: ReadonlyArray<string>
  readonly endsWithBreak: boolean
}

const lineEndAt = (text: string, from: number): number => {
  const at = text.indexOf("\n", from)
  return at === -1 ? text.length : at
}

const lineStartAt = (text: string, offset: number): number =>
  offset === 0 ? 0 : text.lastIndexOf("\n", offset - 1) + 1

const trimmedEndOf = (text: string, start: number, end: number): number => {
  while (end > start && isJsWhitespace(text.charCodeAt(end - 1))) end--
  return end
}

/** The key range `[from, to)` of the line starting at `start`. */
const keyRange = (h: Haystack, k: LineKeying, start: number): { from: number; to: number; end: number } => {
  const end = lineEndAt(k.text, start)
  const to = trimmedEndOf(k.text, start, end)
  let from = start
  if (k.skipIndent) while (from < to && isIndentChar(h.content.charCodeAt(from))) from++
  return { from, to, end }
}

/** Where the first needle line starts in the place whose first line starts at `lineStart`. */
const firstKeyOffset = (h: Haystack, k: LineKeying, w: Window, lineStart: number): number =>
  keyRange(h, k, lineStart).to - w.keys[0]!.length

/** The single-line needle: every occurrence of its key (with a line break after it, when the needle has one). */
const singleLine = (
  k: LineKeying,
  w: Window,
  known: ReadonlySet<number>,
  occurrences: ReadonlyArray<number> | undefined
): Array<number> => {
  const key = w.keys[0]!
  const text = k.text
  const out: Array<number> = []
  if (key === "") return out
  let i = 0
  const next = occurrences === undefined
    ? (p: number) => text.indexOf(key, p + 1)
    : () => (++i < occurrences.length ? occurrences[i]! : -1)
  const first = occurrences === undefined ? text.indexOf(key) : occurrences[0] ?? -1
  for (let p = first; p !== -1 && out.length < MAX_STRAYS; p = next(p)) {
    if (known.has(p)) continue
    if (w.endsWithBreak) {
      const end = lineEndAt(text, p + key.length)
      if (end === text.length || trimmedEndOf(text, p + key.length, end) !== p + key.length) continue
    }
    out.push(p)
  }
  return out
}

type Budget = { left: number }

/**
 * The place whose line `a` holds the occurrence of `keys[a]` at `p`, as the offset of its first
 * key, or undefined; spends one step per line compared.
 */
const placeAt = (h: Haystack, k: LineKeying, w: Window, a: number, p: number, budget: Budget): number | undefined => {
  const { keys, endsWithBreak } = w
  const n = keys.length
  const text = k.text
  const fits = (j: number, r: { from: number; to: number; end: number }, at: number): boolean => {
    const key = keys[j]!
    if (j === 0) return at === r.to - key.length && at >= r.from && text.startsWith(key, at)
    if (j === n - 1 && !endsWithBreak) return at === r.from && r.to - r.from >= key.length && text.startsWith(key, at)
    return at === r.from && r.to - r.from === key.length && text.startsWith(key, at)
  }
  const own = keyRange(h, k, lineStartAt(text, p))
  const anchorAt = a === 0 ? own.to - keys[0]!.length : own.from
  if (anchorAt !== p || !fits(a, own, p)) return undefined
  let first = a === 0 ? p : -1
  let start = lineStartAt(text, p)
  for (let j = a - 1; j >= 0; j--) {
    if (--budget.left < 0 || start === 0) return undefined
    start = lineStartAt(text, start - 1)
    const r = keyRange(h, k, start)
    const at = j === 0 ? r.to - keys[0]!.length : r.from
    if (!fits(j, r, at)) return undefined
    if (j === 0) first = at
  }
  let end = own.end
  for (let j = a + 1; j < n; j++) {
    if (--budget.left < 0 || end === text.length) return undefined
    const r = keyRange(h, k, end + 1)
    if (!fits(j, r, r.from)) return undefined
    end = r.end
  }
  if (endsWithBreak && end === text.length) return undefined
  return first
}

/** Every place by KMP over line ids: linear whatever the file looks like. */
const byLineIds = (h: Haystack, k: LineKeying, w: Window, known: ReadonlySet<number>): Array<number> => {
  if (w.keys.length < 2) return []
  const { keys, endsWithBreak } = w
  const n = keys.length
  const table = h.table()
  const from = k.skipIndent ? table.indentEnds() : table.starts
  const to = table.trimmedEnds()
  const text = k.text
  const head = keys[0]!
  const whole = keys.slice(1, endsWithBreak ? n : n - 1)
  const tail = endsWithBreak ? undefined : keys[n - 1]!
  const out: Array<number> = []
  const check = (b: number, e: number): void => {
    const at = to[b]! - head.length
    if (at < from[b]! || !text.startsWith(head, at) || known.has(at) || out.length >= MAX_STRAYS) return
    if (tail !== undefined) {
      if (e >= table.count || to[e]! - from[e]! < tail.length || !text.startsWith(tail, from[e]!)) return
    } else if (!table.hasBreakAfter(e - 1)) {
      return
    }
    out.push(at)
  }
  if (whole.length === 0) {
    for (let b = 0; b + 1 < table.count && out.length < MAX_STRAYS; b++) check(b, b + 1)
    return out
  }
  const pattern = internPattern(whole)
  const ids = lineIds(text, from, to, pattern)
  findWindows(ids, pattern.ids, (s) => {
    if (s > 0) check(s - 1, s + whole.length)
    return false
  })
  return out
}

/**
 * Offsets (of the first line's key) of the places where the needle's line `keys` match at a
 * column other than the whole-line windows `known`, at most {@link MAX_STRAYS}.
 * @category search
 */
export const strayPlaces = (
  h: Haystack,
  k: LineKeying,
  keys: ReadonlyArray<string>,
  endsWithBreak: boolean,
  known: ReadonlyArray<Span>,
  occurrences?: ReadonlyArray<number> | undefined
): Array<number> => {
  const w: Window = { keys, endsWithBreak }
  if (keys.length === 0) return []
  const knownAt = new Set(known.map(([start]) => firstKeyOffset(h, k, w, start)))
  if (keys.length === 1) return singleLine(k, w, knownAt, occurrences)
  const a = anchorIndex(keys)
  const anchor = keys[a]!
  if (anchor === "") return byLineIds(h, k, w, knownAt)
  const starts = occurrences ?? keyOccurrences(k.text, anchor)
  if (starts === undefined) return byLineIds(h, k, w, knownAt)
  const budget: Budget = { left: anchorBudget(k.text.length) }
  const out = new Set<number>()
  for (const p of starts) {
    if (out.size >= MAX_STRAYS) break
    const first = placeAt(h, k, w, a, p, budget)
    if (budget.left < 0) return byLineIds(h, k, w, knownAt)
    if (first !== undefined && !knownAt.has(first)) out.add(first)
  }
  return [...out].sort((x, y) => x - y)
}

/**
 * {@link strayPlaces} of a needle of two lines or more, always by scanning every line (what the
 * anchored search falls back to past its budget); for tests comparing the two paths.
 * @category search
 */
export const strayPlacesByLines = (
  h: Haystack,
  k: LineKeying,
  keys: ReadonlyArray<string>,
  endsWithBreak: boolean,
  known: ReadonlyArray<Span>
): Array<number> => {
  const w: Window = { keys, endsWithBreak }
  return byLineIds(h, k, w, new Set(known.map(([start]) => firstKeyOffset(h, k, w, start))))
}
