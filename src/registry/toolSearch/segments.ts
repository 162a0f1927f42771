/**
 * The building blocks of the keyword index: texts split into segments (maximal runs of letters
 * and digits), the vocabulary of distinct segments with a substring lookup, and compact postings
 * (which tools contain each segment).
 *
 * A text can only contain a term made of letters and digits inside one of its segments, so the
 * tools whose text contains such a term are the postings of the vocabulary segments that contain it.
 *
 * @since 0.1.0
 */

const SEGMENT_SEPARATORS = /[^\p{L}\p{N}]+/u
const SEPARATOR = /[^\p{L}\p{N}]/u
/** Separates segments in the vocabulary text: never inside a segment nor a separator-free term. */
const JOINER = "\n"

/** True when `term` has a character other than a letter or digit (it may then span segments). @category predicates */
export const hasSeparator = (term: string): boolean => SEPARATOR.test(term)

const isAsciiWordChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || (c >= 65 && c <= 90)
const WORD_CHAR_AT_END = /[\p{L}\p{N}]$/u

const FNV_OFFSET = 0x811c9dc5
const FNV_PRIME = 0x01000193

/**
 * Interns segments: gives every distinct segment an id (0, 1, 2, … in order of first sight) while
 * splitting texts, without allocating a string per segment already seen (ASCII text is hashed as it
 * is scanned; other text is split with `\p{L}` / `\p{N}`).
 *
 * @category constructors
 */
export const segmentTable = () => {
  const segments: Array<string> = []
  let hashes = new Int32Array(1024)
  let slots = new Int32Array(2048).fill(-1)
  let ids = new Int32Array(64)
  let count = 0
  let endsText = false

  const equalsRange = (segment: string, text: string, start: number): boolean => {
    for (let k = 0; k < segment.length; k++) if (segment.charCodeAt(k) !== text.charCodeAt(start + k)) return false
    return true
  }
  const grow = (): void => {
    const next = new Int32Array(slots.length * 2).fill(-1)
    const mask = next.length - 1
    for (let id = 0; id < segments.length; id++) {
      let slot = hashes[id]! & mask
      while (next[slot] !== -1) slot = (slot + 1) & mask
      next[slot] = id
    }
    slots = next
  }
  const intern = (text: string, start: number, end: number, hash: number): number => {
    const mask = slots.length - 1
    const length = end - start
    let slot = hash & mask
    for (let id = slots[slot]!; id !== -1; id = slots[slot = (slot + 1) & mask]!) {
      const segment = segments[id]!
      if (hashes[id] === hash && segment.length === length && equalsRange(segment, text, start)) return id
    }
    const id = segments.length
    segments.push(start === 0 && end === text.length ? text : text.slice(start, end))
    if (id === hashes.length) {
      const h = new Int32Array(id * 2)
      h.set(hashes)
      hashes = h
    }
    hashes[id] = hash
    slots[slot] = id
    if (segments.length * 2 > slots.length) grow()
    return id
  }
  const emit = (id: number): void => {
    if (count === ids.length) {
      const next = new Int32Array(count * 2)
      next.set(ids)
      ids = next
    }
    ids[count++] = id
  }
  const hashOf = (text: string): number => {
    let h = FNV_OFFSET
    for (let k = 0; k < text.length; k++) h = Math.imul(h ^ text.charCodeAt(k), FNV_PRIME)
    return h
  }
  const splitSlow = (text: string): void => {
    count = 0
    for (const part of text.split(SEGMENT_SEPARATORS)) if (part !== "") emit(intern(part, 0, part.length, hashOf(part)))
    endsText = WORD_CHAR_AT_END.test(text)
  }

  return {
    /** Every distinct segment, by id. */
    segments: segments as ReadonlyArray<string>,
    /** Splits `text`; its segment ids are then `ids()[0..count)` (valid until the next split). Returns the count. */
    split: (text: string): number => {
      count = 0
      let start = -1
      let h = FNV_OFFSET
      for (let k = 0; k < text.length; k++) {
        const c = text.charCodeAt(k)
        if (c >= 128) {
          splitSlow(text)
          return count
        }
        if (isAsciiWordChar(c)) {
          if (start === -1) {
            start = k
            h = FNV_OFFSET
          }
          h = Math.imul(h ^ c, FNV_PRIME)
        } else if (start !== -1) {
          emit(intern(text, start, k, h))
          start = -1
        }
      }
      endsText = start !== -1
      if (start !== -1) emit(intern(text, start, text.length, h))
      return count
    },
    /** The ids of the last split. */
    ids: (): Int32Array => ids,
    /** True when the last split's text ends with its last segment. */
    endsWithSegment: (): boolean => endsText
  }
}

/** Tool positions per segment in one array: segment `s` owns `tools[offsets[s]..offsets[s + 1])`, ascending. @category models */
export interface Postings {
  readonly offsets: Int32Array
  readonly tools: Int32Array
}

/** Collects (segment, tool) pairs, each once, with tools added in ascending order; `pack` makes the postings. @category constructors */
export const postingsBuilder = () => {
  let segments = new Int32Array(1024)
  let tools = new Int32Array(1024)
  let count = 0
  let last = new Int32Array(1024).fill(-1)
  return {
    add: (segment: number, tool: number): void => {
      if (segment >= last.length) {
        const grown = new Int32Array(Math.max(last.length * 2, segment + 1)).fill(-1)
        grown.set(last)
        last = grown
      }
      if (last[segment] === tool) return
      last[segment] = tool
      if (count === segments.length) {
        const s = new Int32Array(count * 2)
        s.set(segments)
        segments = s
        const t = new Int32Array(count * 2)
        t.set(tools)
        tools = t
      }
      segments[count] = segment
      tools[count++] = tool
    },
    /** Counting sort by segment (stable, so each list stays ascending). */
    pack: (segmentCount: number): Postings => {
      const offsets = new Int32Array(segmentCount + 1)
      for (let k = 0; k < count; k++) offsets[segments[k]! + 1]!++
      for (let s = 0; s < segmentCount; s++) offsets[s + 1]! += offsets[s]!
      const next = offsets.slice(0, segmentCount)
      const packed = new Int32Array(count)
      for (let k = 0; k < count; k++) packed[next[segments[k]!]!++] = tools[k]!
      return { offsets, tools: packed }
    }
  }
}

/** The distinct segments of a tool set, searchable by substring. @category models */
export interface Vocabulary {
  /** Number of segments; ids are `0..size-1` in the order given. */
  readonly size: number
  /** Length of segment `id`. */
  readonly lengthOf: (id: number) => number
  /** Ids of the segments containing `term` (a term without separators), ascending, each once. */
  readonly containing: (term: string) => Array<number>
}

/** The vocabulary of the given distinct segments (ids are their positions). @category constructors */
export const makeVocabulary = (segments: ReadonlyArray<string>): Vocabulary => {
  const text = segments.join(JOINER)
  // starts[s] is where segment s begins in `text`; starts[segments.length] is past the end.
  const starts = new Int32Array(segments.length + 1)
  for (let s = 0, at = 0; s <= segments.length; s++) {
    starts[s] = at
    at += (segments[s]?.length ?? 0) + JOINER.length
  }
  const segmentAt = (position: number): number => {
    let lo = 0
    let hi = segments.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (starts[mid]! <= position) lo = mid
      else hi = mid - 1
    }
    return lo
  }
  return {
    size: segments.length,
    lengthOf: (id) => starts[id + 1]! - starts[id]! - JOINER.length,
    containing: (term) => {
      const found: Array<number> = []
      if (term === "") return found
      for (let at = text.indexOf(term); at !== -1;) {
        const segment = segmentAt(at)
        found.push(segment)
        at = text.indexOf(term, starts[segment + 1]!)
      }
      return found
    }
  }
}
