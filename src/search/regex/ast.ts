/**
 * The dialect-neutral syntax tree of a grep pattern, and the character-set algebra used to
 * normalise character classes.
 *
 * Patterns are written in JavaScript regex syntax (they are validated with `new RegExp`).
 * The tree is what every dialect emitter (JS, Rust/ripgrep, PCRE, POSIX ERE) translates, so
 * all backends answer the same question.
 *
 * @since 0.1.0
 */

/** An inclusive code point range. @category models */
export type CodeRange = readonly [number, number]

/** A sorted list of disjoint, non-adjacent ranges. @category models */
export type CharSet = ReadonlyArray<CodeRange>

/** A class: the characters in `set`, or (when `negated`) every character not in it. @category models */
export interface ClassSpec {
  readonly negated: boolean
  readonly set: CharSet
}

/** One node of a parsed pattern. @category models */
export type RegexNode =
  | { readonly _tag: "Empty" }
  | { readonly _tag: "Char"; readonly cp: number }
  | { readonly _tag: "Class"; readonly spec: ClassSpec }
  | { readonly _tag: "Seq"; readonly items: ReadonlyArray<RegexNode> }
  | { readonly _tag: "Alt"; readonly alternatives: ReadonlyArray<RegexNode> }
  | { readonly _tag: "Group"; readonly capture: boolean; readonly body: RegexNode }
  | { readonly _tag: "Repeat"; readonly min: number; readonly max: number; readonly body: RegexNode }
  | { readonly _tag: "LineStart" }
  | { readonly _tag: "LineEnd" }
  | { readonly _tag: "WordBoundary"; readonly negated: boolean }
  | { readonly _tag: "Look"; readonly behind: boolean; readonly negated: boolean; readonly body: RegexNode }
  | { readonly _tag: "Backref"; readonly group: number }

/** Largest Unicode code point. @category constants */
export const MAX_CODE_POINT = 0x10ffff

/** Normalises ranges: sorted, merged, disjoint. @category charsets */
export const charSet = (ranges: Iterable<CodeRange>): CharSet => {
  const sorted = [...ranges].filter(([lo, hi]) => lo <= hi).sort((a, b) => a[0] - b[0])
  const out: Array<[number, number]> = []
  for (const [lo, hi] of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && lo <= last[1] + 1) last[1] = Math.max(last[1], hi)
    else out.push([lo, hi])
  }
  return out
}

/** Set union. @category charsets */
export const union = (a: CharSet, b: CharSet): CharSet => charSet([...a, ...b])

/** Complement within 0..U+10FFFF. @category charsets */
export const complement = (a: CharSet): CharSet => {
  const out: Array<CodeRange> = []
  let next = 0
  for (const [lo, hi] of a) {
    if (lo > next) out.push([next, lo - 1])
    next = hi + 1
  }
  if (next <= MAX_CODE_POINT) out.push([next, MAX_CODE_POINT])
  return out
}

/** Set difference `a \ b`. @category charsets */
export const subtract = (a: CharSet, b: CharSet): CharSet => intersect(a, complement(b))

/** Set intersection. @category charsets */
export const intersect = (a: CharSet, b: CharSet): CharSet => {
  const out: Array<CodeRange> = []
  for (const [alo, ahi] of a) {
    for (const [blo, bhi] of b) {
      const lo = Math.max(alo, blo)
      const hi = Math.min(ahi, bhi)
      if (lo <= hi) out.push([lo, hi])
    }
  }
  return charSet(out)
}

/** True when the set contains `cp`. @category charsets */
export const contains = (a: CharSet, cp: number): boolean => a.some(([lo, hi]) => cp >= lo && cp <= hi)

/** `[0-9]`. @category charsets */
export const DIGIT: CharSet = [[0x30, 0x39]]
/** `[0-9A-Za-z_]`: JavaScript's (ASCII) word characters. @category charsets */
export const WORD: CharSet = charSet([[0x30, 0x39], [0x41, 0x5a], [0x5f, 0x5f], [0x61, 0x7a]])
/** JavaScript's `\s`. @category charsets */
export const SPACE: CharSet = charSet([
  [0x09, 0x0d], [0x20, 0x20], [0xa0, 0xa0], [0x1680, 0x1680], [0x2000, 0x200a],
  [0x2028, 0x2029], [0x202f, 0x202f], [0x205f, 0x205f], [0x3000, 0x3000], [0xfeff, 0xfeff]
])
/** `\n` and `\r`: never inside a line as the engines see it. @category charsets */
export const LINE_BREAKS: CharSet = [[0x0a, 0x0a], [0x0d, 0x0d]]
/** What JavaScript's `.` refuses: the line terminators. @category charsets */
export const DOT_EXCLUDED: CharSet = charSet([[0x0a, 0x0a], [0x0d, 0x0d], [0x2028, 0x2029]])
/** UTF-16 surrogates: not characters of valid text. @category charsets */
export const SURROGATES: CharSet = [[0xd800, 0xdfff]]

/** Union of class items; a negated item `N` contributes everything outside `N`. @category charsets */
export const unionSpecs = (items: ReadonlyArray<ClassSpec>): ClassSpec => {
  const positives = items.filter((i) => !i.negated).reduce<CharSet>((acc, i) => union(acc, i.set), [])
  const negatives = items.filter((i) => i.negated)
  if (negatives.length === 0) return { negated: false, set: positives }
  const excluded = negatives.slice(1).reduce<CharSet>((acc, i) => intersect(acc, i.set), negatives[0]!.set)
  return { negated: true, set: subtract(excluded, positives) }
}
