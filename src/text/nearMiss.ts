/**
 * The closest near-miss for a needle that matched nowhere, so the model can correct itself.
 *
 * Work is bounded: one linear pass finds the file lines equal to some needle line once
 * indentation and trailing whitespace are set aside; the rarest few of those needle lines anchor
 * candidate windows (at most MAX_HITS_PER_ANCHOR hits each). With no shared line, at most as
 * many occurrences of the needle's longest word anchor them instead. At most MAX_RANKED windows
 * are scored, each on at most MAX_SCORED_LINES lines.
 *
 * @since 0.1.0
 */
import { splitNeedle } from "./lines.js"
import type { Haystack } from "./haystack.js"
import { normalizeUnicode } from "./unicode.js"

/**
 * Where the needle came closest: the first differing line (1-based), the needle's and the file's
 * text of that line (each clipped to 400 characters) and a short character diff.
 */
export interface NearMiss {
  readonly line: number
  readonly expected: string
  readonly actual: string
  readonly diff: string
}

const MAX_ANCHORS = 6
const MAX_HITS_PER_ANCHOR = 4_000
const MAX_KEY_FANOUT = 4
const MAX_RANKED = 24
const MAX_SCORED_LINES = 200
const MAX_SHOWN_LINE = 400
const DIFF_CONTEXT = 24
const DIFF_MIDDLE = 80

const comparable = (line: string): string => normalizeUnicode(line).trimEnd()

const INVISIBLE = /[\u0000-\u0008\u000b-\u001f\u007f\u00a0\u2000-\u200f\u2028\u2029\u202f\u205f\u3000\ufeff\t\r]/g

const visible = (text: string): string =>
  text.replace(INVISIBLE, (ch) =>
    ch === "\t" ? "\\t" : ch === "\r" ? "\\r" : `\\u${ch.charCodeAt(0).toString(16).padStart(4, "0")}`)

const clip = (text: string, max: number, fromEnd: boolean): string =>
  text.length <= max ? text : fromEnd ? `…${text.slice(text.length - max)}` : `${text.slice(0, max)}…`

/** A one-line character diff: shared context, `[-expected-]` and `{+actual+}` for the differing middle. */
export const characterDiff = (expected: string, actual: string): string => {
  const e = expected.trimEnd()
  const a = actual.trimEnd()
  const fe = normalizeUnicode(e)
  const fa = normalizeUnicode(a)
  const shortest = Math.min(fe.length, fa.length)
  let prefix = 0
  while (prefix < shortest && fe[prefix] === fa[prefix]) prefix++
  let suffix = 0
  while (suffix < shortest - prefix && fe[fe.length - 1 - suffix] === fa[fa.length - 1 - suffix]) suffix++
  const removed = e.slice(prefix, e.length - suffix)
  const added = a.slice(prefix, a.length - suffix)
  return [
    visible(clip(e.slice(0, prefix), DIFF_CONTEXT, true)),
    removed === "" ? "" : `[-${visible(clip(removed, DIFF_MIDDLE, false))}-]`,
    added === "" ? "" : `{+${visible(clip(added, DIFF_MIDDLE, false))}+}`,
    visible(clip(e.slice(e.length - suffix), DIFF_CONTEXT, false))
  ].join("")
}

const similarity = (a: string, b: string): number => {
  if (a === b) return 1
  const shortest = Math.min(a.length, b.length)
  let prefix = 0
  while (prefix < shortest && a[prefix] === b[prefix]) prefix++
  let suffix = 0
  while (suffix < shortest - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++
  return (prefix + suffix) / Math.max(a.length, b.length)
}

const LONGEST_WORD = /[A-Za-z0-9_$]{3,}/g

/** The closest window of the file to the needle's lines, described at its first differing line. */
export const findNearMiss = (h: Haystack, needle: string): NearMiss | undefined => {
  const { lines } = splitNeedle(needle)
  const n = lines.length
  if (n === 0) return undefined
  const table = h.table()
  const maxStart = Math.max(0, table.count - n)
  const votes = new Map<number, number>()
  const vote = (start: number): void => {
    const s = Math.min(Math.max(start, 0), maxStart)
    votes.set(s, (votes.get(s) ?? 0) + 1)
  }

  // Anchors: the rarest non-blank needle lines that occur in the file (indentation aside).
  const { ids, pattern } = h.restIds(lines)
  const frequency = new Float64Array(pattern.keys.length)
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]!
    if (id >= 0) frequency[id]!++
  }
  const anchors = pattern.keys
    .map((key, id) => ({ key, id }))
    .filter(({ id, key }) => key !== "" && frequency[id]! > 0)
    .sort((a, b) => frequency[a.id]! - frequency[b.id]! || b.key.length - a.key.length)
    .slice(0, MAX_ANCHORS)
  if (anchors.length > 0) {
    const rows = new Map<number, Array<number>>()
    const hits = new Map<number, number>()
    for (const { id } of anchors) {
      rows.set(id, [])
      hits.set(id, 0)
    }
    pattern.ids.forEach((id, j) => {
      const list = rows.get(id)
      if (list !== undefined && list.length < MAX_KEY_FANOUT) list.push(j)
    })
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!
      const list = rows.get(id)
      if (list === undefined) continue
      const seen = hits.get(id)!
      if (seen >= MAX_HITS_PER_ANCHOR) continue
      hits.set(id, seen + 1)
      for (const j of list) vote(i - j)
    }
  } else {
    let word = ""
    let wordLine = 0
    lines.slice(0, MAX_SCORED_LINES).forEach((line, j) => {
      for (const m of normalizeUnicode(line).matchAll(LONGEST_WORD)) {
        if (m[0].length > word.length) {
          word = m[0]
          wordLine = j
        }
      }
    })
    if (word === "") return undefined
    const text = h.folded()
    let count = 0
    for (let i = text.indexOf(word); i !== -1 && count < MAX_HITS_PER_ANCHOR; i = text.indexOf(word, i + word.length)) {
      count++
      vote(table.lineOf(i) - wordLine)
    }
    if (votes.size === 0) return undefined
  }

  const ranked = [...votes].sort((x, y) => y[1] - x[1] || x[0] - y[0]).slice(0, MAX_RANKED)
  const scored = Math.min(n, MAX_SCORED_LINES)
  const wanted = lines.slice(0, scored).map(comparable)
  let best = ranked[0]![0]
  let bestScore = -1
  for (const [start] of ranked) {
    let score = 0
    for (let j = 0; j < scored && start + j < table.count; j++) {
      score += similarity(comparable(table.line(start + j)), wanted[j]!)
    }
    if (score > bestScore) {
      best = start
      bestScore = score
    }
  }

  for (let j = 0; j < n; j++) {
    const expected = lines[j]!
    const actual = best + j < table.count ? table.line(best + j) : ""
    if (best + j >= table.count || comparable(actual) !== comparable(expected)) {
      const shown = (text: string) => clip(text, MAX_SHOWN_LINE, false)
      return { line: best + j + 1, expected: shown(expected), actual: shown(actual), diff: characterDiff(expected, actual) }
    }
  }
  return undefined
}
