/**
 * `resolveEdit`: the whole matching ladder, returning the match as data or a typed miss.
 *
 * Rungs, first hit wins: exact → unicode_normalized → trim_end_lines →
 * normalized_trim_end_lines → dropped_trailing_empty_line (the reference ladder) →
 * indentation_shift → unescaped. The written text is always the file's real slice replaced by
 * new_string verbatim (only the last two rungs adjust new_string, and only as described there).
 *
 * The rungs are the rows of `RUNGS` (`rungs.ts`). Occurrences: the exact rung reports a count that
 * differs from `expectedOccurrences` (default 1, or "any" with `replaceAll`) as
 * `OccurrenceMismatch`. A fuzzy rung never picks among places: two or more (counting the places
 * it matches at another column, and overlapping ones) is `Ambiguous`, listing their lines, except
 * that with `replaceAll` (or a matching `expectedOccurrences`) a reference fuzzy rung may edit
 * them all when every place is byte-identical and none overlaps another. The rungs past the
 * reference are used only when their match is unique.
 *
 * @since 0.1.0
 */
import { applyChange, countBreaks, type TextChange } from "./change.js"
import { findNearMiss, type NearMiss } from "./nearMiss.js"
import { type Candidates, Haystack } from "./haystack.js"
import { type Span, spliceSpans, widenDeletion } from "./replace.js"
import { climbLadder, type Rung, rungRow } from "./rungs.js"
import { MAX_STRAYS } from "./strays.js"

/** Options of {@link resolveEdit}. */
export interface ResolveEditOptions {
  /** Edit every place (exact rung: any count ≥ 1 is fine). */
  readonly replaceAll?: boolean | undefined
  /** The number of places the caller expects; a different count is a mismatch. */
  readonly expectedOccurrences?: number | undefined
  /**
   * The caller knows the content holds none of the look-alike characters (e.g. from a scan of its
   * bytes, see `utf8HasNoLookalikes`): folding the whole content is then skipped. A wrong `true`
   * makes look-alikes in the file invisible to the ladder.
   */
  readonly noLookalikes?: boolean | undefined
}

/** A resolved edit: where it lands, what is really replaced, and the content after it. */
export interface EditMatch {
  readonly _tag: "Match"
  readonly rung: Rung
  readonly occurrences: number
  /** The file's real text at the first place (never the model's approximation). */
  readonly oldString: string
  /** The text written at every place (new_string, adjusted only by the last rungs). */
  readonly newString: string
  /** 1-based first and last line of the first place. */
  readonly startLine: number
  readonly endLine: number
  /** Offsets of the first place in the original content. */
  readonly startOffset: number
  readonly endOffset: number
  /** The whole edit as one change: from the first place's start to the last place's end. */
  readonly change: TextChange
  /** The content after the edit (built from slices of the original; see `applyChange`). */
  readonly newContent: string
}

/** old_string matched nowhere; `nearMiss` points at the closest place when one is found. */
export interface EditNoMatch {
  readonly _tag: "NoMatch"
  readonly nearMiss?: NearMiss
}

/** A non-exact needle matched several places; nothing is edited. */
export interface EditAmbiguous {
  readonly _tag: "Ambiguous"
  readonly rung: Rung
  readonly occurrences: number
  /**
   * 1-based line where each place starts (at most {@link MAX_LISTED_PLACES}, in file order). A rung
   * past the reference stops counting after that many places and one more.
   */
  readonly lines: ReadonlyArray<number>
}

/** At most this many places are listed in an `Ambiguous` answer. */
export const MAX_LISTED_PLACES = MAX_STRAYS

/** The exact needle was found a different number of times than expected. */
export interface EditOccurrenceMismatch {
  readonly _tag: "OccurrenceMismatch"
  readonly expected: number
  readonly occurrences: number
}

/** Everything {@link resolveEdit} can answer. */
export type EditResolution = EditMatch | EditNoMatch | EditAmbiguous | EditOccurrenceMismatch

const allIdentical = (content: string, spans: ReadonlyArray<Span>): boolean => {
  const [first] = spans
  if (first === undefined) return true
  const text = content.slice(first[0], first[1])
  return spans.every(([start, end]) => end - start === text.length && content.startsWith(text, start))
}

const anyOverlap = (spans: ReadonlyArray<Span>): boolean => spans.some(([start], i) => i > 0 && start < spans[i - 1]![1])

/** 1-based line numbers of sorted offsets, counting breaks once from the start. */
const lineNumbers = (content: string, offsets: ReadonlyArray<number>): Array<number> => {
  const out: Array<number> = []
  let line = 1
  let at = 0
  for (const offset of offsets) {
    line += countBreaks(content, at, offset)
    at = offset
    out.push(line)
  }
  return out
}

const ambiguous = (content: string, rung: Rung, places: ReadonlyArray<number>): EditAmbiguous => {
  const sorted = [...new Set(places)].sort((a, b) => a - b)
  return {
    _tag: "Ambiguous",
    rung,
    occurrences: sorted.length,
    lines: lineNumbers(content, sorted.slice(0, MAX_LISTED_PLACES))
  }
}

/** Widens each deleted span to whole lines where that cannot run into a neighbouring span. */
const widenDeletions = (content: string, spans: ReadonlyArray<Span>): Array<Span> => {
  const out: Array<Span> = []
  spans.forEach((span, i) => {
    const wide = widenDeletion(content, span)
    const previousEnd = out[out.length - 1]?.[1] ?? 0
    const nextStart = spans[i + 1]?.[0] ?? content.length
    out.push(wide[0] >= previousEnd && wide[1] <= nextStart ? wide : span)
  })
  return out
}

const judge = (
  content: string,
  found: Candidates,
  options: ResolveEditOptions
): EditAmbiguous | EditOccurrenceMismatch | undefined => {
  const occurrences = found.spans.length
  const expected = options.expectedOccurrences
  if (found.rung === "exact") {
    const wanted = expected ?? (options.replaceAll === true ? undefined : 1)
    return wanted !== undefined && wanted !== occurrences
      ? { _tag: "OccurrenceMismatch", expected: wanted, occurrences }
      : undefined
  }
  const starts = found.spans.map(([start]) => start)
  if (occurrences > 1) {
    const several = rungRow(found.rung).fuzzy === "reference" &&
      (expected === undefined ? options.replaceAll === true : expected === occurrences) &&
      allIdentical(content, found.spans) && !anyOverlap(found.spans)
    if (!several) return ambiguous(content, found.rung, starts)
  }
  const strays = found.strays?.() ?? []
  if (strays.length > 0) return ambiguous(content, found.rung, [...starts, ...strays])
  if (occurrences > 1) return undefined
  return expected !== undefined && expected !== 1
    ? { _tag: "OccurrenceMismatch", expected, occurrences }
    : undefined
}

/** Runs the matching ladder for one edit and returns the match as data, or why it cannot be applied. */
export const resolveEdit = (
  content: string,
  oldString: string,
  newString: string,
  options: ResolveEditOptions = {}
): EditResolution => {
  if (oldString === "") return { _tag: "NoMatch" }
  const h = new Haystack(content, options.noLookalikes === true)
  const found = climbLadder(h, oldString, newString)
  if (found === undefined) {
    const nearMiss = findNearMiss(h, oldString)
    return nearMiss === undefined ? { _tag: "NoMatch" } : { _tag: "NoMatch", nearMiss }
  }
  const refused = judge(content, found, options)
  if (refused !== undefined) return refused
  const spans = found.newString === "" ? widenDeletions(content, found.spans) : found.spans
  const [start, end] = spans[0]!
  const last = spans[spans.length - 1]![1]
  const change: TextChange = {
    start,
    end: last,
    replacement: spans.length === 1
      ? found.newString
      : spliceSpans(content.slice(start, last), spans.map(([a, b]) => [a - start, b - start] as const), found.newString)
  }
  const startLine = countBreaks(content, 0, start) + 1
  return {
    _tag: "Match",
    rung: found.rung,
    occurrences: spans.length,
    oldString: content.slice(start, end),
    newString: found.newString,
    startLine,
    endLine: startLine + countBreaks(content, start, end - 1),
    startOffset: start,
    endOffset: end,
    change,
    newContent: applyChange(content, change)
  }
}
