/**
 * Case-insensitive closure of character sets, for dialects whose own case folding differs from
 * Unicode simple case folding (glibc's `grep -E -i` does not fold `K` KELVIN SIGN to `k`, `ẞ`
 * to `ß`, and folds dotless `ı` to `i`). The ERE emitter spells each literal and class out as
 * its closure and runs grep without `-i`. JavaScript's `iu` matching is the oracle.
 *
 * @since 0.1.0
 */
import { type CharSet, charSet, type CodeRange } from "./ast.js"

/** Characters that fold to a letter they cannot be reached from by `toLowerCase`/`toUpperCase` ([char, letter]). */
const LONESOME: ReadonlyArray<readonly [number, number]> = [
  [0xb5, 0x39c], [0x17f, 0x53], [0x1c5, 0x1c6], [0x1c5, 0x1c4], [0x1c8, 0x1c9], [0x1c8, 0x1c7], [0x1cb, 0x1cc],
  [0x1cb, 0x1ca], [0x1f2, 0x1f3], [0x1f2, 0x1f1], [0x345, 0x399], [0x3c2, 0x3a3], [0x3d0, 0x392], [0x3d1, 0x398],
  [0x3d5, 0x3a6], [0x3d6, 0x3a0], [0x3f0, 0x39a], [0x3f1, 0x3a1], [0x3f4, 0x3b8], [0x3f5, 0x395], [0x1c80, 0x412],
  [0x1c81, 0x414], [0x1c82, 0x41e], [0x1c83, 0x421], [0x1c84, 0x422], [0x1c85, 0x422], [0x1c86, 0x42a],
  [0x1c87, 0x462], [0x1c88, 0xa64a], [0x1e9b, 0x1e60], [0x1e9e, 0xdf], [0x1fbe, 0x399], [0x2126, 0x3c9],
  [0x212a, 0x6b], [0x212b, 0xe5],
  ...[0x1f88, 0x1f98, 0x1fa8].flatMap((base) => Array.from({ length: 8 }, (_, i) => [base + i, base - 8 + i] as const)),
  [0x1fbc, 0x1fb3], [0x1fcc, 0x1fc3], [0x1ffc, 0x1ff3]
]

/** Code points above this have no case mappings. */
const LAST_CASED = 0x1e943

const single = (s: string): number | undefined => {
  const cps = [...s]
  return cps.length === 1 ? cps[0]!.codePointAt(0) : undefined
}

/** Adds to `out` the characters that may be case-equivalent to `cp` (a superset, filtered by the caller). */
const candidates = (cp: number, out: Set<number>): void => {
  const local = new Set<number>([cp])
  const reach = (c: number) => {
    const s = String.fromCodePoint(c)
    for (const v of [single(s.toLowerCase()), single(s.toUpperCase())]) {
      if (v === undefined || local.has(v)) continue
      local.add(v)
      reach(v)
    }
  }
  reach(cp)
  for (const c of [...local]) {
    for (const [lonesome, letter] of LONESOME) {
      if (letter === c && !local.has(lonesome)) {
        local.add(lonesome)
        reach(lonesome)
      }
    }
  }
  for (const c of local) out.add(c)
}

/** The set plus every character `iu` matching treats as its case variant. @category charsets */
export const caseClosure = (set: CharSet): CharSet => {
  const found = new Set<number>()
  for (const [lo, hi] of set) {
    for (let cp = lo; cp <= Math.min(hi, LAST_CASED); cp++) {
      if (cp < 0xd800 || cp > 0xdfff) candidates(cp, found)
    }
  }
  const hex = (cp: number) => cp.toString(16)
  const source = set.map(([lo, hi]) => `\\u{${hex(lo)}}-\\u{${hex(hi)}}`).join("")
  const oracle = new RegExp(`^[${source}]$`, "iu")
  const extra: Array<CodeRange> = []
  for (const cp of found) {
    if (oracle.test(String.fromCodePoint(cp))) extra.push([cp, cp])
  }
  return charSet([...set, ...extra])
}
