/**
 * Ladder rung past the reference: uniform indentation shift.
 *
 * The needle's lines equal a window of the file once indentation is set aside (look-alikes
 * folded, trailing whitespace dropped, blank lines equal to blank lines), and every non-blank
 * line's indentation differs from the file's by the SAME change. A change is an optional unit
 * conversion (tabs ↔ runs of 2, 4 or 8 spaces) followed by swapping a leading prefix `from` for
 * `to` (e.g. `""` → `"  "`: the model wrote two spaces too few). new_string is re-indented line
 * by line with that change; a line the change cannot be applied to refuses the rung.
 *
 * Unless new_string is already written in the file's indentation: the evidence is its lines that
 * repeat a line of the matched window as the file has it (but not as old_string has it). Such
 * lines and none repeating old_string's own lines: new_string is written as it is. Lines of both
 * kinds: the evidence conflicts and the rung refuses.
 *
 * @since 0.1.0
 */
import { findWindows, indentLength, restKey, splitNeedle, trimmedLength } from "./lines.js"
import { lineSpan } from "./passes.js"
import type { Candidates, Haystack } from "./haystack.js"
import { removeTrailingNewline, type Span } from "./replace.js"
import { MAX_STRAYS as MAX_LISTED_PLACES, strayPlaces } from "./strays.js"

type Convert = (indent: string) => string | undefined

/** A uniform indentation change: convert units, then swap the leading `from` for `to`. */
interface Shift {
  readonly convert: Convert
  readonly from: string
  readonly to: string
}

/** Cap on indentation comparisons per edit, so many look-alike windows cannot make the rung quadratic. */
const MAX_INDENT_CHECKS = 1_000_000

const identity: Convert = (indent) => indent
const tabsToSpaces = (width: number): Convert => (indent) => indent.replaceAll("\t", " ".repeat(width))
const spacesToTabs = (width: number): Convert => (indent) =>
  /^ *$/.test(indent) && indent.length % width === 0 ? "\t".repeat(indent.length / width) : undefined

const CONVERTS: ReadonlyArray<Convert> = [
  identity,
  tabsToSpaces(4),
  tabsToSpaces(2),
  tabsToSpaces(8),
  spacesToTabs(4),
  spacesToTabs(2),
  spacesToTabs(8)
]

const applyShift = (shift: Shift, indent: string): string | undefined => {
  const converted = shift.convert(indent)
  if (converted === undefined || !converted.startsWith(shift.from)) return undefined
  return shift.to + converted.slice(shift.from.length)
}

/** The needle's non-blank indents under one unit conversion (undefined where it does not apply). */
interface Variant {
  readonly convert: Convert
  readonly indents: ReadonlyArray<string | undefined>
}

const variantsOf = (needleIndents: ReadonlyArray<string>): Array<Variant> => {
  const seen = new Set<string>()
  const variants: Array<Variant> = []
  for (const convert of CONVERTS) {
    const indents = needleIndents.map(convert)
    const key = indents.map((indent) => indent ?? "\u0001").join("\u0000")
    if (seen.has(key)) continue
    seen.add(key)
    variants.push({ convert, indents })
  }
  return variants
}

/**
 * The most general shifts turning each needle indent into the file indent at the same index
 * (`fileIndent(k)`), pure unit conversions first. Spends one unit of `budget` per line compared.
 */
const deriveShifts = (
  variants: ReadonlyArray<Variant>,
  fileIndent: (k: number) => string,
  budget: { left: number }
): Array<Shift> => {
  const shifts: Array<Shift> = []
  const f0 = fileIndent(0)
  for (const { convert, indents } of variants) {
    const c0 = indents[0]
    if (c0 === undefined) continue
    let common = 0
    while (common < c0.length && common < f0.length && c0[c0.length - 1 - common] === f0[f0.length - 1 - common]) {
      common++
    }
    const shift: Shift = { convert, from: c0.slice(0, c0.length - common), to: f0.slice(0, f0.length - common) }
    let uniform = true
    for (let k = 1; k < indents.length && uniform; k++) {
      budget.left--
      const ck = indents[k]
      uniform = ck !== undefined && ck.startsWith(shift.from) && shift.to + ck.slice(shift.from.length) === fileIndent(k)
    }
    if (uniform) shifts.push(shift)
  }
  return shifts.sort((a, b) => Number(a.from !== a.to) - Number(b.from !== b.to))
}

const reindent = (text: string, shift: Shift): string | undefined => {
  const out: Array<string> = []
  for (const line of text.split("\n")) {
    if (trimmedLength(line) === 0) {
      out.push(line)
      continue
    }
    const width = indentLength(line)
    const indent = applyShift(shift, line.slice(0, width))
    if (indent === undefined) return undefined
    out.push(indent + line.slice(width))
  }
  return out.join("\n")
}

/**
 * Which indentation new_string is written in, from its lines that repeat a line of old_string
 * (`"needle"`) or of the matched window as the file has it (`"file"`); `"none"` without evidence.
 */
const indentEvidence = (
  newString: string,
  needleLines: ReadonlyArray<string>,
  fileLines: ReadonlyArray<string>
): "needle" | "file" | "none" | "conflict" => {
  const inNeedle = new Set(needleLines.map((line) => line.trimEnd()))
  const inFile = new Set(fileLines.map((line) => line.trimEnd()))
  let needle = false
  let file = false
  for (const raw of newString.split("\n")) {
    const line = raw.trimEnd()
    if (line === "") continue
    const a = inNeedle.has(line)
    const b = inFile.has(line)
    if (a && !b) needle = true
    if (b && !a) file = true
  }
  return needle && file ? "conflict" : file ? "file" : needle ? "needle" : "none"
}

/** The indentation-shift rung: every window whose indentation differs uniformly, re-indenting new_string. */
export const indentationShift = (h: Haystack, needle: string, newString: string): Candidates | undefined => {
  const { endsWithBreak, lines } = splitNeedle(needle)
  const n = lines.length
  const table = h.table()
  const blank = lines.map((line) => trimmedLength(line) === 0)
  if (n === 0 || n > table.count || blank.every(Boolean)) return undefined
  const widths = lines.map(indentLength)
  const needleIndents: Array<string> = []
  const rows: Array<number> = []
  lines.forEach((line, j) => {
    if (blank[j]) return
    needleIndents.push(line.slice(0, widths[j]))
    rows.push(j)
  })
  const variants = variantsOf(needleIndents)
  const indentEnds = table.indentEnds()
  const shiftsAt = new Map<number, Array<Shift>>()
  const budget = { left: MAX_INDENT_CHECKS }
  const accept = (start: number): boolean => {
    if (budget.left <= 0) return false
    const fileIndent = (k: number): string => {
      const line = start + rows[k]!
      return h.content.slice(table.starts[line]!, indentEnds[line]!)
    }
    const shifts = deriveShifts(variants, fileIndent, budget)
    if (shifts.length > 0) shiftsAt.set(start, shifts)
    return shifts.length > 0
  }
  const { ids, pattern } = h.restIds(lines)
  // Past one more place than an ambiguous answer lists, the count no longer changes the answer.
  const starts = findWindows(ids, pattern.ids, accept, MAX_LISTED_PLACES + 1)
  const first = starts[0]
  // Out of budget, uniqueness is unknown: the rung does not apply.
  if (first === undefined || budget.left <= 0) return undefined
  const atEnd = endsWithBreak && !table.hasBreakAfter(first + n - 1)
  const written = atEnd ? removeTrailingNewline(newString) : newString
  const windowLines = lines.map((_, j) => table.line(first + j))
  const evidence = indentEvidence(written, lines, windowLines)
  if (evidence === "conflict") return undefined
  let rewritten: string | undefined = evidence === "file" ? written : undefined
  for (const shift of evidence === "file" ? [] : shiftsAt.get(first) ?? []) {
    rewritten = reindent(written, shift)
    if (rewritten !== undefined) break
  }
  if (rewritten === undefined) return undefined
  const spans: Array<Span> = starts.map((start) => lineSpan(table, start, n, endsWithBreak))
  const keys = lines.map(restKey)
  const strays = () => strayPlaces(h, { text: h.folded(), skipIndent: true }, keys, endsWithBreak, spans)
  return { rung: "indentation_shift", spans, newString: rewritten, strays }
}
