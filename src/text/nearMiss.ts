/**
 * The closest near-miss for a needle that matched nowhere, so the model can correct itself.
 *
 * Work is bounded: candidate windows come only from file lines equal to some needle line once
 * indentation and trailing whitespace are set aside (one linear pass), or, failing that, from at
 * most {@link MAX_TOKEN_HITS} occurrences of the needle's longest word. At most
 * {@link MAX_RANKED} windows are scored, each on at most {@link MAX_SCORED_LINES} lines.
 *
 * @since 0.1.0
 */
import { indentLength, internPattern, type LineTable, lineIds, splitNeedle, trimmedLength } from "./lines.js"
import { normalizeUnicode } from "./unicode.js"

/** Where the needle came closest: the first differing line (1-based) and a short character diff. */
export interface NearMiss {
  readonly line: number
  readonly expected: string
  readonly actual: string
  readonly diff: string
}

const MAX_CANDIDATE_STARTS = 50_000
const MAX_RANKED = 24
const MAX_SCORED_LINES = 200
const MAX_TOKEN_HITS = 2_000
const MAX_KEY_FANOUT = 8
const DIFF_CONTEXT = 24
const DIFF_MIDDLE = 80

const comparable = (line: string): string => normalizeUnicode(line).trimEnd()

const restKey = (line: string): string => normalizeUnicode(line.slice(indentLength(line), trimmedLength(line)))

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
export const findNearMiss = (table: LineTable, needle: string): NearMiss | undefined => {
  const { lines } = splitNeedle(needle)
  const n = lines.length
  if (n === 0) return undefined
  const maxStart = Math.max(0, table.count - n)
  const votes = new Map<number, number>()
  const vote = (start: number, weight: number): void => {
    const s = Math.min(Math.max(start, 0), maxStart)
    const current = votes.get(s)
    if (current !== undefined) votes.set(s, current + weight)
    else if (votes.size < MAX_CANDIDATE_STARTS) votes.set(s, weight)
  }

  const keys = lines.map(restKey)
  const at = new Map<string, Array<number>>()
  keys.forEach((key, j) => {
    if (key === "") return
    const list = at.get(key)
    if (list === undefined) at.set(key, [j])
    else if (list.length < MAX_KEY_FANOUT) list.push(j)
  })
  if (at.size > 0) {
    const unique = [...at.keys()]
    const pattern = internPattern(unique)
    const ids = lineIds(table.normalized(), table.indentEnds(), table.trimmedEnds(), pattern)
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i]!
      if (id < 0) continue
      const key = unique[id]!
      for (const j of at.get(key)!) vote(i - j, key.length)
    }
  }
  if (votes.size === 0) {
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
    const text = table.normalized()
    let hits = 0
    for (let i = text.indexOf(word); i !== -1 && hits < MAX_TOKEN_HITS; i = text.indexOf(word, i + word.length)) {
      hits++
      vote(table.lineOf(i) - wordLine, 1)
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
      return { line: best + j + 1, expected, actual, diff: characterDiff(expected, actual) }
    }
  }
  return undefined
}
