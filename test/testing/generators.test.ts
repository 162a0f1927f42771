/**
 * The generators: every family builds valid cases (the perturbation really perturbs, the intended
 * after differs from the file in one place, the bytes round-trip), deterministically from a seed;
 * and the text perturbations on hand-made inputs.
 */
import { assert, describe, it } from "@effect/vitest"
import fc from "fast-check"
import iconv from "iconv-lite"
import {
  anyEditCaseArb,
  beforeBytes,
  commonIndent,
  curlyQuotes,
  dashes,
  dashVariants,
  type EditCase,
  editCaseArb,
  escapeKinds,
  exoticSpaces,
  FAMILIES,
  foldLookalikes,
  type Family,
  intendedBytes,
  overEscape,
  plainSpaces,
  straightQuotes
} from "../../src/testing/index.js"

const SAMPLE = { seed: 4242, numRuns: 40 } as const

/** What every case of a family must show, besides the checks common to all. */
const FAMILY_CHECKS: Readonly<Record<Family, (c: EditCase) => void>> = {
  curly_quotes: (c) => assert.match(c.request.old_string + c.before, /[\u2018-\u201F]/),
  dashes: (c) => assert.match(c.request.old_string + c.before, /[\u2013\u2014\u2212]/),
  unicode_spaces: (c) => assert.match(c.request.old_string + c.before, /[\u00A0\u2002-\u200A\u202F\u205F\u3000]/),
  trailing_whitespace: (c) => assert.isFalse(c.before.includes(c.request.old_string)),
  crlf: (c) => {
    assert.include(c.before, "\r\n")
    assert.notInclude(c.request.old_string, "\r")
    assert.isFalse(/(?<!\r)\n/.test(c.before), "every break is CRLF")
  },
  missing_final_newline: (c) => {
    assert.isFalse(c.before.endsWith("\n"))
    assert.isTrue(c.request.old_string.endsWith("\n"))
    assert.isTrue(c.before.endsWith(c.request.old_string.slice(0, -1)))
  },
  indentation_drift: (c) => {
    assert.isFalse(c.before.includes(c.request.old_string))
    const strip = (s: string) => s.split("\n").map((l) => l.trim()).join("\n")
    assert.include(strip(c.before), strip(c.request.old_string))
  },
  over_escaping: (c) => assert.match(c.request.old_string, /\\[nt"\\]/),
  encoding: (c) => {
    assert.notStrictEqual(c.encoding, "utf-8")
    const bytes = Buffer.from(beforeBytes(c))
    const decoded = c.encoding === "utf-8-bom" ? bytes.subarray(3).toString("utf8")
      : c.encoding === "utf-16le-bom" ? iconv.decode(bytes.subarray(2), "utf-16le")
      : iconv.decode(bytes, c.encoding)
    assert.strictEqual(decoded, c.before)
    assert.include(c.before, c.request.old_string)
  },
  ambiguous_duplicates: (c) => {
    const loose = (s: string) => foldLookalikes(s).split("\n").map((line) => line.trimEnd()).join("\n")
    assert.isAtLeast(loose(c.before).split(loose(c.request.old_string)).length - 1, 2, "old_string's text is in the file twice")
    if (c.request.replace_all === true) assert.strictEqual(c.intended._tag, "After")
    else assert.strictEqual(c.intended._tag, "MustRefuse")
  },
  hallucinated_lines: (c) => {
    assert.strictEqual(c.intended._tag, "MustRefuse")
    assert.isFalse(c.before.includes(c.request.old_string))
  }
}

describe("the perturbation families", () => {
  for (const family of FAMILIES) {
    it(`${family}: valid cases, and the same cases from the same seed`, () => {
      const cases = fc.sample(editCaseArb(family), SAMPLE)
      for (const c of cases) {
        assert.strictEqual(c.family, family)
        assert.notStrictEqual(c.request.old_string, "")
        assert.notStrictEqual(c.request.old_string, c.request.new_string)
        if (c.intended._tag === "After") {
          assert.notStrictEqual(c.intended.after, c.before)
          assert.isDefined(intendedBytes(c))
        } else {
          assert.isUndefined(intendedBytes(c))
          assert.isAbove(c.intended.why.length, 0)
        }
        FAMILY_CHECKS[family](c)
      }
      assert.deepStrictEqual(fc.sample(editCaseArb(family), SAMPLE), cases)
    })
  }

  it("anyEditCaseArb draws every family", () => {
    const families = new Set(fc.sample(anyEditCaseArb(), { seed: 11, numRuns: 200 }).map((c) => c.family))
    assert.deepStrictEqual([...families].sort(), [...FAMILIES].sort())
  })

  it("cut from texts the caller gives, skipping texts that offer the family nothing", () => {
    const texts = ["no quotes here at all, none\nsecond line without any\n", "const greeting = \"hello there\";\nconst other = 'x y z w';\n"]
    for (const c of fc.sample(editCaseArb("curly_quotes", { sources: texts }), SAMPLE)) {
      assert.strictEqual(c.before, texts[1])
    }
  })
})

describe("the text perturbations", () => {
  it("curly and straight quotes", () => {
    assert.strictEqual(curlyQuotes("say \"it's\" 'x'", [1, 1, 1, 1, 1]), "say \u201cit\u2019s\u201d \u2018x\u2019")
    assert.strictEqual(straightQuotes("\u201cit\u2019s\u201d", [1, 1, 1]), "\"it's\"")
    assert.isUndefined(curlyQuotes("no quotes", [1]))
  })

  it("dash runs: each variant rewrites only whole runs of its length", () => {
    const text = "a-b -- c --- d"
    assert.deepStrictEqual(dashVariants(text), ["en_dash_for_hyphen", "minus_for_hyphen", "em_dash_for_double_hyphen", "em_dash_for_triple_hyphen"])
    assert.strictEqual(dashes(text, "en_dash_for_hyphen", [1]), "a\u2013b -- c --- d")
    assert.strictEqual(dashes(text, "em_dash_for_double_hyphen", [1]), "a-b \u2014 c --- d")
    assert.strictEqual(dashes(text, "em_dash_for_triple_hyphen", [1]), "a-b -- c \u2014 d")
    assert.strictEqual(dashes("x \u2014 y", "hyphens_for_em_dash", [1]), "x -- y")
  })

  it("exotic spaces only between words, never indentation or trailing", () => {
    assert.strictEqual(exoticSpaces("  a b c  ", "\u00a0", [1, 1, 1]), "  a\u00a0b\u00a0c  ")
    assert.strictEqual(plainSpaces("a\u00a0b\u3000c", [1, 1]), "a b c")
  })

  it("over-escaping and its escape kinds", () => {
    assert.strictEqual(overEscape("a\t\"b\"\n\\n"), "a\\t\\\"b\\\"\\n\\\\n")
    assert.deepStrictEqual([...escapeKinds(overEscape("a\t\"b\"\n"))].sort(), ["\"", "n", "t"])
  })

  it("common indentation ignores blank lines", () => {
    assert.strictEqual(commonIndent(["    a", "", "  \t", "      b"]), "    ")
    assert.strictEqual(commonIndent(["\ta", "  b"]), "")
  })
})
