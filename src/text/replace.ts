/**
 * The span helpers `resolveEdit` finds and writes with.
 *
 * Replacement is always literal: `$&`, `$'`, `` $` ``, `$1` and `$$` in new_string are written as-is
 * (no `String.prototype.replace` with a string replacement anywhere).
 *
 * @since 0.1.0
 */
import { isIndentChar } from "./unicode.js"

/** A half-open `[start, end)` range of UTF-16 offsets. */
export type Span = readonly [start: number, end: number]

/** Leftmost non-overlapping occurrences of a non-empty `sub` in `source`, as spans. */
export const literalSpans = (source: string, sub: string): Array<Span> => {
  const spans: Array<Span> = []
  if (sub === "") return spans
  for (let i = source.indexOf(sub); i !== -1; i = source.indexOf(sub, i + sub.length)) spans.push([i, i + sub.length])
  return spans
}

/** Removes one trailing line break (`\r\n`, `\n` or `\r`) from `text`. */
export const removeTrailingNewline = (text: string): string =>
  text.endsWith("\r\n") ? text.slice(0, -2) : text.endsWith("\n") || text.endsWith("\r") ? text.slice(0, -1) : text

/** Writes `replacement` verbatim over each span (sorted, non-overlapping). */
export const spliceSpans = (content: string, spans: ReadonlyArray<Span>, replacement: string): string => {
  const parts: Array<string> = []
  let cursor = 0
  for (const [start, end] of spans) {
    parts.push(content.slice(cursor, start), replacement)
    cursor = end
  }
  parts.push(content.slice(cursor))
  return parts.join("")
}

/**
 * Widens a span being deleted to whole lines when it covers all the non-blank text of its lines
 * and a line break follows, so the deletion leaves no blank (or whitespace-only) line behind.
 * Otherwise the span is returned unchanged.
 */
export const widenDeletion = (content: string, [start, end]: Span): Span => {
  let lineStart = start
  while (lineStart > 0 && isIndentChar(content.charCodeAt(lineStart - 1))) lineStart--
  if (lineStart > 0 && content.charCodeAt(lineStart - 1) !== 0x0a) return [start, end]
  if (end > start && content.charCodeAt(end - 1) === 0x0a) return [lineStart, end]
  let after = end
  while (after < content.length && (isIndentChar(content.charCodeAt(after)) || content.charCodeAt(after) === 0x0d)) {
    after++
  }
  return after < content.length && content.charCodeAt(after) === 0x0a ? [lineStart, after + 1] : [start, end]
}
