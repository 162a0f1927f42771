import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { type EditMatch, type EditResolution, resolveEdit } from "../../src/text/index.js"
import { countOccurrences, findMatchedSlice } from "../support/reference.js"

const RUNS = { seed: 42, numRuns: 300 } as const

const asMatch = (result: EditResolution): EditMatch => {
  if (result._tag !== "Match") assert.fail(`expected a match, got ${JSON.stringify(result)}`)
  return result
}

/** One place edited: the bytes before and after the reported span are untouched. */
const assertOnlySpanChanged = (content: string, m: EditMatch): void => {
  assert.strictEqual(m.occurrences, 1)
  assert.strictEqual(m.oldString, content.slice(m.startOffset, m.endOffset))
  const tail = content.length - m.endOffset
  assert.strictEqual(m.newContent.slice(0, m.startOffset), content.slice(0, m.startOffset))
  assert.strictEqual(m.newContent.slice(m.newContent.length - tail), content.slice(m.endOffset))
  assert.strictEqual(m.newContent, content.slice(0, m.startOffset) + m.newString + content.slice(m.endOffset))
}

/** Only the indentation-shift, unescape and dropped-final-line rungs may adjust new_string. */
const assertVerbatimUnlessAdjusting = (m: EditMatch, newString: string): void => {
  if (m.rung !== "indentation_shift" && m.rung !== "unescaped" && m.rung !== "dropped_trailing_empty_line") {
    assert.strictEqual(m.newString, newString)
  }
}

// Equivalence classes of the unicode map (ASCII first); a perturbation swaps within a class.
const CLASSES: ReadonlyArray<ReadonlyArray<string>> = [
  ["-", "\u2010", "\u2011", "\u2012", "\u2013", "\u2014", "\u2015", "\u2212"],
  ["'", "\u2018", "\u2019", "\u201A", "\u201B"],
  ["\"", "\u201C", "\u201D", "\u201E", "\u201F"],
  [" ", "\u00A0", "\u2002", "\u2003", "\u2009", "\u202F", "\u205F", "\u3000"]
]
const classOf = (ch: string) => CLASSES.find((c) => c.includes(ch))

const perturbChars = (text: string, noise: ReadonlyArray<number>): string => {
  let k = 0
  return [...text].map((ch) => {
    const cls = classOf(ch)
    const r = noise[k++ % noise.length]!
    return cls === undefined || r % 3 !== 0 ? ch : cls[r % cls.length]!
  }).join("")
}

// Lines made unique by a label; words carry look-alike characters on both sides.
const WORDS = ["foo", "bar-baz", "it's", "\"q\"", "x - y", "it\u2019s", "a\u2013b", "\u201cz\u201d", "p\u00a0q", "ok"]
const wordsArb = fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 })
const labelled = (k: number, indent: string, words: ReadonlyArray<string>, trailing: string) =>
  `${indent}#${k}: ${words.join(" ")}${trailing}`

const fileArb = fc.record({
  rows: fc.array(
    fc.record({
      indent: fc.constantFrom("", "  ", "    ", "\t"),
      words: wordsArb,
      trailing: fc.constantFrom("", "", " ")
    }),
    { minLength: 2, maxLength: 12 }
  ),
  endsWithBreak: fc.boolean()
}).map(({ endsWithBreak, rows }) => {
  const lines = rows.map((row, k) => labelled(k, row.indent, row.words, row.trailing))
  return { lines, content: lines.join("\n") + (endsWithBreak ? "\n" : ""), endsWithBreak }
})

const rangeArb = <T extends { readonly lines: ReadonlyArray<string> }>(file: T) =>
  fc.tuple(fc.nat({ max: file.lines.length - 1 }), fc.nat({ max: file.lines.length - 1 })).map(([x, y]) => ({
    file,
    a: Math.min(x, y),
    b: Math.max(x, y) + 1
  }))

/** Offsets of whole lines [a, b) of the file, with the following break when asked and present. */
const lineRange = (lines: ReadonlyArray<string>, a: number, b: number, withBreak: boolean, content: string) => {
  const start = lines.slice(0, a).reduce((n, line) => n + line.length + 1, 0)
  let end = start + lines.slice(a, b).join("\n").length
  if (withBreak && content[end] === "\n") end++
  return { start, end }
}

const newStringArb = fc.constantFrom("REPLACED", "new \u201cquoted\u201d\u00a0text  ", "a\nb\t", "$& $1 $$", "  indented\n    more\n")

describe("properties of resolveEdit", () => {
  it("an exact unique old_string changes exactly that span; several are a count mismatch", () => {
    const alphabet = fc.constantFrom("a", "b", "c", " ", "\n", "-")
    fc.assert(
      fc.property(
        fc.string({ unit: alphabet, minLength: 1, maxLength: 60 }),
        fc.nat(),
        fc.nat(),
        fc.string({ unit: alphabet, minLength: 1, maxLength: 8 }),
        (content, i, j, replacement) => {
          const a = i % content.length
          const b = a + 1 + (j % (content.length - a))
          const needle = content.slice(a, b)
          const count = countOccurrences(content, needle)
          const result = resolveEdit(content, needle, replacement)
          if (count === 1) {
            const m = asMatch(result)
            assert.strictEqual(m.rung, "exact")
            assert.strictEqual(m.startOffset, a)
            assert.strictEqual(m.endOffset, b)
            assert.strictEqual(m.newString, replacement)
            assert.strictEqual(m.newContent, content.slice(0, a) + replacement + content.slice(b))
            assertOnlySpanChanged(content, m)
          } else {
            assert.deepStrictEqual(result, { _tag: "OccurrenceMismatch", expected: 1, occurrences: count })
            const all = asMatch(resolveEdit(content, needle, replacement, { replaceAll: true }))
            assert.strictEqual(all.occurrences, count)
            assert.strictEqual(all.newContent, content.split(needle).join(replacement))
          }
        }
      ),
      RUNS
    )
  })

  it("unicode look-alike and trailing-whitespace perturbations of old_string land on the same span", () => {
    fc.assert(
      fc.property(
        fileArb.chain(rangeArb),
        fc.boolean(),
        fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 40 }),
        newStringArb,
        ({ a, b, file }, withBreak, noise, replacement) => {
          const { content, lines } = file
          const { end, start } = lineRange(lines, a, b, withBreak, content)
          const original = content.slice(start, end)
          const endsWithBreak = original.endsWith("\n")
          // Swap look-alikes, and give some lines a trailing whitespace run the file never has.
          const perturbed = original.slice(0, endsWithBreak ? -1 : undefined).split("\n").map((line, k) => {
            const swapped = perturbChars(line, noise.slice(k))
            const r = noise[k % noise.length]!
            return r % 4 === 0 ? swapped.trimEnd() + (r % 8 === 0 ? "  \t" : "\t ") : swapped
          }).join("\n") + (endsWithBreak ? "\n" : "")
          const m = asMatch(resolveEdit(content, perturbed, replacement))
          assert.include(["exact", "unicode_normalized", "trim_end_lines", "normalized_trim_end_lines"], m.rung)
          assert.strictEqual(m.startOffset, start)
          assert.strictEqual(m.endOffset, end)
          assert.strictEqual(m.oldString, original)
          assertVerbatimUnlessAdjusting(m, replacement)
          assertOnlySpanChanged(content, m)
          if (m.rung === "exact" || m.rung === "unicode_normalized") {
            assert.strictEqual(findMatchedSlice(content, perturbed)?.slice, original)
          }
        }
      ),
      RUNS
    )
  })

  it("when the normalised needle matches two or more places the edit refuses", () => {
    fc.assert(
      fc.property(
        fc.array(wordsArb, { minLength: 1, maxLength: 3 }),
        fc.array(fc.constantFrom("", " ", "  "), { minLength: 3, maxLength: 3 }),
        fc.array(fc.nat({ max: 1000 }), { minLength: 1, maxLength: 20 }),
        fc.boolean(),
        (snippetWords, trailing, noise, withBreak) => {
          // ASCII snippet with a guaranteed dash; the needle swaps that dash for an en dash.
          const snippet = snippetWords.map((words, k) => `s${k} x-y ${words.join(" ").replace(/[^\x20-\x7e]/g, "")}`)
          const copyA = snippet.join("\n")
          const copyB = snippet.map((line, k) => line + (trailing[k] ?? "")).join("\n")
          const content = ["#0: head", copyA, "#1: middle", copyB, "#2: tail", ""].join("\n")
          const needle = perturbChars(snippet.join("\n"), noise).replace("x-y", "x\u2013y") + (withBreak ? "\n" : "")
          const result = resolveEdit(content, needle, "NEW")
          assert.strictEqual(result._tag, "Ambiguous")
          if (result._tag === "Ambiguous") assert.strictEqual(result.occurrences, 2)
          // With replaceAll, both places are edited only when their real text is byte-identical.
          const all = resolveEdit(content, needle, "NEW", { replaceAll: true })
          if (copyA === copyB) assert.strictEqual(asMatch(all).occurrences, 2)
          if (all._tag === "Match") {
            assert.strictEqual(all.occurrences, 2)
            assert.strictEqual(countOccurrences(content, all.oldString), 2)
            assert.strictEqual(all.newContent, content.split(all.oldString).join("NEW"))
          } else {
            assert.strictEqual(all._tag, "Ambiguous")
            if (all._tag === "Ambiguous") {
              assert.strictEqual(all.rung, result._tag === "Ambiguous" ? result.rung : "exact")
              assert.strictEqual(all.occurrences, 2)
            }
          }
        }
      ),
      RUNS
    )
  })

  const blockArb = fc.record({
    base: fc.nat({ max: 2 }),
    levels: fc.array(fc.nat({ max: 3 }), { minLength: 2, maxLength: 6 }),
    words: fc.array(wordsArb, { minLength: 6, maxLength: 6 }),
    blankAfter: fc.nat({ max: 10 }),
    shift: fc.integer({ min: -2, max: 3 }).filter((d) => d !== 0),
    edits: fc.array(fc.boolean(), { minLength: 6, maxLength: 6 }),
    extraLevel: fc.nat({ max: 3 })
  })

  type Block = typeof blockArb extends fc.Arbitrary<infer T> ? T : never

  const buildBlock = (block: Block) => {
    // A downward shift cannot go below column 0; a block already at 0 is shifted up instead.
    const shift = block.shift < 0 ? Math.max(block.shift, -block.base) || 1 : block.shift
    const levels = block.levels.map((l) => l + block.base)
    const text = (k: number) => `#b${k}: ${block.words[k]!.join(" ")}`
    const blankAt = block.blankAfter < levels.length - 1 ? block.blankAfter : -1
    const withBlank = <T>(rows: ReadonlyArray<T>, blank: T): Array<T> =>
      rows.flatMap((row, k) => (k === blankAt ? [row, blank] : [row]))
    const fileLines = withBlank(levels.map((l, k) => "  ".repeat(l) + text(k)), "")
    const prefix = ["#p0: start", "#p1: more"]
    const suffix = ["#s0: end"]
    const content = [...prefix, ...fileLines, ...suffix].join("\n") + "\n"
    return { shift, levels, text, withBlank, prefix, suffix, content, fileLines }
  }

  it("a uniform indentation shift is re-applied to new_string line by line (and nothing else moves)", () => {
    fc.assert(
      fc.property(blockArb, (block) => {
        const { content, levels, prefix, shift, suffix, text, withBlank } = buildBlock(block)
        const needle = withBlank(levels.map((l, k) => "  ".repeat(l + shift) + text(k)), "").join("\n")
        // new_string at the needle's indentation: some lines edited, one more line added.
        const newRows = levels.map((l, k) => ({ level: l, body: block.edits[k] ? `${text(k)} EDITED` : text(k) }))
        newRows.push({ level: Math.max(0, levels[0]! - block.base) + block.base + block.extraLevel, body: "#added" })
        const newString = withBlank(newRows.map((r) => "  ".repeat(r.level + shift) + r.body), "").join("\n")
        const expected = withBlank(newRows.map((r) => "  ".repeat(r.level) + r.body), "").join("\n")
        const m = asMatch(resolveEdit(content, needle, newString))
        assert.strictEqual(m.rung, "indentation_shift")
        assert.strictEqual(m.newString, expected)
        assert.strictEqual(m.newContent, [...prefix, expected, ...suffix].join("\n") + "\n")
        assertOnlySpanChanged(content, m)
      }),
      RUNS
    )
  })

  it("a shift that is not uniform never edits", () => {
    fc.assert(
      fc.property(blockArb, fc.nat(), fc.boolean(), (block, pick, up) => {
        const { content, levels, text, withBlank } = buildBlock(block)
        const shift = Math.abs(block.shift)
        const odd = pick % levels.length
        const needleLevels = levels.map((l, k) => l + shift + (k === odd ? (up ? 1 : -1) : 0))
        const needle = withBlank(needleLevels.map((l, k) => "  ".repeat(l) + text(k)), "").join("\n")
        const result = resolveEdit(content, needle, "REPLACED")
        assert.strictEqual(result._tag, "NoMatch")
      }),
      RUNS
    )
  })

  it("with the file's own indentation the edit is exact and new_string keeps its indentation verbatim", () => {
    fc.assert(
      fc.property(blockArb, newStringArb, (block, replacement) => {
        const { content, fileLines } = buildBlock(block)
        const result = resolveEdit(content, fileLines.join("\n"), replacement)
        const m = asMatch(result)
        assert.strictEqual(m.rung, "exact")
        assertVerbatimUnlessAdjusting(m, replacement)
        assertOnlySpanChanged(content, m)
      }),
      RUNS
    )
  })

  it("a deletion takes its line break and leaves no blank line", () => {
    fc.assert(
      fc.property(fileArb.chain(rangeArb), fc.boolean(), ({ a, b, file }, trimmed) => {
        const { content, endsWithBreak, lines } = file
        fc.pre(b < lines.length || endsWithBreak)
        const whole = lines.slice(a, b).join("\n")
        // The model may leave out the first line's indentation and the last line's trailing spaces.
        const needle = trimmed ? whole.trim() : whole
        const m = asMatch(resolveEdit(content, needle, ""))
        const expectedLines = [...lines.slice(0, a), ...lines.slice(b)]
        const expected = expectedLines.join("\n") + (endsWithBreak && expectedLines.length > 0 ? "\n" : "")
        assert.strictEqual(m.newContent, expected)
        assert.isTrue(m.oldString.endsWith("\n"))
        assert.notMatch(m.newContent, /(^|\n)[ \t]*\n/)
        assertOnlySpanChanged(content, m)
      }),
      RUNS
    )
  })

  it("on any input, a single-place match changes only the bytes of its span", () => {
    const alphabet = fc.constantFrom("a", "b", " ", "\t", "\n", "-", "\u2013", "\"", "\u201c", "\\", "n")
    fc.assert(
      fc.property(
        fc.string({ unit: alphabet, maxLength: 50 }),
        fc.string({ unit: alphabet, minLength: 1, maxLength: 12 }),
        fc.string({ unit: alphabet, maxLength: 8 }),
        fc.boolean(),
        (content, needle, replacement, replaceAll) => {
          const result = resolveEdit(content, needle, replacement, { replaceAll })
          switch (result._tag) {
            case "Match":
              assert.isAtLeast(result.occurrences, 1)
              assert.strictEqual(result.oldString, content.slice(result.startOffset, result.endOffset))
              assert.isAtMost(result.startLine, result.endLine)
              assertVerbatimUnlessAdjusting(result, replacement)
              if (result.occurrences === 1) assertOnlySpanChanged(content, result)
              break
            case "Ambiguous":
              assert.isAtLeast(result.occurrences, 2)
              break
            case "OccurrenceMismatch":
              assert.notStrictEqual(result.occurrences, result.expected)
              break
            case "NoMatch":
              if (result.nearMiss !== undefined) assert.isAtLeast(result.nearMiss.line, 1)
              break
          }
        }
      ),
      RUNS
    )
  })
})
