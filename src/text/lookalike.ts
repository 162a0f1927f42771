/**
 * The look-alike rung: old_string matches once look-alike characters (curly quotes, dashes,
 * special spaces) are read as their ASCII forms, at any column.
 *
 * Folding is one code unit for one, so offsets in the folded text are offsets in the file. Dashes
 * are compared as runs: a run of dashes in the needle matches a whole run in the file of the same
 * length, or an em dash (`—`, `―`) stands for a run of two or three hyphens either way round
 * (models write `—` for `--` and `--` for `—`); a run of plain hyphens never matches a run of
 * plain hyphens of another length. A place never begins or ends inside a run of the character
 * that was normalized there (`–` never takes the last hyphen of `---`). Every start is reported,
 * overlapping ones too: two readings of one needle are two places.
 *
 * @since 0.1.0
 */
import type { Haystack } from "./haystack.js"
import type { Span } from "./replace.js"
import { normalizeUnicode } from "./unicode.js"

const EM_DASHES = new Set(["\u2014", "\u2015"])
const HYPHEN = 0x2d

const escapeRegExp = (text: string): string => text.replace(/[\\^$.*+?()[\]{}|/]/g, "\\$&")

/** Whether a needle's run of dashes may stand for a file's run (raw text of both). */
const runsMatch = (needleRun: string, fileRun: string): boolean => {
  if (needleRun.length === fileRun.length) return true
  const em = (run: string) => run.length === 1 && EM_DASHES.has(run)
  const hyphens = (run: string) => (run.length === 2 || run.length === 3) && /^-+$/.test(run)
  return (em(needleRun) && hyphens(fileRun)) || (em(fileRun) && hyphens(needleRun))
}

/** A place must not begin or end inside a run of the character normalized at its edge. */
const edgesClean = (h: Haystack, needle: string, start: number, end: number): boolean => {
  const folded = h.folded()
  const content = h.content
  const first = folded.charCodeAt(start)
  if (start > 0 && folded.charCodeAt(start - 1) === first && needle[0] !== content[start]) return false
  const last = folded.charCodeAt(end - 1)
  if (end < folded.length && folded.charCodeAt(end) === last && needle[needle.length - 1] !== content[end - 1]) {
    return false
  }
  return true
}

/** Every start of the folded needle (no dash in it) in the folded text, overlapping ones too. */
const literalPlaces = (folded: string, foldedNeedle: string): Array<Span> => {
  const out: Array<Span> = []
  for (let p = folded.indexOf(foldedNeedle); p !== -1; p = folded.indexOf(foldedNeedle, p + 1)) {
    out.push([p, p + foldedNeedle.length])
  }
  return out
}

/** Every place of a folded needle holding dashes, its dash runs matched as runs. */
const dashPlaces = (h: Haystack, needle: string, foldedNeedle: string): Array<Span> => {
  const folded = h.folded()
  const parts = foldedNeedle.split(/(-+)/)
  const source = (parts[0] === "" ? "(?<!-)" : "") +
    parts.map((part, i) => (i % 2 === 1 ? "-+" : escapeRegExp(part))).join("") +
    (parts[parts.length - 1] === "" ? "(?!-)" : "")
  const re = new RegExp(source, "g")
  const out: Array<Span> = []
  for (let m = re.exec(folded); m !== null; m = re.exec(folded)) {
    const start = m.index
    const end = start + m[0].length
    re.lastIndex = start + 1
    // Walk the needle's parts over the place, comparing each pair of dash runs.
    let at = start
    let inNeedle = 0
    let ok = true
    for (let i = 0; i < parts.length && ok; i++) {
      const part = parts[i]!
      if (i % 2 === 0) {
        at += part.length
        inNeedle += part.length
        continue
      }
      let runEnd = at
      while (runEnd < end && folded.charCodeAt(runEnd) === HYPHEN) runEnd++
      ok = runsMatch(needle.slice(inNeedle, inNeedle + part.length), h.content.slice(at, runEnd))
      at = runEnd
      inNeedle += part.length
    }
    if (ok) out.push([start, end])
  }
  return out
}

/**
 * Every place the needle matches with look-alikes folded, or an empty list when neither the
 * needle nor the file holds a look-alike (the rung is then the exact rung).
 * @category search
 */
export const lookalikePlaces = (h: Haystack, needle: string): Array<Span> => {
  const foldedNeedle = normalizeUnicode(needle)
  const folded = h.folded()
  if (foldedNeedle === needle && folded === h.content) return []
  const places = foldedNeedle.includes("-")
    ? dashPlaces(h, needle, foldedNeedle)
    : literalPlaces(folded, foldedNeedle)
  return places.filter(([start, end]) => edgesClean(h, needle, start, end))
}
