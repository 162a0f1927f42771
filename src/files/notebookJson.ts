/**
 * Byte-preserving edits of a notebook's JSON text: the spans of the `cells` array elements are
 * found with a small scanner, and an edit replaces, inserts or removes exactly one element's text.
 * Every byte outside the edited cell (key order, escapes, number formats, indentation, the trailing
 * newline) stays as it was.
 *
 * @since 0.1.0
 */

/** Where the `cells` array and each of its elements lie in the text (half-open offsets). @category models */
export interface CellSpans {
  /** Offset of `[` and one past `]`. */
  readonly arrayStart: number
  readonly arrayEnd: number
  readonly cells: ReadonlyArray<readonly [number, number]>
}

const isSpace = (c: string | undefined) => c === " " || c === "\t" || c === "\n" || c === "\r"

const skipSpace = (t: string, i: number): number => {
  while (isSpace(t[i])) i++
  return i
}

const skipString = (t: string, i: number): number => {
  for (let j = i + 1; j < t.length; j++) {
    if (t[j] === "\\") j++
    else if (t[j] === "\"") return j + 1
  }
  return -1
}

/** End offset of the JSON value starting at `i` (after spaces), or -1. */
const skipValue = (t: string, i: number): number => {
  i = skipSpace(t, i)
  const c = t[i]
  if (c === "\"") return skipString(t, i)
  if (c === "{" || c === "[") {
    let depth = 0
    for (let j = i; j < t.length; j++) {
      const d = t[j]
      if (d === "\"") {
        j = skipString(t, j) - 1
        if (j < 0) return -1
      } else if (d === "{" || d === "[") depth++
      else if (d === "}" || d === "]") {
        depth--
        if (depth === 0) return j + 1
      }
    }
    return -1
  }
  let j = i
  while (j < t.length && !isSpace(t[j]) && t[j] !== "," && t[j] !== "}" && t[j] !== "]") j++
  return j > i ? j : -1
}

/** The spans of the top-level `cells` array, or `undefined` when the text is not shaped like a notebook. @category parsing */
export const findCellSpans = (t: string): CellSpans | undefined => {
  let i = skipSpace(t, 0)
  if (t[i] !== "{") return undefined
  i = skipSpace(t, i + 1)
  while (i < t.length && t[i] !== "}") {
    if (t[i] !== "\"") return undefined
    const keyEnd = skipString(t, i)
    if (keyEnd < 0) return undefined
    const key = t.slice(i + 1, keyEnd - 1)
    i = skipSpace(t, keyEnd)
    if (t[i] !== ":") return undefined
    const valueStart = skipSpace(t, i + 1)
    const valueEnd = skipValue(t, valueStart)
    if (valueEnd < 0) return undefined
    if (key === "cells" && t[valueStart] === "[") {
      const cells: Array<readonly [number, number]> = []
      let j = skipSpace(t, valueStart + 1)
      while (j < valueEnd - 1) {
        const end = skipValue(t, j)
        if (end < 0) return undefined
        cells.push([j, end])
        j = skipSpace(t, end)
        if (t[j] === ",") j = skipSpace(t, j + 1)
      }
      return { arrayStart: valueStart, arrayEnd: valueEnd, cells }
    }
    i = skipSpace(t, valueEnd)
    if (t[i] === ",") i = skipSpace(t, i + 1)
  }
  return undefined
}

/** The indentation unit of pretty-printed JSON (`" "`, `"  "`, `"\t"`), or `undefined` for compact JSON. @category parsing */
export const detectIndent = (t: string): string | undefined => {
  const m = /^\{\r?\n([ \t]+)\S/.exec(t.trimStart())
  return m?.[1]
}

/** A cell as JSON text at element depth (two levels in), in the file's indentation style. @category serializing */
export const renderCell = (cell: unknown, indent: string | undefined): string =>
  indent === undefined
    ? JSON.stringify(cell)
    : JSON.stringify(cell, null, indent).replaceAll("\n", `\n${indent}${indent}`)

const elementSeparator = (t: string, spans: CellSpans, indent: string | undefined): string => {
  const [first, second] = spans.cells
  if (first !== undefined && second !== undefined) return t.slice(first[1], second[0])
  return indent === undefined ? "," : `,\n${indent}${indent}`
}

/** One cell's text replaced. @category splicing */
export const spliceReplace = (t: string, spans: CellSpans, index: number, cellText: string): string => {
  const [start, end] = spans.cells[index]!
  return t.slice(0, start) + cellText + t.slice(end)
}

/** A cell's text inserted at `index` (0 = first). @category splicing */
export const spliceInsert = (
  t: string,
  spans: CellSpans,
  index: number,
  cellText: string,
  indent: string | undefined
): string => {
  const sep = elementSeparator(t, spans, indent)
  if (spans.cells.length === 0) {
    const open = indent === undefined ? "" : `\n${indent}${indent}`
    const close = indent === undefined ? "" : `\n${indent}`
    return `${t.slice(0, spans.arrayStart + 1)}${open}${cellText}${close}${t.slice(spans.arrayEnd - 1)}`
  }
  if (index === 0) {
    const [start] = spans.cells[0]!
    return t.slice(0, start) + cellText + sep + t.slice(start)
  }
  const [, end] = spans.cells[index - 1]!
  return t.slice(0, end) + sep + cellText + t.slice(end)
}

/** The cell at `index` removed, with one separator. @category splicing */
export const spliceDelete = (t: string, spans: CellSpans, index: number): string => {
  const cells = spans.cells
  const [start, end] = cells[index]!
  const next = cells[index + 1]
  const prev = cells[index - 1]
  if (next !== undefined) return t.slice(0, start) + t.slice(next[0])
  if (prev !== undefined) return t.slice(0, prev[1]) + t.slice(end)
  return `${t.slice(0, spans.arrayStart + 1)}${t.slice(spans.arrayEnd - 1)}`
}
