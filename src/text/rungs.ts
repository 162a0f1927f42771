/**
 * The matching ladder as one table: {@link RUNGS}, in the order `resolveEdit` tries them. The
 * first rung that matches anywhere decides the rung, the text written and the places; adding a
 * rung is adding a row.
 *
 * Each rung collects EVERY place it matches, so a fuzzy needle that fits two places is refused
 * instead of silently taking the first. An approximate line rung also reports the places it
 * matches at another column (inside a longer line, see `strays.ts`): those refuse the edit too.
 *
 * Unlike the reference's line passes, a needle ending in a line break is compared as its lines
 * plus "a line break follows" (the reference compares the empty string after the break with the
 * next file line, so `x  \n` against `x\nx\n` would only find the second `x`).
 *
 * @since 0.1.0
 */
import { anchorIndex, findWindowsByAnchor, keyOccurrences } from "./anchor.js"
import type { Candidates, Haystack } from "./haystack.js"
import { indentationShift } from "./indent.js"
import { splitNeedle } from "./lines.js"
import { lookalikePlaces } from "./lookalike.js"
import { type LinePass, lineSpan, needleKey, scanLines } from "./passes.js"
import { literalSpans, removeTrailingNewline, type Span } from "./replace.js"
import { strayPlaces } from "./strays.js"
import { unescaped } from "./unescape.js"
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

/**
 * How a rung's places are judged:
 * - `"none"`: the exact rung; its count is checked against the expected occurrences.
 * - `"reference"`: an approximate rung of the reference ladder; the places of the later reference
 *   rungs are added to its own (a needle that fits elsewhere only more loosely is still
 *   ambiguous), and with `replace_all` it may edit several places when they are byte-identical.
 * - `"unique"`: an approximate rung past the reference; applied only when it matches one place.
 */
export type Fuzziness = "none" | "reference" | "unique"

/** One rung of the ladder. */
export interface RungRow {
  readonly rung: Rung
  /** Every place the rung matches in the file, or undefined when it matches none. */
  readonly find: (h: Haystack, needle: string, newString: string) => Candidates | undefined
  readonly fuzzy: Fuzziness
  /** What the rung relaxed, for people and models (empty for the exact rung). */
  readonly explanation: string
}

const exact = (h: Haystack, needle: string, newString: string): Candidates | undefined => {
  const spans = literalSpans(h.content, needle)
  return spans.length > 0 ? { rung: "exact", spans, newString } : undefined
}

const lookalike = (h: Haystack, needle: string, newString: string): Candidates | undefined => {
  const spans = lookalikePlaces(h, needle)
  return spans.length > 0 ? { rung: "unicode_normalized", spans, newString } : undefined
}

/**
 * Every window of whole lines equal to the needle's lines under `pass`: around the occurrences of
 * the needle's anchor line when there are few, else by scanning every line.
 */
const lineWindows = (
  h: Haystack,
  lines: ReadonlyArray<string>,
  keys: ReadonlyArray<string>,
  endsWithBreak: boolean,
  pass: LinePass,
  occurrences: ReadonlyArray<number> | undefined
): ReadonlyArray<Span> => {
  const text = pass === "fold_trim_end" ? h.folded() : h.content
  const byAnchor = occurrences === undefined
    ? undefined
    : findWindowsByAnchor({ text, keys, trimEnd: pass !== "identity", withBreak: endsWithBreak }, occurrences)
  if (byAnchor !== undefined) return byAnchor
  const table = h.table()
  const n = lines.length
  const accept = endsWithBreak ? (start: number) => table.hasBreakAfter(start + n - 1) : undefined
  return scanLines(table, lines, pass, accept).map((start) => lineSpan(table, start, n, endsWithBreak))
}

const lineRung = (pass: LinePass, rung: Rung) => (h: Haystack, needle: string, newString: string): Candidates | undefined => {
  if (pass === "fold_trim_end" && !hasUnicodeEquivalents(needle) && h.folded() === h.content) return undefined
  const { endsWithBreak, lines } = splitNeedle(needle)
  const keying = { text: pass === "fold_trim_end" ? h.folded() : h.content, skipIndent: false }
  const keys = lines.map((line) => needleKey(pass, line))
  // One native search for the anchor line serves the windows and the check at other columns.
  const occurrences = keyOccurrences(keying.text, keys[anchorIndex(keys)] ?? "")
  const spans = lineWindows(h, lines, keys, endsWithBreak, pass, occurrences)
  if (spans.length === 0) return undefined
  return { rung, spans, newString, strays: () => strayPlaces(h, keying, keys, endsWithBreak, spans, occurrences) }
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

/** The ladder, in the order tried. */
export const RUNGS: ReadonlyArray<RungRow> = [
  { rung: "exact", find: exact, fuzzy: "none", explanation: "" },
  {
    rung: "unicode_normalized",
    find: lookalike,
    fuzzy: "reference",
    explanation: "look-alike characters (curly quotes, dashes, special spaces) were matched as their ASCII forms"
  },
  {
    rung: "trim_end_lines",
    find: lineRung("trim_end", "trim_end_lines"),
    fuzzy: "reference",
    explanation: "trailing whitespace at line ends was ignored"
  },
  {
    rung: "normalized_trim_end_lines",
    find: lineRung("fold_trim_end", "normalized_trim_end_lines"),
    fuzzy: "reference",
    explanation: "look-alike characters and trailing whitespace were ignored"
  },
  {
    rung: "dropped_trailing_empty_line",
    find: droppedTrailingEmptyLine,
    fuzzy: "reference",
    explanation: "the final line break of old_string was ignored (the file has none there)"
  },
  {
    rung: "indentation_shift",
    find: indentationShift,
    fuzzy: "unique",
    explanation: "the indentation differed uniformly, so new_string was re-indented by the same amount " +
      "(unless new_string was already written in the file's indentation)"
  },
  {
    rung: "unescaped",
    find: (h, needle, newString) => unescaped(needle, newString, (plain, written) => climb(REFERENCE(), h, plain, written)),
    fuzzy: "unique",
    explanation: "over-escaped sequences (\\n, \\t, \\\", \\') in old_string were read as the characters they stand for"
  }
]

const REFERENCE = (): ReadonlyArray<RungRow> => RUNGS.filter((row) => row.fuzzy !== "unique")

/** The row of a rung. */
export const rungRow = (rung: Rung): RungRow => RUNGS.find((row) => row.rung === rung)!

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
 * Runs `rows` in order; the first that matches decides. A `"reference"` rung's places are joined
 * by those of the later `"reference"` rungs.
 */
const climb = (rows: ReadonlyArray<RungRow>, h: Haystack, needle: string, newString: string): Candidates | undefined => {
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i]!
    const found = row.find(h, needle, newString)
    if (found === undefined) continue
    if (row.fuzzy !== "reference") return found
    let spans: Array<Span> = [...found.spans]
    for (const later of rows.slice(i + 1)) {
      if (later.fuzzy !== "reference") continue
      const more = later.find(h, needle, newString)
      if (more !== undefined) spans = addPlaces(spans, more.spans)
    }
    return { ...found, spans }
  }
  return undefined
}

/** The whole ladder on one needle: the deciding rung's places, or undefined when no rung matches. */
export const climbLadder = (h: Haystack, needle: string, newString: string): Candidates | undefined =>
  needle === "" ? undefined : climb(RUNGS, h, needle, newString)
