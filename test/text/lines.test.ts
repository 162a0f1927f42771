import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import { findWindows, internPattern, LineTable, lineIds, splitNeedle } from "../../src/text/lines.js"
import { escapeKinds, unescapeKinds } from "../../src/text/unescape.js"
import { characterDiff, normalizeUnicode, UNICODE_EQUIVALENTS } from "../../src/text/index.js"
import { isJsWhitespace } from "../../src/text/unicode.js"
import { widenDeletion } from "../../src/text/replace.js"

const RUNS = { seed: 42, numRuns: 300 } as const

describe("unicode folding", () => {
  it("isJsWhitespace is exactly what trimEnd removes, for every UTF-16 code unit", () => {
    let mismatches = 0
    for (let c = 0; c <= 0xffff; c++) {
      if ((String.fromCharCode(c).trimEnd() === "") !== isJsWhitespace(c)) mismatches++
    }
    assert.strictEqual(mismatches, 0)
  })

  it("maps every table entry one code unit to one ASCII code unit, and nothing else", () => {
    for (const [from, to] of Object.entries(UNICODE_EQUIVALENTS)) {
      assert.strictEqual(from.length, 1)
      assert.strictEqual(normalizeUnicode(from), to)
      assert.match(to, /^[-'" ]$/)
    }
    assert.strictEqual(Object.keys(UNICODE_EQUIVALENTS).length, 28)
    assert.strictEqual(normalizeUnicode("\u200b\u2016\u2020é😀"), "\u200b\u2016\u2020é😀")
  })

  it("folding keeps the length of any string", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 40 }), (text) => {
        assert.strictEqual(normalizeUnicode(text).length, text.length)
      }),
      RUNS
    )
  })
})

describe("line table", () => {
  it("agrees with split, trimEnd and lineOf for any text", () => {
    const unit = fc.constantFrom("a", " ", "\t", "\n", "\r", "\u00a0", "\u3000", "b")
    fc.assert(
      fc.property(fc.string({ unit, maxLength: 40 }), (text) => {
        const table = new LineTable(text)
        const lines = text.split("\n")
        assert.strictEqual(table.count, lines.length)
        const trimmed = table.trimmedEnds()
        const indents = table.indentEnds()
        lines.forEach((line, i) => {
          assert.strictEqual(table.line(i), line)
          assert.strictEqual(trimmed[i]! - table.starts[i]!, line.trimEnd().length)
          assert.strictEqual(indents[i]! - table.starts[i]!, /^[ \t]*/.exec(line.trimEnd())![0].length)
          assert.strictEqual(table.lineOf(table.starts[i]!), i)
          assert.strictEqual(table.lineOf(table.ends[i]!), i)
          assert.strictEqual(table.hasBreakAfter(i), i < lines.length - 1)
        })
      }),
      RUNS
    )
  })

  it("splitNeedle drops only the empty line after a final break", () => {
    assert.deepStrictEqual(splitNeedle("a\nb\n"), { lines: ["a", "b"], endsWithBreak: true })
    assert.deepStrictEqual(splitNeedle("a\n\n"), { lines: ["a", ""], endsWithBreak: true })
    assert.deepStrictEqual(splitNeedle("a"), { lines: ["a"], endsWithBreak: false })
  })
})

describe("findWindows (KMP over line ids)", () => {
  const bruteForce = (ids: ReadonlyArray<number>, pattern: ReadonlyArray<number>): Array<number> => {
    const out: Array<number> = []
    for (let s = 0; s + pattern.length <= ids.length; s++) {
      if (pattern.every((p, j) => ids[s + j] === p)) {
        out.push(s)
        s += pattern.length - 1
      }
    }
    return out
  }

  it("finds the leftmost non-overlapping windows, like a brute-force scan", () => {
    const small = fc.integer({ min: -1, max: 2 })
    fc.assert(
      fc.property(
        fc.array(small, { maxLength: 40 }),
        fc.array(fc.integer({ min: 0, max: 2 }), { minLength: 1, maxLength: 5 }),
        (ids, pattern) => {
          const found = findWindows(Int32Array.from(ids), Int32Array.from(pattern))
          assert.deepStrictEqual(found, bruteForce(ids, pattern))
        }
      ),
      RUNS
    )
  })

  it("honours accept and limit", () => {
    const ids = Int32Array.from([0, 0, 0, 0, 0])
    const pattern = Int32Array.from([0, 0])
    assert.deepStrictEqual(findWindows(ids, pattern), [0, 2])
    assert.deepStrictEqual(findWindows(ids, pattern, (s) => s % 2 === 1), [1, 3])
    assert.deepStrictEqual(findWindows(ids, pattern, undefined, 1), [0])
    assert.deepStrictEqual(findWindows(ids, Int32Array.from([])), [])
  })

  it("lineIds reads a line only through keys of a needle length, in place or by hash", () => {
    const text = "ab\ncd\nab\nxyz"
    const table = new LineTable(text)
    const few = internPattern(["ab", "xyz"])
    assert.deepStrictEqual([...lineIds(text, table.starts, table.ends, few)], [0, -1, 0, 1])
    const many = internPattern(["aa", "bb", "cc", "dd", "ee", "cd"])
    assert.deepStrictEqual([...lineIds(text, table.starts, table.ends, many)], [-1, 5, -1, -1])
  })
})

describe("escapes", () => {
  it("reads escape kinds left to right and unescapes only the kinds asked for", () => {
    assert.deepStrictEqual([...escapeKinds("a\\nb\\\"c\\\\n")].sort(), ["\"", "\\", "n"])
    assert.strictEqual(unescapeKinds("a\\nb\\tc", new Set(["n"])), "a\nb\\tc")
    assert.strictEqual(unescapeKinds("x\\\\n", new Set(["\\", "n"])), "x\\n")
    assert.strictEqual(unescapeKinds("end\\", new Set(["n"])), "end\\")
  })
})

describe("characterDiff", () => {
  it("shows the differing middle with shared context and visible whitespace", () => {
    assert.strictEqual(characterDiff("const b = 3;", "const b = 2;"), "const b = [-3-]{+2+};")
    assert.strictEqual(characterDiff("  x", "\tx"), "[-  -]{+\\t+}x")
    assert.strictEqual(characterDiff("a b", "a\u00a0\u00a0b"), "a {+\\u00a0+}b")
    assert.strictEqual(characterDiff("abc", ""), "[-abc-]")
    const long = "x".repeat(100)
    assert.strictEqual(characterDiff(`${long}1${long}`, `${long}2${long}`), `…${"x".repeat(24)}[-1-]{+2+}${"x".repeat(24)}…`)
  })
})

describe("widenDeletion", () => {
  it("widens to whole lines only when the span covers all non-blank text of its lines", () => {
    const text = "a\n  foo  \nb"
    assert.deepStrictEqual(widenDeletion(text, [4, 7]), [2, 10])
    assert.deepStrictEqual(widenDeletion("x foo\n", [2, 5]), [2, 5])
    assert.deepStrictEqual(widenDeletion("foo bar\n", [0, 3]), [0, 3])
    assert.deepStrictEqual(widenDeletion("a\nfoo", [2, 5]), [2, 5])
    assert.deepStrictEqual(widenDeletion("  foo\r\nb", [2, 5]), [0, 7])
  })
})
