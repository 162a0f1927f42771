/**
 * Picking the target of an edit case in a source text: a window of whole lines that holds one
 * distinctive line (found once in the whole file, look-alikes folded, even as a substring), so the
 * intended place is never in doubt; and the small edit made there (the model's new_string).
 *
 * @since 0.1.0
 */

/** The source text split into lines, LF only, without the empty piece after a final line break. @category models */
export interface Source {
  readonly text: string
  readonly lines: ReadonlyArray<string>
  readonly endsWithBreak: boolean
  /** The text with look-alikes folded (same length). */
  readonly folded: string
  /** Whether line `k` is distinctive (see {@link isDistinctive}); computed once per line. */
  readonly distinct: (k: number) => boolean
}

/** A window of whole lines `[start, end)` and where it lies in the text. @category models */
export interface Window {
  readonly start: number
  readonly end: number
  readonly lines: ReadonlyArray<string>
  /** Offset of the window's first character, and of the character after its last line (before the break). */
  readonly from: number
  readonly to: number
  /** A line break follows the window in the file. */
  readonly breakAfter: boolean
}

const LOOKALIKES: Readonly<Record<string, string>> = {
  "\u2010": "-", "\u2011": "-", "\u2012": "-", "\u2013": "-", "\u2014": "-", "\u2015": "-", "\u2212": "-",
  "\u2018": "'", "\u2019": "'", "\u201A": "'", "\u201B": "'",
  "\u201C": "\"", "\u201D": "\"", "\u201E": "\"", "\u201F": "\"",
  "\u00A0": " ", "\u2002": " ", "\u2003": " ", "\u2004": " ", "\u2005": " ", "\u2006": " ", "\u2007": " ",
  "\u2008": " ", "\u2009": " ", "\u200A": " ", "\u202F": " ", "\u205F": " ", "\u3000": " "
}
const LOOKALIKE_RE = /[\u2010-\u2015\u2212\u2018-\u201F\u00A0\u2002-\u200A\u202F\u205F\u3000]/g

/** Folds typographic look-alikes (dashes, curly quotes, exotic spaces) to ASCII, one unit for one. @category text */
export const foldLookalikes = (text: string): string => text.replace(LOOKALIKE_RE, (ch) => LOOKALIKES[ch] ?? ch)

const MIN_DISTINCT = 8
const MAX_LINE = 240

/** A source from any text: a BOM character is dropped and CRLF becomes LF. @category constructors */
export const makeSource = (raw: string): Source => {
  const text = raw.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n")
  const endsWithBreak = text.endsWith("\n")
  const lines = (endsWithBreak ? text.slice(0, -1) : text).split("\n")
  const folded = foldLookalikes(text)
  const known = new Map<number, boolean>()
  const distinct = (k: number): boolean => {
    let d = known.get(k)
    if (d === undefined) {
      d = isDistinctive(folded, lines[k] ?? "")
      known.set(k, d)
    }
    return d
  }
  return { text, lines, endsWithBreak, folded, distinct }
}

/** Offset of line `k`'s first character. */
const offsetOf = (source: Source, k: number): number => {
  let offset = 0
  for (let i = 0; i < k; i++) offset += source.lines[i]!.length + 1
  return offset
}

/** The window of lines `[start, end)`. @category constructors */
export const windowAt = (source: Source, start: number, end: number): Window => {
  const lines = source.lines.slice(start, end)
  const from = offsetOf(source, start)
  const to = from + lines.join("\n").length
  return { start, end, lines, from, to, breakAfter: end < source.lines.length || source.endsWithBreak }
}


/** True when the line, trimmed and folded, is long enough and found exactly once in the folded text (even as a substring). */
export const isDistinctive = (foldedText: string, line: string): boolean => {
  const key = foldLookalikes(line).trim()
  if (key.length < MIN_DISTINCT || line.length > MAX_LINE) return false
  const first = foldedText.indexOf(key)
  return first !== -1 && foldedText.indexOf(key, first + 1) === -1
}

/** Indentation (leading spaces and tabs) of a line. @category text */
export const indentOf = (line: string): string => /^[ \t]*/.exec(line)![0]

/** True for a line of only whitespace. @category text */
export const isBlank = (line: string): boolean => line.trim() === ""

/**
 * The first window at or after line `seed` (wrapping around) of `size` lines (grown by up to five
 * more until it holds a distinctive line) that `accept` takes; `undefined` when none does.
 * @category constructors
 */
export const findWindow = (
  source: Source,
  seed: number,
  size: number,
  accept: (w: Window) => boolean
): Window | undefined => {
  const n = source.lines.length
  for (let i = 0; i < n; i++) {
    const start = (seed + i) % n
    for (let end = start + size; end <= Math.min(n, start + size + 5); end++) {
      const lines = source.lines.slice(start, end)
      if (lines.some((line) => line.length > MAX_LINE)) break
      if (!lines.some((_, j) => source.distinct(start + j))) continue
      if (isBlank(lines[0]!) || isBlank(lines[lines.length - 1]!)) continue
      const w = windowAt(source, start, end)
      if (accept(w)) return w
      break
    }
  }
  return undefined
}

/** The text with `[from, to)` replaced. @category text */
export const splice = (text: string, from: number, to: number, insert: string): string =>
  text.slice(0, from) + insert + text.slice(to)

/** How new_string differs from the window: a word appended to a line, a line added after it, or the line removed. @category models */
export type EditShape = "append_word" | "add_line" | "remove_line"

/**
 * The window's lines after the model's small edit at non-blank line `pick` (mod the count). A
 * removal needs two or more non-blank lines and falls back to appending otherwise.
 * @category constructors
 */
export const editLines = (lines: ReadonlyArray<string>, shape: EditShape, pick: number): Array<string> => {
  const nonBlank = lines.flatMap((line, k) => (isBlank(line) ? [] : [k]))
  const k = nonBlank[pick % nonBlank.length]!
  const out = [...lines]
  if (shape === "remove_line" && nonBlank.length >= 2) {
    out.splice(k, 1)
  } else if (shape === "add_line") {
    out.splice(k + 1, 0, `${indentOf(lines[k]!)}added line ${pick % 97}`)
  } else {
    out[k] = `${lines[k]!.trimEnd()} edited${lines[k]!.slice(lines[k]!.trimEnd().length)}`
  }
  return out
}
