/**
 * Properties of the approximate rungs (fast-check, seeded):
 * - an approximate match is applied only if no other place in the file matches under the same
 *   rung, at any column (checked against a direct reading of each line rung: both texts with
 *   every line's trailing whitespace dropped, look-alikes folded for the folded rung, indentation
 *   dropped too for the indentation rung, and every start of the needle counted);
 * - an applied edit changes only the matched span.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { Haystack } from "../../src/text/haystack.js"
import { type EditResolution, normalizeUnicode, resolveEdit } from "../../src/text/index.js"
import { splitNeedle } from "../../src/text/lines.js"
import { needleKey } from "../../src/text/passes.js"
import { strayPlaces, strayPlacesByLines } from "../../src/text/strays.js"

const RUNS = { seed: 19, numRuns: 400 } as const

const TOKENS = ["a", "b", "ab", "x = 1", "\"q\"", "\u201cq\u201d", "--", "\u2014", "-", "\u2013", "f()"]

const line = fc.record({
  indent: fc.constantFrom("", "  ", "    ", "\t"),
  words: fc.array(fc.constantFrom(...TOKENS), { minLength: 0, maxLength: 3 }),
  trailing: fc.constantFrom("", "", " ", "  ", "\t")
}).map(({ indent, trailing, words }) => indent + words.join(" ") + trailing)

/** A file, and a needle cut from it (possibly starting and ending inside lines), then perturbed. */
const caseArb = fc.record({
  lines: fc.array(line, { minLength: 1, maxLength: 8 }),
  from: fc.nat(),
  count: fc.integer({ min: 1, max: 3 }),
  cutStart: fc.nat({ max: 4 }),
  cutEnd: fc.nat({ max: 4 }),
  withBreak: fc.boolean(),
  trailing: fc.array(fc.constantFrom("", " ", "  "), { minLength: 3, maxLength: 3 }),
  curly: fc.boolean(),
  shift: fc.constantFrom("", "  ", "-2")
}).map((c) => {
  const content = c.lines.join("\n") + "\n"
  const from = c.from % c.lines.length
  const window = c.lines.slice(from, from + c.count)
  let needleLines = window.map((l, j) => l.trimEnd() + c.trailing[j]!)
  if (needleLines.length > 1) {
    needleLines[0] = needleLines[0]!.slice(Math.min(c.cutStart, needleLines[0]!.length))
    const last = needleLines.length - 1
    needleLines[last] = needleLines[last]!.slice(0, Math.max(1, needleLines[last]!.length - c.cutEnd))
  }
  if (c.shift === "  ") needleLines = needleLines.map((l) => (l.trim() === "" ? l : "  " + l))
  if (c.shift === "-2") needleLines = needleLines.map((l) => l.replace(/^ {2}/, ""))
  let needle = needleLines.join("\n") + (c.withBreak ? "\n" : "")
  if (c.curly) needle = needle.replaceAll("\"q\"", "\u201cq\u201d")
  return { content, needle }
})

/** Every start of `needle` in `text`, overlapping ones too. */
const starts = (text: string, needle: string): number => {
  let count = 0
  for (let p = text.indexOf(needle); p !== -1; p = text.indexOf(needle, p + 1)) count++
  return count
}

const isIndent = (c: string) => c === " " || c === "\t"

/** A text as a line rung sees it: each line keyed, joined again (the needle keeps its final break). */
const keyed = (text: string, key: (line: string) => string): string => text.split("\n").map(key).join("\n")

const trimEnd = (l: string) => l.trimEnd()
const foldTrimEnd = (l: string) => normalizeUnicode(l).trimEnd()
const rest = (l: string) => {
  let i = 0
  while (i < l.length && isIndent(l[i]!)) i++
  return normalizeUnicode(l.slice(i)).trimEnd()
}

const KEYS: Readonly<Record<string, (line: string) => string>> = {
  trim_end_lines: trimEnd,
  normalized_trim_end_lines: foldTrimEnd,
  indentation_shift: rest
}

const changesOnlyItsSpan = (content: string, result: EditResolution) => {
  if (result._tag !== "Match" || result.occurrences !== 1) return
  assert.strictEqual(content.slice(result.startOffset, result.endOffset), result.oldString)
  assert.strictEqual(
    result.newContent,
    content.slice(0, result.startOffset) + result.newString + content.slice(result.endOffset)
  )
}

describe("properties of the approximate rungs", () => {
  it("an approximate match is applied only if no other place matches under the same rung, at any column", () => {
    const seen: Record<string, number> = {}
    fc.assert(
      fc.property(caseArb, ({ content, needle }) => {
        const result = resolveEdit(content, needle, "NEW")
        if (result._tag !== "Match") return
        seen[result.rung] = (seen[result.rung] ?? 0) + 1
        const key = KEYS[result.rung]
        if (key === undefined) return
        const keyedNeedle = keyed(needle, key)
        if (keyedNeedle.trim() === "") return
        assert.strictEqual(starts(keyed(content, key), keyedNeedle), 1, `${result.rung}: ${JSON.stringify({ content, needle })}`)
      }),
      RUNS
    )
    // The generator reaches every line rung this property is about.
    for (const rung of Object.keys(KEYS)) assert.isAbove(seen[rung] ?? 0, 0, rung)
  })

  it("an applied edit changes only the matched span", () => {
    fc.assert(
      fc.property(caseArb, fc.string({ maxLength: 6 }), ({ content, needle }, replacement) => {
        changesOnlyItsSpan(content, resolveEdit(content, needle, replacement))
      }),
      RUNS
    )
  })

  it("the anchored any-column search finds exactly the places the all-lines scan finds", () => {
    let compared = 0
    fc.assert(
      fc.property(caseArb, fc.boolean(), ({ content, needle }, folded) => {
        const { endsWithBreak, lines } = splitNeedle(needle)
        if (lines.length < 2) return
        const h = new Haystack(content)
        const pass = folded ? "fold_trim_end" : "trim_end"
        const keys = lines.map((l) => needleKey(pass, l))
        const keying = { text: folded ? h.folded() : content, skipIndent: false }
        const anchored = strayPlaces(h, keying, keys, endsWithBreak, [])
        assert.deepStrictEqual(anchored, strayPlacesByLines(h, keying, keys, endsWithBreak, []))
        const indentKeying = { text: h.folded(), skipIndent: true }
        const rests = lines.map(rest)
        assert.deepStrictEqual(
          strayPlaces(h, indentKeying, rests, endsWithBreak, []),
          strayPlacesByLines(h, indentKeying, rests, endsWithBreak, [])
        )
        if (anchored.length > 0) compared++
      }),
      RUNS
    )
    assert.isAbove(compared, 0)
  })
})
