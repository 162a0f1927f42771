/**
 * The three line comparison passes of the reference ladder, over a {@link LineTable}.
 *
 * Leading whitespace is never relaxed by these passes.
 *
 * @since 0.1.0
 */
import { findWindows, internPattern, type LineTable, lineIds } from "./lines.js"
import { normalizeUnicode } from "./unicode.js"

/** How lines are compared: as-is, trailing whitespace dropped, or look-alikes folded and trailing whitespace dropped. */
export type LinePass = "identity" | "trim_end" | "fold_trim_end"

/** The three passes in the order the reference tries them. */
export const LINE_PASSES: ReadonlyArray<LinePass> = ["identity", "trim_end", "fold_trim_end"]

/** A needle line's key under `pass`. */
export const needleKey = (pass: LinePass, line: string): string =>
  pass === "identity" ? line : pass === "trim_end" ? line.trimEnd() : normalizeUnicode(line).trimEnd()

/**
 * Starts (0-based line indexes) of the leftmost non-overlapping windows of the file whose lines
 * equal `lines` under `pass` and satisfy `accept`.
 */
export const scanLines = (
  table: LineTable,
  lines: ReadonlyArray<string>,
  pass: LinePass,
  accept?: (start: number) => boolean,
  limit?: number
): Array<number> => {
  if (lines.length === 0 || lines.length > table.count) return []
  const pattern = internPattern(lines.map((line) => needleKey(pass, line)))
  const text = pass === "fold_trim_end" ? table.normalized() : table.text
  const to = pass === "identity" ? table.ends : table.trimmedEnds()
  return findWindows(lineIds(text, table.starts, to, pattern), pattern.ids, accept, limit)
}

/** Offsets of `count` whole lines from line `start`, optionally including the line break after them. */
export const lineSpan = (
  table: LineTable,
  start: number,
  count: number,
  withBreak: boolean
): readonly [number, number] => {
  const last = start + count - 1
  const end = table.ends[last]!
  return [table.starts[start]!, withBreak && table.hasBreakAfter(last) ? end + 1 : end]
}
