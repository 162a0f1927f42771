/**
 * Line tables and linear-time line-window search.
 *
 * A file is indexed once into line start/end offsets (no per-line strings). A comparison pass
 * maps every file line to the id of the needle line it equals under that pass's key (or -1),
 * looking at a line's text only when its key length equals some needle line's key length; the
 * id sequences are then searched with Knuth–Morris–Pratt. Every pass is O(file + needle),
 * whatever the file looks like (no O(lines × needle lines) window re-checks).
 *
 * @since 0.1.0
 */
import { isIndentChar, isJsWhitespace, normalizeUnicode } from "./unicode.js"

/** Line offsets of one text, with lazily computed trimmed ends, indentation ends and folded text. */
export class LineTable {
  readonly count: number
  readonly starts: Uint32Array
  readonly ends: Uint32Array
  private trimmed: Uint32Array | undefined
  private indents: Uint32Array | undefined
  private folded: string | undefined

  constructor(readonly text: string, private readonly fold: () => string = () => normalizeUnicode(text)) {
    let count = 1
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) count++
    this.count = count
    this.starts = new Uint32Array(count)
    this.ends = new Uint32Array(count)
    let line = 0
    let start = 0
    for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) {
      this.starts[line] = start
      this.ends[line] = i
      line++
      start = i + 1
    }
    this.starts[line] = start
    this.ends[line] = text.length
  }

  /** The text with look-alikes folded (same length as `text`). */
  normalized(): string {
    if (this.folded === undefined) this.folded = this.fold()
    return this.folded
  }

  /** End of each line once trailing whitespace is dropped (identical for raw and folded text). */
  trimmedEnds(): Uint32Array {
    if (this.trimmed === undefined) {
      const out = new Uint32Array(this.count)
      const text = this.text
      for (let i = 0; i < this.count; i++) {
        const start = this.starts[i]!
        let end = this.ends[i]!
        while (end > start && isJsWhitespace(text.charCodeAt(end - 1))) end--
        out[i] = end
      }
      this.trimmed = out
    }
    return this.trimmed
  }

  /** End of each line's leading run of spaces and tabs, capped at its trimmed end. */
  indentEnds(): Uint32Array {
    if (this.indents === undefined) {
      const out = new Uint32Array(this.count)
      const trimmed = this.trimmedEnds()
      const text = this.text
      for (let i = 0; i < this.count; i++) {
        const end = trimmed[i]!
        let j = this.starts[i]!
        while (j < end && isIndentChar(text.charCodeAt(j))) j++
        out[i] = j
      }
      this.indents = out
    }
    return this.indents
  }

  /** The raw text of line `i` (0-based), without its line break. */
  line(i: number): string {
    return this.text.slice(this.starts[i]!, this.ends[i]!)
  }

  /** 0-based index of the line holding `offset` (an offset equal to a line's end belongs to it). */
  lineOf(offset: number): number {
    let lo = 0
    let hi = this.count - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (this.starts[mid]! <= offset) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  /** True when line `i` is followed by a line break. */
  hasBreakAfter(i: number): boolean {
    return i < this.count - 1
  }
}

/** Needle line keys interned to small ids, grouped by key length. */
export interface InternedPattern {
  /** Id of each needle line's key, in needle order. */
  readonly ids: Int32Array
  /** The distinct keys; a key's id is its index. */
  readonly keys: ReadonlyArray<string>
  /** Distinct key ids by key length (index = length). */
  readonly byLength: ReadonlyArray<ReadonlyArray<number> | undefined>
  readonly byKey: ReadonlyMap<string, number>
}

/** Interns the keys of a needle's lines. */
export const internPattern = (lineKeys: ReadonlyArray<string>): InternedPattern => {
  const byKey = new Map<string, number>()
  const byLength: Array<Array<number> | undefined> = []
  const keys: Array<string> = []
  const ids = new Int32Array(lineKeys.length)
  lineKeys.forEach((key, i) => {
    let id = byKey.get(key)
    if (id === undefined) {
      id = keys.length
      keys.push(key)
      byKey.set(key, id)
      const group = byLength[key.length]
      if (group === undefined) byLength[key.length] = [id]
      else group.push(id)
    }
    ids[i] = id
  })
  return { ids, keys, byLength, byKey }
}

/** Up to this many keys of one length are compared in place; more are looked up by hash. */
const IN_PLACE_KEYS = 4

/**
 * Id of every file line under a key: the key of line i is `text.slice(from[i], to[i])`, and its
 * id is the needle id of an equal key or -1. A line is only read when its key length is one of
 * the needle's.
 */
export const lineIds = (
  text: string,
  from: Uint32Array,
  to: Uint32Array,
  pattern: InternedPattern
): Int32Array => {
  const count = from.length
  const ids = new Int32Array(count).fill(-1)
  const { byKey, byLength, keys } = pattern
  const longest = byLength.length
  for (let i = 0; i < count; i++) {
    const a = from[i]!
    const b = to[i]!
    if (b - a >= longest) continue
    const group = byLength[b - a]
    if (group === undefined) continue
    if (group.length <= IN_PLACE_KEYS) {
      for (const id of group) {
        if (text.startsWith(keys[id]!, a)) {
          ids[i] = id
          break
        }
      }
    } else {
      ids[i] = byKey.get(text.slice(a, b)) ?? -1
    }
  }
  return ids
}

/**
 * Start indexes of the leftmost non-overlapping windows of `ids` equal to `pattern` that
 * `accept` allows (Knuth–Morris–Pratt, linear). Stops after `limit` windows.
 */
export const findWindows = (
  ids: Int32Array,
  pattern: Int32Array,
  accept: (start: number) => boolean = () => true,
  limit: number = Number.POSITIVE_INFINITY
): Array<number> => {
  const n = pattern.length
  const out: Array<number> = []
  if (n === 0 || n > ids.length) return out
  const fail = new Int32Array(n)
  for (let i = 1, k = 0; i < n; i++) {
    while (k > 0 && pattern[i] !== pattern[k]) k = fail[k - 1]!
    if (pattern[i] === pattern[k]) k++
    fail[i] = k
  }
  let q = 0
  for (let i = 0; i < ids.length; i++) {
    const id = ids[i]
    while (q > 0 && pattern[q] !== id) q = fail[q - 1]!
    if (pattern[q] === id) q++
    if (q === n) {
      const start = i - n + 1
      if (accept(start)) {
        out.push(start)
        if (out.length >= limit) break
        q = 0
      } else {
        q = fail[q - 1]!
      }
    }
  }
  return out
}

/** Splits a needle into lines; a final line break yields no extra empty line but sets `endsWithBreak`. */
export const splitNeedle = (needle: string): { readonly lines: Array<string>; readonly endsWithBreak: boolean } => {
  const lines = needle.split("\n")
  const endsWithBreak = needle.endsWith("\n")
  if (endsWithBreak) lines.pop()
  return { lines, endsWithBreak }
}

/** Length of `s` once trailing whitespace is dropped (same as `s.trimEnd().length`). */
export const trimmedLength = (s: string): number => {
  let end = s.length
  while (end > 0 && isJsWhitespace(s.charCodeAt(end - 1))) end--
  return end
}

/** Length of the leading run of spaces and tabs of `s`, capped at its trimmed length. */
export const indentLength = (s: string): number => {
  const end = trimmedLength(s)
  let j = 0
  while (j < end && isIndentChar(s.charCodeAt(j))) j++
  return j
}

/** A line's text without indentation and trailing whitespace, look-alikes folded. */
export const restKey = (line: string): string => normalizeUnicode(line.slice(indentLength(line), trimmedLength(line)))
