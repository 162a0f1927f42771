/**
 * The reference rungs of the matching ladder, as `resolveEdit` runs them: each rung collects
 * EVERY non-overlapping place it matches, so a fuzzy needle that fits two places can be refused
 * instead of silently taking the first.
 *
 * Unlike the reference's line passes, a needle ending in a line break is compared as its lines
 * plus "a line break follows" (the reference compares the empty string after the break with the
 * next file line, so `x  \n` against `x\nx\n` would only find the second `x`).
 *
 * @since 0.1.0
 */
import { findWindowsByAnchor } from "./anchor.js"
import { type InternedPattern, internPattern, LineTable, lineIds, restKey, splitNeedle } from "./lines.js"
import { type LinePass, lineSpan, needleKey, scanLines } from "./passes.js"
import { literalSpans, type Span } from "./replace.js"
import { removeTrailingNewline } from "./slice.js"
import { hasUnicodeEquivalents, normalizeUnicode } from "./unicode.js"

/** Which rung of the ladder produced a match. */
export type Rung =
  | "exact"
  | "unicode_normalized"
  | "trim_end_lines"
  | "normalized_trim_end_lines"
  | "dropped_trailing_empty_line"
  | "indentation_shift"
  | "unescaped"

/** The places one rung matched, in file order, and the new_string to write there. */
export interface Candidates {
  readonly rung: Rung
  readonly spans: ReadonlyArray<Span>
  readonly newString: string
}

/** The file being edited, with its folded text and line table built on first use. */
export class Haystack {
  private foldedText: string | undefined
  private lineTable: LineTable | undefined
  private rest: { readonly needle: string; readonly pattern: InternedPattern; readonly ids: Int32Array } | undefined

  /** `noLookalikes`: the caller knows the content holds no look-alike character (folding is then the identity). */
  constructor(readonly content: string, noLookalikes = false) {
    if (noLookalikes) this.foldedText = content
  }

  /** The content with look-alikes folded (same length; the same string when there are none). */
  folded(): string {
    if (this.foldedText === undefined) this.foldedText = normalizeUnicode(this.content)
    return this.foldedText
  }

  /** The content's line table. */
  table(): LineTable {
    if (this.lineTable === undefined) this.lineTable = new LineTable(this.content, () => this.folded())
    return this.lineTable
  }

  /**
   * Every file line's id against the needle lines, both keyed without indentation and trailing
   * whitespace (look-alikes folded); computed once per needle.
   */
  restIds(needleLines: ReadonlyArray<string>): { readonly pattern: InternedPattern; readonly ids: Int32Array } {
    const needle = needleLines.join("\n")
    if (this.rest === undefined || this.rest.needle !== needle) {
      const table = this.table()
      const pattern = internPattern(needleLines.map(restKey))
      this.rest = { needle, pattern, ids: lineIds(this.folded(), table.indentEnds(), table.trimmedEnds(), pattern) }
    }
    return this.rest
  }
}

const exact = (h: Haystack, needle: string, newString: string): Candidates | undefined => {
  const spans = literalSpans(h.content, needle)
  return spans.length > 0 ? { rung: "exact", spans, newString } : undefined
}

const unicode = (h: Haystack, needle: string, newString: string): Candidates | undefined => {
  const foldedNeedle = normalizeUnicode(needle)
  const folded = h.folded()
  if (foldedNeedle === needle && folded === h.content) return undefined
  const spans = literalSpans(folded, foldedNeedle)
  return spans.length > 0 ? { rung: "unicode_normalized", spans, newString } : undefined
}

/** Every window of whole lines equal to the needle's lines under `pass`, scanning all lines only when anchoring does not pay. */
const lineWindows = (h: Haystack, lines: ReadonlyArray<string>, endsWithBreak: boolean, pass: LinePass): ReadonlyArray<Span> => {
  const byAnchor = findWindowsByAnchor({
    text: pass === "fold_trim_end" ? h.folded() : h.content,
    keys: lines.map((line) => needleKey(pass, line)),
    trimEnd: pass !== "identity",
    withBreak: endsWithBreak
  })
  if (byAnchor !== undefined) return byAnchor
  const table = h.table()
  const n = lines.length
  const accept = endsWithBreak ? (start: number) => table.hasBreakAfter(start + n - 1) : undefined
  return scanLines(table, lines, pass, accept).map((start) => lineSpan(table, start, n, endsWithBreak))
}

const lines = (
  h: Haystack,
  needle: string,
  newString: string,
  pass: LinePass,
  rung: Rung
): Candidates | undefined => {
  const { endsWithBreak, lines } = splitNeedle(needle)
  const spans = lineWindows(h, lines, endsWithBreak, pass)
  return spans.length === 0 ? undefined : { rung, spans, newString }
}

/** The one window a needle ending in a break can still take: the file's last lines, with no break after them. */
const droppedTrailingEmptyLine = (h: Haystack, needle: string, newString: string): Candidates | undefined => {
  const { endsWithBreak, lines } = splitNeedle(needle)
  if (!endsWithBreak || lines.length === 0) return undefined
  // The file's last lines, found from its end (the last line is the text after the final break).
  const text = h.content
  const starts: Array<number> = [text.lastIndexOf("\n") + 1]
  while (starts.length < lines.length) {
    const next = starts[0]!
    if (next === 0) return undefined
    starts.unshift(next <= 1 ? 0 : text.lastIndexOf("\n", next - 2) + 1)
  }
  for (let j = 0; j < lines.length; j++) {
    const end = j + 1 < starts.length ? starts[j + 1]! - 1 : text.length
    const fileLine = normalizeUnicode(text.slice(starts[j], end)).trimEnd()
    if (fileLine !== normalizeUnicode(lines[j]!).trimEnd()) return undefined
  }
  return {
    rung: "dropped_trailing_empty_line",
    spans: [[starts[0]!, text.length]],
    newString: removeTrailingNewline(newString)
  }
}

const overlaps = (sorted: ReadonlyArray<Span>, [start, end]: Span): boolean => {
  let lo = 0
  let hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid]![1] <= start) lo = mid + 1
    else hi = mid
  }
  const next = sorted[lo]
  return next !== undefined && next[0] < end
}

/** `kept` plus every span of `more` that overlaps none of `kept`, in file order. */
const addPlaces = (kept: ReadonlyArray<Span>, more: ReadonlyArray<Span>): Array<Span> => {
  const added = more.filter((span) => !overlaps(kept, span))
  return added.length === 0 ? [...kept] : [...kept, ...added].sort((x, y) => x[0] - y[0])
}

/**
 * Runs the reference rungs in order; the first rung that matches anywhere decides the rung,
 * the text written and the spans. For a fuzzy (non-exact) first hit, the places the more lenient
 * rungs find elsewhere are added, so a needle that fits a second place only loosely still makes
 * the edit ambiguous rather than "first match wins".
 */
export const referenceRungs = (h: Haystack, needle: string, newString: string): Candidates | undefined => {
  if (needle === "") return undefined
  const literal = exact(h, needle, newString)
  if (literal !== undefined) return literal
  const folds = hasUnicodeEquivalents(needle) || h.folded() !== h.content
  const tiers: ReadonlyArray<() => Candidates | undefined> = [
    () => unicode(h, needle, newString),
    () => lines(h, needle, newString, "trim_end", "trim_end_lines"),
    () => (folds ? lines(h, needle, newString, "fold_trim_end", "normalized_trim_end_lines") : undefined),
    () => droppedTrailingEmptyLine(h, needle, newString)
  ]
  let first: Candidates | undefined
  let spans: Array<Span> = []
  for (const tier of tiers) {
    const found = tier()
    if (found === undefined) continue
    if (first === undefined) {
      first = found
      spans = [...found.spans]
    } else {
      spans = addPlaces(spans, found.spans)
    }
  }
  return first === undefined ? undefined : { ...first, spans }
}
